//! Tests of `.bdb` reading: round trips, damage and forged sizes refused.

use super::*;
use bawo_games::value::Value;

fn sample(n: usize, spread: u32) -> Vec<u16> {
    let mut x = 12345u64;
    (0..n)
        .map(|i| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let d = ((x >> 33) as u32 % spread) + (i as u32 % 3);
            if (x >> 20).is_multiple_of(17) {
                Entry::DRAW.0
            } else if d % 2 == 1 {
                Entry::decided(Value::Win, d).0
            } else {
                Entry::decided(Value::Loss, d).0
            }
        })
        .collect()
}

fn round_trip(entries: &[u16], block: u32) -> BdbFile<Vec<u8>> {
    let opts = EncodeOptions {
        block_positions: block,
        level: 3,
    };
    let bytes = encode(7, 42, entries, &opts).unwrap();
    let f = BdbFile::from_vec(Path::new("t.bdb"), bytes, 7, entries.len() as u64, 42).unwrap();
    assert_eq!(f.decode_all().unwrap(), entries);
    for (i, &e) in entries.iter().enumerate().step_by(97) {
        let (b, j) = f.locate(i as u64);
        assert_eq!(f.decode_block(b).unwrap().entry(f.symbols(), j), Entry(e));
    }
    f.check_file().unwrap();
    for (i, &e) in entries.iter().enumerate().step_by(13) {
        let (b, j) = f.locate(i as u64);
        match f.entry_from_prefix(b, j).unwrap() {
            Some(got) => assert_eq!(got, Entry(e)),
            None => assert!(f.decode_block(b).unwrap().escape_at.contains(&(j as u32))),
        }
    }
    f
}

#[test]
fn nibbles_with_escapes_round_trip() {
    // Few symbols, a rare tail: 4-bit codes with some escapes.
    let mut e = sample(10_001, 12);
    for i in (0..e.len()).step_by(500) {
        e[i] = Entry::decided(Value::Loss, 400 + i as u32 / 500).0;
    }
    let f = round_trip(&e, 1000);
    assert_eq!(f.header().width, 4);
    assert!(f.index.iter().any(|r| r.escapes > 0));
}

#[test]
fn bytes_round_trip() {
    let f = round_trip(&sample(5_003, 300), 777);
    assert_eq!(f.header().width, 8);
}

#[test]
fn tiny_and_uniform_tiers_round_trip() {
    round_trip(&[Entry::decided(Value::Loss, 0).0], 4);
    round_trip(&[Entry::DRAW.0; 9], 4);
    round_trip(&[], 4);
}

/// 4,000 entries of tier 1 (fingerprint 5) in blocks of 1,000, and their encoded file.
fn small_file() -> (Vec<u16>, Vec<u8>) {
    let entries = sample(4000, 10);
    let opts = EncodeOptions {
        block_positions: 1000,
        level: 3,
    };
    let file = encode(1, 5, &entries, &opts).unwrap();
    (entries, file)
}

#[test]
fn one_read_decodes_and_checks_the_whole_file() {
    let (entries, good) = small_file();
    let path = Path::new("t.bdb");
    let decode = |bytes: Vec<u8>, expected: Checksum| -> Result<Vec<u16>> {
        let f = BdbFile::from_vec(path, bytes, 1, 4000, 5)?;
        let mut out = Vec::new();
        f.for_each_block_checked(expected, |first, block| {
            assert_eq!(first, out.len() as u64);
            block.entries_into(f.symbols(), &mut out);
            Ok(())
        })?;
        Ok(out)
    };
    let sum = BdbFile::from_vec(path, good.clone(), 1, 4000, 5)
        .unwrap()
        .check_file()
        .unwrap();
    assert_eq!(decode(good.clone(), sum).unwrap(), entries);
    // Another manifest checksum, or any flipped byte, is refused.
    assert!(decode(good.clone(), Checksum(sum.0 ^ 1)).is_err());
    for at in 0..good.len() {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        assert!(
            decode(bad, sum).is_err(),
            "flip at byte {at} went unnoticed"
        );
    }
}

#[test]
fn damage_is_reported_not_decoded() {
    let (_, good) = small_file();
    let path = Path::new("t.bdb");
    // Every single flipped byte is caught at open or when its block is decoded.
    for at in 0..good.len() {
        let mut bad = good.clone();
        bad[at] ^= 0x40;
        let caught = match BdbFile::from_vec(path, bad, 1, 4000, 5) {
            Err(_) => true,
            Ok(f) => {
                let block_bad = (0..f.blocks()).any(|b| f.decode_block(b).is_err());
                let in_trailer = at >= good.len() - TRAILER;
                f.check_file().is_err() && (block_bad || in_trailer)
            }
        };
        assert!(caught, "flip at byte {at} went unnoticed");
    }
    for cut in [1, 8, 100, good.len() - 1] {
        let bad = good[..good.len() - cut].to_vec();
        assert!(BdbFile::from_vec(path, bad, 1, 4000, 5).is_err());
    }
    assert!(matches!(
        BdbFile::from_vec(path, good, 1, 4000, 6),
        Err(Error::Mismatch(_))
    ));
}

/// `bytes` with its meta checksum recomputed, as a forger would.
fn reseal(mut bytes: Vec<u8>) -> Vec<u8> {
    let nsym = u16::from_le_bytes([bytes[38], bytes[39]]) as usize;
    let blocks = u32::from_le_bytes(bytes[40..44].try_into().unwrap()) as usize;
    let at = u64::from_le_bytes(bytes[48..56].try_into().unwrap()) as usize;
    let sum = meta_checksum(
        &bytes[..HEADER + 2 * nsym],
        &bytes[at..at + blocks * INDEX_ENTRY],
    );
    bytes[56..64].copy_from_slice(&sum.to_le_bytes());
    bytes
}

#[test]
fn forged_sizes_are_refused_at_open() {
    // A block's escapes and its positions size the buffer it decompresses into: a forged
    // header or index that claims more than a block can hold is damage, refused before a
    // probe allocates for it.
    let (_, good) = small_file();
    let path = Path::new("t.bdb");
    let at = u64::from_le_bytes(good[48..56].try_into().unwrap()) as usize;
    assert!(BdbFile::from_vec(path, reseal(good.clone()), 1, 4000, 5).is_ok());
    for escapes in [1001, u32::MAX] {
        let mut bad = good.clone();
        bad[at + 12..at + 16].copy_from_slice(&escapes.to_le_bytes());
        let err = BdbFile::from_vec(path, reseal(bad), 1, 4000, 5)
            .err()
            .unwrap();
        assert!(err.to_string().contains("escaped entries"), "{err}");
    }
    // One block of 2^26 + 1 positions: the right block count for the tier, too large.
    let states = (MAX_BLOCK_POSITIONS + 1) as u64;
    let one = encode(1, 5, &[Entry::DRAW.0], &EncodeOptions::default()).unwrap();
    let mut bad = one;
    bad[16..24].copy_from_slice(&states.to_le_bytes());
    bad[32..36].copy_from_slice(&(MAX_BLOCK_POSITIONS + 1).to_le_bytes());
    let err = BdbFile::from_vec(path, reseal(bad), 1, states, 5)
        .err()
        .unwrap();
    assert!(err.to_string().contains("more than the"), "{err}");
    // Nor are such blocks written.
    let opts = EncodeOptions {
        block_positions: MAX_BLOCK_POSITIONS + 1,
        level: 1,
    };
    assert!(encode(1, 5, &[Entry::DRAW.0], &opts).is_err());
}
