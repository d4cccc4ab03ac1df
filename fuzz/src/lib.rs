//! The bodies of the fuzz targets, one function per target: bytes in, the readers of typed
//! positions, manifests, ledgers and `.bdb` files run on them as the command line and
//! `Database::open` do. Each function panics only where the code under test misbehaves (a
//! panic of its own, a success that fails a round trip, an error message that is not one
//! bounded line); bad input must come back as an error.
//!
//! The fuzz targets in `fuzz_targets/` call these; the test suite includes this file as a
//! module (`tests/suite/fuzz_corpus.rs`) and runs every committed corpus file through the same
//! functions, so a crash the fuzzer found stays fixed.
//!
//! Checksums stop a fuzzer at the door: a mutated manifest or `.bdb` file fails its checksum
//! before any field is read. So each reader is run twice: on the bytes as given (what a
//! damaged file meets), and on the bytes with every checksum recomputed (what a forged file
//! meets, since anyone can write a checksum), which takes the mutation to the checks behind.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use bawo_db::format::{BdbFile, HEADER, INDEX_ENTRY, MAX_BLOCK_POSITIONS, TRAILER};
use bawo_db::{
    with_game, AnyGame, Database, Game, GameParams, Manifest, MoveOutcome, PositionSpec, Side,
};
use bawo_store::ledger::Ledger;
use bawo_store::Checksum;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// Longest error message accepted: a message echoes at most a short part of its input.
const MAX_MESSAGE: usize = 1000;

/// What a reader said about an input: `Ok` when the input was accepted, else its error
/// message.
pub type Verdict = Result<(), String>;

/// Panics unless `e` reads as one bounded line (no control character: no line break, no
/// carriage return); returns it as a [`Verdict`].
fn refused(e: impl std::fmt::Display) -> Verdict {
    let msg = e.to_string();
    assert!(!msg.trim().is_empty(), "empty error message");
    assert!(
        !msg.contains(char::is_control),
        "error message with a line break or another control character: {msg:?}"
    );
    let chars = msg.chars().count();
    assert!(
        chars <= MAX_MESSAGE,
        "error message of {chars} characters: {:?}...",
        msg.chars().take(200).collect::<String>()
    );
    Err(msg)
}

// ---------------------------------------------------------------------------------------
// parse_position
// ---------------------------------------------------------------------------------------

/// Fuzz target `parse_position`: a game and a position as the command line takes them, then
/// moves played from it (`query --after`). The input is UTF-8 text, one field a line, an
/// empty or missing line for a flag not given:
///
/// ```text
/// bawo n=2            the game and its --param pairs (--game, --n, --lap-cap, --param)
/// kichwa=relay        --rules (an empty line: none)
/// 0,0,2,2/0,0,0,2     --board
/// A                   --to-move
/// 3,4                 --hands
/// A,B                 --houses
/// 1,5                 --after
/// ```
///
/// A position that parses is probed as `query` would: its moves, its drawing, its tier and
/// index, which must lead back to it.
pub fn parse_position(data: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(data) else {
        // Command-line arguments reach the parsers as UTF-8 only.
        return Ok(());
    };
    let mut lines = text.split('\n');
    let game_line = lines.next().unwrap_or("");
    let mut given = || lines.next().filter(|l| !l.is_empty()).map(str::to_string);
    let rules = given();
    let board = given().unwrap_or_default();
    let to_move = given().unwrap_or_else(|| "A".to_string());
    let (hands, houses, after) = (given(), given(), given());

    let mut words = game_line.split(' ').filter(|w| !w.is_empty());
    let mut params = GameParams::named(words.next().unwrap_or("bawo"));
    for w in words {
        if let Err(e) = params.add_pair(w) {
            return refused(e);
        }
    }
    params.rules = rules;
    params.board = Some(board.clone());
    with_built(&params, |game| {
        let to_move = match Side::parse(&to_move) {
            Ok(s) => s,
            Err(e) => return refused(e),
        };
        let spec = PositionSpec {
            board,
            to_move,
            hands,
            houses,
        };
        with_game!(game, g => position_of(g, &spec, after.as_deref()))
    })
}

/// Games built lately, by their parameters: building a Kigogo or Bao game takes milliseconds
/// (its index tables), parsing and probing a position microseconds.
const GAMES_KEPT: usize = 16;

thread_local! {
    static GAMES: RefCell<HashMap<String, AnyGame>> = RefCell::new(HashMap::new());
}

/// Runs `f` on the game `params` build ([`AnyGame::from_params`], as the command line does),
/// built once per parameter set; `params`' refusal when they build none.
fn with_built(params: &GameParams, f: impl FnOnce(&AnyGame) -> Verdict) -> Verdict {
    // The board counts only where it gives a size: Bawo's, without --n.
    let mut key = params.clone();
    if key.game != "bawo" || key.get("n").is_some() {
        key.board = None;
    }
    let key = format!("{key:?}");
    GAMES.with(|cell| {
        let mut games = cell.borrow_mut();
        if !games.contains_key(&key) {
            let game = match AnyGame::from_params(params) {
                Ok(g) => g,
                Err(e) => return refused(e),
            };
            if games.len() >= GAMES_KEPT {
                games.clear();
            }
            games.insert(key.clone(), game);
        }
        f(&games[&key])
    })
}

/// The position `spec` in `g`, `after` played from it, then probed.
fn position_of<G: Game>(g: &G, spec: &PositionSpec, after: Option<&str>) -> Verdict {
    let mut pos = match g.parse_position(spec) {
        Ok(p) => p,
        Err(e) => return refused(e),
    };
    assert_eq!(g.side_to_move(&pos), spec.to_move, "side to move lost");
    look_at(g, &pos);
    for text in after.iter().flat_map(|a| a.split(',')) {
        let m = match g.find_move(&pos, text) {
            Ok(m) => m,
            Err(e) => return refused(e),
        };
        pos = match m.outcome {
            MoveOutcome::Position(q) => q,
            MoveOutcome::MoverLoses => return Ok(()),
        };
        look_at(g, &pos);
    }
    Ok(())
}

/// What `query` and `moves` do with a position: checks that nothing panics and that its
/// tier and index lead back to it.
fn look_at<G: Game>(g: &G, pos: &G::Position) {
    let _ = g.render(pos);
    let _ = g.position_fields(pos);
    let _ = g.board_counts(pos);
    let mirror = g.mirror(pos);
    assert_eq!(
        &g.mirror(&mirror),
        pos,
        "mirroring twice changed the position"
    );
    let moves = g.moves(pos);
    for m in &moves {
        // Every move's own label finds it again.
        let found = g
            .find_move(pos, &m.label)
            .unwrap_or_else(|e| panic!("move {} not found by its label: {e}", m.label));
        assert_eq!(found.label, m.label);
    }
    if let Ok((tier, index)) = g.locate(pos) {
        // Successors are the solver's, of positions in tiers it can index (located here).
        let mut succ = Vec::new();
        g.successors(pos, &mut succ);
        let size = g
            .tier_size(tier)
            .unwrap_or_else(|e| panic!("located in tier {tier}, which has no size: {e}"));
        assert!(index < size, "index {index} beyond tier {tier} of {size}");
        let stored = match g.side_to_move(pos) {
            Side::A => pos.clone(),
            Side::B => mirror,
        };
        assert_eq!(
            g.position(tier, index),
            stored,
            "tier {tier} index {index} is another position"
        );
    }
}

// ---------------------------------------------------------------------------------------
// manifest
// ---------------------------------------------------------------------------------------

/// The committed database the manifest target's scratch directory holds beside the fuzzed
/// manifest, so that a manifest that opens is also probed.
const COMMITTED: [(&str, &[u8]); 7] = [
    (
        "tier-0000.bdb",
        include_bytes!("../../data/bawo-n2-s6/tier-0000.bdb"),
    ),
    (
        "tier-0001.bdb",
        include_bytes!("../../data/bawo-n2-s6/tier-0001.bdb"),
    ),
    (
        "tier-0002.bdb",
        include_bytes!("../../data/bawo-n2-s6/tier-0002.bdb"),
    ),
    (
        "tier-0003.bdb",
        include_bytes!("../../data/bawo-n2-s6/tier-0003.bdb"),
    ),
    (
        "tier-0004.bdb",
        include_bytes!("../../data/bawo-n2-s6/tier-0004.bdb"),
    ),
    (
        "tier-0005.bdb",
        include_bytes!("../../data/bawo-n2-s6/tier-0005.bdb"),
    ),
    (
        "tier-0006.bdb",
        include_bytes!("../../data/bawo-n2-s6/tier-0006.bdb"),
    ),
];

thread_local! {
    /// A scratch run directory per thread, holding the committed `.bdb` files.
    static SCRATCH: RefCell<Option<tempfile::TempDir>> = const { RefCell::new(None) };
}

/// Runs `f` on this thread's scratch directory.
fn with_scratch<R>(f: impl FnOnce(&Path) -> R) -> R {
    SCRATCH.with(|cell| {
        let mut slot = cell.borrow_mut();
        let dir = slot.get_or_insert_with(|| {
            let d = tempfile::Builder::new()
                .prefix("bawo-fuzz-")
                .tempdir()
                .expect("scratch directory");
            for (name, bytes) in COMMITTED {
                std::fs::write(d.path().join(name), bytes).expect("scratch .bdb file");
            }
            d
        });
        f(dir.path())
    })
}

/// Fuzz target `manifest`: the bytes as a database's `manifest.json` (opened with
/// [`Database::open`], which checks it against itself and its game) and as a run's ledger
/// (`owned.json`). Each is then parsed, given correct checksums and a matching fingerprint,
/// saved and opened again, so the checks behind the checksums are reached; a manifest that
/// opens is probed at both ends of every tier.
pub fn manifest(data: &[u8]) -> Verdict {
    with_scratch(|dir| {
        let verdict = open_manifest(dir, data);
        let _ = load_ledger(dir, data);
        if let Ok(mut m) = serde_json::from_slice::<Manifest>(data) {
            m.fingerprint = Checksum(bawo_store::fingerprint(&m.game));
            m.save(dir).expect("manifest saved");
            match open_database(dir) {
                Ok(db) => {
                    let back = db.manifest();
                    assert_eq!(back.tiers, m.tiers, "tiers changed by a save and a load");
                    assert_eq!(back.game, m.game, "game changed by a save and a load");
                }
                Err(e) => {
                    let _ = refused(e);
                }
            }
        }
        if let Ok(mut l) = serde_json::from_slice::<Ledger>(data) {
            l.save(dir).expect("ledger saved");
            let back = load_ledger(dir, &std::fs::read(Ledger::path(dir)).expect("ledger"))
                .expect("a saved ledger loads");
            assert_eq!(back.files, l.files, "files changed by a save and a load");
            assert_eq!(back.dirs, l.dirs, "folders changed by a save and a load");
        }
        verdict
    })
}

/// Writes `data` as the manifest of `dir` and opens the database.
fn open_manifest(dir: &Path, data: &[u8]) -> Verdict {
    std::fs::write(Manifest::path(dir), data).expect("manifest written");
    open_database(dir).map(|_| ()).or_else(refused)
}

/// Opens the database in `dir` and probes the first and last entry of every tier it lists.
fn open_database(dir: &Path) -> bawo_db::Result<Database> {
    let db = Database::open(dir)?;
    for (tier, states) in db.tier_sizes() {
        for index in [0, states.saturating_sub(1)] {
            match db.probe(tier, index) {
                Ok(e) => assert!(e.is_valid_solved(), "probe gave an invalid entry"),
                Err(e) => {
                    let _ = refused(e);
                }
            }
        }
    }
    Ok(db)
}

/// Writes `data` as the ledger of `dir` and loads it.
fn load_ledger(dir: &Path, data: &[u8]) -> Result<Ledger, String> {
    std::fs::write(Ledger::path(dir), data).expect("ledger written");
    match Ledger::load(dir) {
        Ok(Some(l)) => {
            let _ = l.dir_paths(dir);
            Ok(l)
        }
        Ok(None) => panic!("a written ledger read as absent"),
        Err(e) => Err(refused(e).expect_err("refused is an error")),
    }
}

// ---------------------------------------------------------------------------------------
// bdb_header and bdb_block
// ---------------------------------------------------------------------------------------

/// The path errors name.
fn bdb_path() -> PathBuf {
    PathBuf::from("tier-fuzz.bdb")
}

/// A little-endian field of the header, if the bytes reach that far.
fn field<const N: usize>(b: &[u8], at: usize) -> Option<[u8; N]> {
    b.get(at..at + N).map(|s| s.try_into().expect("N bytes"))
}

/// Tier, positions and fingerprint as the header states them (zero where it is too short):
/// the expectations under which the reader goes past its comparison with the manifest.
fn stated(b: &[u8]) -> (u32, u64, u64) {
    (
        field(b, 12).map_or(0, u32::from_le_bytes),
        field(b, 16).map_or(0, u64::from_le_bytes),
        field(b, 24).map_or(0, u64::from_le_bytes),
    )
}

/// Rewrites the meta checksum (header, code table, index) of `b` where its fields place the
/// index inside the file; returns whether it did.
fn fix_meta(b: &mut [u8]) -> bool {
    if b.len() < HEADER + TRAILER {
        return false;
    }
    let nsym = u16::from_le_bytes(field(b, 38).expect("in header")) as usize;
    let blocks = u32::from_le_bytes(field(b, 40).expect("in header")) as u64;
    let index_offset = u64::from_le_bytes(field(b, 48).expect("in header"));
    let head_len = HEADER + 2 * nsym;
    let index_end = index_offset.checked_add(blocks * INDEX_ENTRY as u64);
    let Some(end) = index_end.filter(|&e| e <= b.len() as u64 && index_offset >= head_len as u64)
    else {
        return false;
    };
    if head_len > b.len() {
        return false;
    }
    let mut h = Xxh3::new();
    h.update(&b[..56]);
    h.update(&[0u8; 8]);
    h.update(&b[HEADER..head_len]);
    h.update(&b[index_offset as usize..end as usize]);
    let sum = h.digest();
    b[56..64].copy_from_slice(&sum.to_le_bytes());
    true
}

/// Rewrites every block's checksum in the index of `b` to match its frame, where the index
/// and the frame lie inside the file.
fn fix_blocks(b: &mut [u8]) {
    if b.len() < HEADER + TRAILER {
        return;
    }
    let blocks = u32::from_le_bytes(field(b, 40).expect("in header")) as usize;
    let index_offset = u64::from_le_bytes(field(b, 48).expect("in header"));
    let Ok(index_offset) = usize::try_from(index_offset) else {
        return;
    };
    for i in 0..blocks {
        let at = index_offset.saturating_add(i * INDEX_ENTRY);
        let Some(entry) = b.get(at..at.saturating_add(INDEX_ENTRY)) else {
            return;
        };
        let offset = u64::from_le_bytes(entry[0..8].try_into().expect("8"));
        let len = u32::from_le_bytes(entry[8..12].try_into().expect("4")) as u64;
        let Some(frame) = usize::try_from(offset)
            .ok()
            .zip(
                offset
                    .checked_add(len)
                    .and_then(|e| usize::try_from(e).ok()),
            )
            .and_then(|(s, e)| b.get(s..e))
        else {
            continue;
        };
        let sum = xxh3_64(frame);
        b[at + 16..at + 24].copy_from_slice(&sum.to_le_bytes());
    }
}

/// Rewrites the whole-file checksum in the trailer of `b`.
fn fix_trailer(b: &mut [u8]) {
    if b.len() >= TRAILER {
        let n = b.len() - TRAILER;
        let sum = xxh3_64(&b[..n]);
        b[n..].copy_from_slice(&sum.to_le_bytes());
    }
}

/// Fuzz target `bdb_header`: the bytes as a `.bdb` file opened by the reader
/// ([`BdbFile::from_bytes`], what `Database::open`'s probes open each tier with), expecting
/// the tier, size and fingerprint its header states; then again with its meta checksum
/// recomputed, so that the header's fields are checked. A file is never accepted for
/// another fingerprint, tier or size than its own.
pub fn bdb_header(data: &[u8]) -> Verdict {
    let path = bdb_path();
    let (tier, states, fp) = stated(data);
    let verdict = match BdbFile::from_bytes(&path, data, tier, states, fp) {
        Ok(f) => {
            look_at_header(&f, data);
            Ok(())
        }
        Err(e) => refused(e),
    };
    let mut fixed = data.to_vec();
    if fix_meta(&mut fixed) {
        if let Ok(f) = BdbFile::from_bytes(&path, &fixed[..], tier, states, fp) {
            look_at_header(&f, &fixed);
            let others = [
                (tier, states, fp ^ 1),
                (tier ^ 1, states, fp),
                (tier, states ^ 1, fp),
            ];
            for (t, s, p) in others {
                assert!(
                    BdbFile::from_bytes(&path, &fixed[..], t, s, p).is_err(),
                    "a file of tier {tier} ({states} positions, fingerprint {fp:x}) was \
                     accepted as tier {t} ({s} positions, fingerprint {p:x})"
                );
            }
        }
    }
    verdict
}

/// What a probe asks of an opened file's header (`bytes`). Its sizes must bound what a probe of it
/// allocates (a block decompresses into its codes and escaped entries, at most three bytes a
/// position): blocks of at most [`MAX_BLOCK_POSITIONS`], and index entries (read from the
/// bytes as `docs/format.md` lays them out) claiming no more escapes than their block's
/// positions.
fn look_at_header(f: &BdbFile<&[u8]>, bytes: &[u8]) {
    let h = f.header();
    assert!(
        h.block_positions <= MAX_BLOCK_POSITIONS,
        "blocks of {} positions accepted",
        h.block_positions
    );
    for b in 0..f.blocks() {
        let at = h.index_offset as usize + b as usize * INDEX_ENTRY;
        let escapes = u32::from_le_bytes(field(bytes, at + 12).expect("index inside the file"));
        assert!(
            escapes as usize <= h.block_len(b),
            "block {b} of {} positions accepted with {escapes} escapes",
            h.block_len(b)
        );
    }
    assert!(matches!(h.width, 4 | 8), "width {} accepted", h.width);
    assert!(
        h.symbols.len() < 1 << h.width,
        "more symbols than codes accepted"
    );
    if h.states > 0 {
        let (b, j) = f.locate(h.states - 1);
        assert!(
            b < f.blocks(),
            "the last position lies beyond the last block"
        );
        assert!(
            j < h.block_len(b),
            "the last position lies beyond its block"
        );
    }
    let _ = f.check_file().map_err(refused);
    let _ = f.stored_checksum();
}

/// Most blocks of one file decoded (a 4 KiB input holds at most 170 index entries).
const MAX_BLOCKS: u32 = 256;
/// Largest tier decoded whole by `decode_all` (which holds every entry at once by design).
const MAX_DECODE_ALL: u64 = 1 << 20;

/// Fuzz target `bdb_block`: the bytes as a `.bdb` file with every checksum recomputed (the
/// blocks', the meta and the trailer), so that mutated blocks reach zstd and the code
/// checks; every block is decoded whole and probed from its prefix, which must agree.
pub fn bdb_block(data: &[u8]) -> Verdict {
    let path = bdb_path();
    let (tier, states, fp) = stated(data);
    let mut fixed = data.to_vec();
    fix_blocks(&mut fixed);
    fix_meta(&mut fixed);
    fix_trailer(&mut fixed);
    let f = match BdbFile::from_bytes(&path, &fixed[..], tier, states, fp) {
        Ok(f) => f,
        Err(e) => return refused(e),
    };
    look_at_header(&f, &fixed);
    let sum = f.check_file().expect("the trailer was just recomputed");
    let mut whole = Ok(());
    for b in 0..f.blocks().min(MAX_BLOCKS) {
        whole = decode_one(&f, b).and(whole);
    }
    let mut count = 0u64;
    let streamed = f.for_each_block_checked(sum, |first, block| {
        assert_eq!(first, count, "blocks handed out of order");
        count += block.len() as u64;
        Ok(())
    });
    if streamed.is_ok() {
        assert_eq!(count, f.header().states, "blocks do not cover the tier");
    }
    if f.header().states <= MAX_DECODE_ALL {
        match f.decode_all() {
            Ok(all) => assert_eq!(all.len() as u64, f.header().states),
            Err(e) => {
                let _ = refused(e);
            }
        }
    }
    whole
}

/// Decodes block `b` of `f` whole and probes some of its positions through the prefix path.
fn decode_one<B: bawo_db::format::Bytes>(f: &BdbFile<B>, b: u32) -> Verdict {
    let h = f.header();
    let len = h.block_len(b);
    let probes = [0, 1, len / 2, len.saturating_sub(1)];
    let block = match f.decode_block(b) {
        Ok(block) => block,
        Err(e) => {
            // A block that does not decode whole may still answer a probe of its start.
            for j in probes.into_iter().filter(|&j| j < len) {
                let _ = f.entry_from_prefix(b, j).map_err(refused);
            }
            return refused(e);
        }
    };
    assert_eq!(block.len(), len, "block {b} decoded to another length");
    let mut entries = Vec::new();
    block.entries_into(&h.symbols, &mut entries);
    assert_eq!(entries.len(), len);
    for (j, &e) in entries.iter().enumerate() {
        assert_eq!(block.entry(&h.symbols, j).0, e, "entry {j} of block {b}");
        assert!(
            bawo_db::Entry(e).is_valid_solved(),
            "an invalid entry decoded"
        );
    }
    for j in probes.into_iter().filter(|&j| j < len) {
        match f.entry_from_prefix(b, j) {
            Ok(Some(e)) => assert_eq!(e.0, entries[j], "prefix and whole block disagree"),
            Ok(None) => {}
            Err(e) => panic!("block {b} decodes whole, but its prefix up to {j} does not: {e}"),
        }
    }
    Ok(())
}
