//! Damaged checkpoint files, missing work folders and a killed run's leftovers: refused or
//! ignored, never trusted.

use super::*;

/// What the checkpoint in a run directory's manifest vouches for.
pub(super) struct Checkpoint {
    pub(super) phase: String,
    /// Append logs and their committed lengths.
    pub(super) logs: Vec<(PathBuf, u64)>,
    /// Each range's cell slot the checkpoint names (from the predecessor phase on): plain,
    /// or out of core packed.
    pub(super) slots: Vec<PathBuf>,
    /// The cell files of each range the checkpoint does not name: the other slot, and
    /// beside a packed slot the plain working cells.
    pub(super) spare_slots: Vec<PathBuf>,
    pub(super) preds: Vec<PathBuf>,
    pub(super) work: PathBuf,
    pub(super) ranges: usize,
    pub(super) next: u64,
}

pub(super) fn checkpoint_of(dir: &Path) -> Option<Checkpoint> {
    let m = manifest(dir);
    let c = m.get("current")?;
    // Relative to the run directory when inside it.
    let work = dir.join(c["work"].as_str().unwrap());
    let states = c["states"].as_u64().unwrap();
    let bits = c["range_bits"].as_u64().unwrap();
    let ranges = states.div_ceil(1 << bits).max(1) as usize;
    let logs = c["logs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, v)| {
            let file = if name.starts_with("cells-") || name.starts_with("packed-") {
                format!("{name}.a")
            } else {
                format!("{name}.log")
            };
            (work.join(file), v["len"].as_u64().unwrap())
        })
        .collect();
    let mut slots = Vec::new();
    let mut spare_slots = Vec::new();
    for (r, s) in c["slots"].as_array().unwrap().iter().enumerate() {
        let slot = s["slot"].as_str().unwrap();
        let other = if slot == "a" { "b" } else { "a" };
        if s.get("packed").and_then(Json::as_bool) == Some(true) {
            slots.push(work.join(format!("packed-{r}.{slot}")));
            spare_slots.push(work.join(format!("packed-{r}.{other}")));
            spare_slots.push(work.join(format!("cells-{r}.a")));
            spare_slots.push(work.join(format!("cells-{r}.b")));
        } else {
            slots.push(work.join(format!("cells-{r}.{slot}")));
            spare_slots.push(work.join(format!("cells-{r}.{other}")));
        }
    }
    let preds = (0..c["preds"].as_array().unwrap().len())
        .map(|r| work.join(format!("preds-{r}.bin")))
        .collect();
    Some(Checkpoint {
        phase: c["phase"].as_str().unwrap().to_string(),
        logs,
        slots,
        spare_slots,
        preds,
        work,
        ranges,
        next: c["next"].as_u64().unwrap(),
    })
}

/// Interrupted runs of `inst` in `root`, one per phase, each in a tier of several ranges and
/// in the middle of its phase: the pass with blocks to go, the predecessor phase with ranges
/// built and to go, the attractor with cells checkpointed in their second slot.
pub(super) fn mid_phase_runs(inst: Instance, root: &Path) -> Vec<(String, PathBuf)> {
    let mut found: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut k = 1;
    while found.len() < 3 {
        let dir = root.join(format!("mid{k}"));
        assert!(aborted(&inst.solve(&dir), k), "the run ended: {found:?}");
        let keep = checkpoint_of(&dir).and_then(|c| {
            let several = c.ranges > 1;
            let wanted = match c.phase.as_str() {
                "successors" => {
                    c.next > 0
                        && c.logs.iter().any(|(p, len)| {
                            *len > 0 && p.file_name().unwrap().to_str().unwrap().contains("due")
                        })
                }
                "predecessors" => c.next > 0 && (c.next as usize) < c.ranges,
                "attractor" => c.slots.iter().any(|s| s.extension().unwrap() == "b"),
                _ => false,
            };
            (several && wanted && !found.contains_key(&c.phase)).then_some(c.phase)
        });
        match keep {
            Some(phase) => {
                found.insert(phase, dir);
            }
            None => std::fs::remove_dir_all(&dir).unwrap(),
        }
        k += 1;
    }
    found.into_iter().collect()
}

/// Interrupts a run of `inst` in `dir` at its k-th checkpoint, for the first k from `from` on
/// that falls inside a tier.
pub(super) fn abort_mid_tier(inst: Instance, dir: &Path, from: u64) {
    for k in from..from + 100 {
        assert!(aborted(&inst.solve(dir), k), "the run ended");
        if checkpoint_of(dir).is_some() {
            return;
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
    panic!("no checkpoint inside a tier");
}

// ---------------------------------------------------------------------------------------------
// Damaged checkpoints

enum Damage {
    /// Flip every bit of the byte at this offset.
    Flip(u64),
    /// Cut the file to this length.
    Truncate(u64),
    /// Replace the whole file.
    Replace(Vec<u8>),
}

/// Damages `file`, checks that resuming refuses with exit code 1 and a "corrupted" error that
/// names the file and changes nothing, and restores the file.
fn assert_refused(inst: Instance, dir: &Path, file: &Path, damage: Damage) {
    let original = std::fs::read(file).unwrap();
    let mut bytes = original.clone();
    let what = match damage {
        Damage::Flip(at) => {
            bytes[at as usize] ^= 0xFF;
            format!("{} with byte {at} flipped", file.display())
        }
        Damage::Truncate(len) => {
            bytes.truncate(len as usize);
            format!("{} cut to {len} bytes", file.display())
        }
        Damage::Replace(b) => {
            bytes = b;
            format!("{} replaced by {} other bytes", file.display(), bytes.len())
        }
    };
    std::fs::write(file, &bytes).unwrap();
    let before = snapshot(dir);
    let out = bawo(&inst.resume(dir));
    let name = file.file_name().unwrap().to_str().unwrap();
    assert_fails(&out, 1, "corrupted", &what);
    assert!(
        text(&out.stderr).contains(name),
        "{what}: the error does not name the file: {}",
        text(&out.stderr)
    );
    assert!(
        snapshot(dir) == before,
        "{what}: the refused resume changed the run directory"
    );
    std::fs::write(file, &original).unwrap();
}

/// A finished tier's table and compressed file rewritten with two different entries swapped:
/// each whole and consistent with its own checksums, but not the files the manifest records.
fn forged_tier(dir: &Path, rec: &Json, scratch: &Path) -> (Vec<u8>, Vec<u8>) {
    let tier = rec["tier"].as_u64().unwrap() as u32;
    let states = rec["states"].as_u64().unwrap();
    let fp = u64::from_str_radix(manifest(dir)["fingerprint"].as_str().unwrap(), 16).unwrap();
    let path = dir.join(rec["file"].as_str().unwrap());
    let (_, data) = bawo_store::table::open_table(&path, tier, states, fp, true).unwrap();
    let mut entries = data.entries().to_vec();
    let j = entries
        .iter()
        .position(|&e| e != entries[0])
        .expect("two kinds of entries");
    entries.swap(0, j);
    std::fs::create_dir_all(scratch).unwrap();
    let tbl = scratch.join("forged.tbl");
    bawo_store::table::write_table(&tbl, tier, fp, &entries).unwrap();
    let bdb =
        bawo_db::format::write_tier(scratch, tier, fp, &entries, &Default::default()).unwrap();
    (
        std::fs::read(&tbl).unwrap(),
        std::fs::read(scratch.join(bdb.file)).unwrap(),
    )
}

#[test]
fn damaged_checkpoints_are_refused_in_every_phase() {
    let inst = N2_RANGES;
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    for (phase, dir) in mid_phase_runs(inst, root.path()) {
        let c = checkpoint_of(&dir).unwrap();
        let mut checked = 0;
        for (log, len) in &c.logs {
            if *len == 0 {
                continue;
            }
            assert_refused(inst, &dir, log, Damage::Flip(len / 2));
            assert_refused(inst, &dir, log, Damage::Flip(len - 1));
            assert_refused(inst, &dir, log, Damage::Truncate(len - 1));
            checked += 1;
        }
        assert!(checked > 1, "{phase}: no committed logs to damage");
        for file in c.slots.iter().chain(&c.preds) {
            let len = std::fs::metadata(file).unwrap().len();
            assert_refused(inst, &dir, file, Damage::Flip(len / 3));
            assert_refused(inst, &dir, file, Damage::Truncate(len - 4));
        }
        match phase.as_str() {
            "successors" => assert!(c.slots.is_empty()),
            "predecessors" => assert!(!c.preds.is_empty() && !c.slots.is_empty()),
            _ => assert!(c.preds.len() == c.ranges && c.slots.len() == c.ranges),
        }
        // The finished tiers it builds on.
        let m = manifest(&dir);
        let tiers = m["tiers"].as_array().unwrap();
        assert!(tiers.len() >= 2, "{phase}: no finished tiers");
        // The last finished tier may be recorded without its compressed file yet (it is
        // compressed beside the tier in progress): the last one with a file then.
        let with_bdb = tiers.iter().rev().find(|t| t.get("bdb").is_some()).unwrap();
        for t in [&tiers[0], tiers.last().unwrap()] {
            let tbl = dir.join(t["file"].as_str().unwrap());
            let len = std::fs::metadata(&tbl).unwrap().len();
            assert_refused(inst, &dir, &tbl, Damage::Flip(0));
            assert_refused(inst, &dir, &tbl, Damage::Flip(len - 1));
            assert_refused(inst, &dir, &tbl, Damage::Truncate(len - 2));
        }
        for t in [&tiers[0], with_bdb] {
            let bdb = dir.join(t["bdb"]["file"].as_str().unwrap());
            let len = std::fs::metadata(&bdb).unwrap().len();
            assert_refused(inst, &dir, &bdb, Damage::Flip(len / 2));
            assert_refused(inst, &dir, &bdb, Damage::Truncate(len - 1));
        }
        // Whole, self-consistent files with other entries than the manifest vouches for.
        let last = tiers.last().unwrap();
        let (tbl, _) = forged_tier(&dir, last, &root.path().join("forge"));
        assert_refused(
            inst,
            &dir,
            &dir.join(last["file"].as_str().unwrap()),
            Damage::Replace(tbl),
        );
        let (_, bdb) = forged_tier(&dir, with_bdb, &root.path().join("forge"));
        assert_refused(
            inst,
            &dir,
            &dir.join(with_bdb["bdb"]["file"].as_str().unwrap()),
            Damage::Replace(bdb),
        );
        let mf = dir.join("manifest.json");
        let len = std::fs::metadata(&mf).unwrap().len();
        assert_refused(inst, &dir, &mf, Damage::Truncate(len / 2));
        assert_refused(inst, &dir, &mf, Damage::Truncate(0));
        assert_refused(
            inst,
            &dir,
            &mf,
            Damage::Replace(b"\x00\x01garbage".to_vec()),
        );
        // Repaired, the checkpoint still resumes to the same tables.
        assert_ok(&bawo(&inst.resume(&dir)), &phase);
        assert_same_solve(&clean, &dir, &format!("{phase}: after refusing damage"));
    }
}

#[test]
fn a_missing_work_directory_redoes_only_its_tier() {
    let inst = N2_RANGES;
    let root = scratch();
    let (_, dir) = mid_phase_runs(inst, root.path()).pop().unwrap();
    let c = checkpoint_of(&dir).unwrap();
    std::fs::remove_dir_all(&c.work).unwrap();
    // The tier in progress is solved again; the finished tiers are kept.
    let out = bawo(&inst.resume(&dir));
    assert_ok(&out, "resume after the work directory was removed");
    assert!(text(&out.stderr).contains("finished tiers are kept"));
    let clean = solve_clean(inst, root.path());
    assert_same_solve(&clean, &dir, "resume after a lost work directory");
}
