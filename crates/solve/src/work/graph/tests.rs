//! Tests of the predecessor lists' widths, builds and files.

use super::*;
use bawo_store::bytes::u64_bytes;

/// The narrow codec of ranges of 2^30 positions.
fn n() -> EdgeCodec {
    EdgeCodec::narrow(30)
}

#[test]
fn counting_sort_groups_sources_by_target() {
    let edges = [
        n().pack(2, 10),
        n().pack(0, 11),
        n().pack(2, 12),
        n().pack(3, 13),
    ];
    let r = PredRange::<u32>::build(4, &edges, n()).unwrap();
    let v = r.view();
    assert_eq!(v.preds(0), &[11]);
    assert_eq!(v.preds(1), &[] as &[u32]);
    assert_eq!(v.preds(2), &[10, 12]);
    assert_eq!(v.preds(3), &[13]);
}

#[test]
fn large_builds_agree_with_a_plain_counting_sort() {
    // Several sub-ranges and input chunks, targets in arbitrary order.
    let len = 300_000usize;
    let edges: Vec<u64> = (0..1_000_000u64)
        .map(|i| n().pack((i * 7919) % len as u64, i % 65_537))
        .collect();
    let got = PredRange::<u32>::build(len, &edges, n()).unwrap();
    let mut want: Vec<Vec<u32>> = vec![Vec::new(); len];
    for &e in &edges {
        want[(e >> 32) as usize].push(e as u32);
    }
    for t in (0..len).step_by(997) {
        let mut g = got.view().preds(t).to_vec();
        g.sort_unstable();
        want[t].sort_unstable();
        assert_eq!(g, want[t], "target {t}");
    }
    assert_eq!(got.offsets[len] as usize, edges.len());
    // Streamed from a source read twice: the same lists in the same order.
    let streamed = PredRange::<u32>::build_streamed(len, n(), &mut |f| {
        edges.chunks(1000).for_each(&mut *f);
        Ok(())
    })
    .unwrap();
    assert_eq!(streamed, got);
    // A source that gives other edges the second time is refused, not trusted.
    let mut reads = 0;
    let changed = PredRange::<u32>::build_streamed(len, n(), &mut |f| {
        reads += 1;
        f(&edges[reads - 1..]);
        Ok(())
    });
    assert!(changed.is_err());
    // In parts read side by side (uneven, one empty): the same lists in the same order.
    let cuts = [0, 1, 5000, 5000, 77_777, edges.len()];
    let read = |k: usize, f: &mut dyn FnMut(&[PackedEdge])| -> Result<()> {
        edges[cuts[k]..cuts[k + 1]].chunks(999).for_each(&mut *f);
        Ok(())
    };
    let mut grouped = Vec::new();
    let parts =
        PredRange::<u32>::build_parts(len, n(), cuts.len() - 1, &read, &mut grouped, None).unwrap();
    assert_eq!(parts, got);
    // Into the buffers of other lists, larger and smaller, whatever they held: the same.
    let larger = PredRange::<u32> {
        offsets: vec![u32::MAX; len + 9],
        sources: vec![7; edges.len() + 5],
    };
    let smaller = PredRange::<u32> {
        offsets: vec![9; 3],
        sources: vec![1; 2],
    };
    grouped = vec![u64::MAX; edges.len() + 3];
    for old in [larger, smaller, parts] {
        let again =
            PredRange::<u32>::build_parts(len, n(), cuts.len() - 1, &read, &mut grouped, Some(old))
                .unwrap();
        assert_eq!(again, got);
    }
    // In the codec's width, through a spare whose lists are of another width.
    let mut spare = BuildSpare::default();
    spare.give(Preds::Byte(PredRange::default()));
    let width = Preds::build_parts(len, n(), cuts.len() - 1, &read, &mut spare).unwrap();
    assert_eq!(width, Preds::Narrow(got.clone()));
    spare.give(width);
    let width = Preds::build_parts(len, n(), cuts.len() - 1, &read, &mut spare).unwrap();
    assert_eq!(width, Preds::Narrow(got.clone()));
    // A part that gives other edges the second time is refused.
    let reads = std::sync::atomic::AtomicUsize::new(0);
    let shifting = |k: usize, f: &mut dyn FnMut(&[PackedEdge])| -> Result<()> {
        let n = reads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        f(&edges[cuts[k] + usize::from(k == 3 && n >= 5)..cuts[k + 1]]);
        Ok(())
    };
    let shifted =
        PredRange::<u32>::build_parts(len, n(), cuts.len() - 1, &shifting, &mut grouped, None);
    assert!(shifted.is_err());
}

/// Re-aligns file bytes through a `u64` buffer, as a page-aligned map would be.
fn aligned(bytes: &[u8]) -> Vec<u64> {
    let mut words = vec![0u64; bytes.len().div_ceil(8)];
    u64_bytes_mut(&mut words)[..bytes.len()].copy_from_slice(bytes);
    words
}

fn u64_bytes_mut(words: &mut [u64]) -> &mut [u8] {
    // SAFETY: u64 has no padding and every byte pattern is valid.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut u8, words.len() * 8) }
}

#[test]
fn ranges_round_trip_through_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("preds");
    let r = PredRange::<u32>::build(3, &[n().pack(1, 7), n().pack(1, 8)], n()).unwrap();
    r.write(&p, false).unwrap();
    let bytes = std::fs::read(&p).unwrap();
    // The narrow layout: kind and count, one block (two block offsets, one word of list
    // lengths in 4 bits), then the sources.
    assert_eq!(bytes.len(), 8 + 2 * 4 + 8 + 4 * 2);
    assert_eq!(r.checksum(), Checksum::of(&bytes));
    let words = aligned(&bytes);
    let all = &u64_bytes(&words)[..bytes.len()];
    let v = view_file::<u32>(&p, all, 3).unwrap();
    assert_eq!(v.preds(1), &[7, 8]);
    assert!(view_file::<u32>(&p, &all[..8], 3).is_err());
}

#[test]
fn five_byte_sources_round_trip_every_index_below_2_40() {
    for v in [
        0u64,
        1,
        255,
        256,
        (1 << 32) - 1,
        1 << 32,
        (1 << 39) + 3,
        WIDE_LIMIT - 1,
    ] {
        assert_eq!(U40::from_u64(v).get(), v);
    }
    let words = [U40::from_u64(1 << 33), U40::from_u64(7)];
    let bytes = U40::bytes(&words);
    assert_eq!(bytes, &[0, 0, 0, 0, 2, 7, 0, 0, 0, 0]);
    let p = Path::new("preds-0.bin");
    assert_eq!(U40::words(p, bytes).unwrap(), &words);
    // At any alignment (a map's sources follow unpadded offsets).
    let mut shifted = vec![9u8];
    shifted.extend_from_slice(bytes);
    assert_eq!(U40::words(p, &shifted[1..]).unwrap(), &words);
    assert!(U40::words(p, &bytes[..9]).is_err());
}

#[test]
fn wide_ranges_build_and_round_trip_through_files() {
    let c = EdgeCodec::new(true, 24);
    let big = [(1u64 << 40) - 1, 1 << 32, (1 << 32) - 1, 7, (1 << 39) + 3];
    for len in [3usize, 4] {
        let edges: Vec<u64> = big
            .iter()
            .enumerate()
            .map(|(i, &s)| c.pack((i % len) as u64, s))
            .collect();
        let r = Preds::build(len, &edges, c).unwrap();
        let Preds::Wide(w) = &r else {
            panic!("a wide codec builds wide lists")
        };
        let lists = |v: PredView<'_, U40>, t: usize| -> Vec<u64> {
            v.preds(t).iter().map(|s| s.get()).collect()
        };
        for t in 0..len {
            let want: Vec<u64> = big
                .iter()
                .enumerate()
                .filter(|(i, _)| i % len == t)
                .map(|(_, &s)| s)
                .collect();
            assert_eq!(lists(w.view(), t), want, "target {t}");
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("preds");
        let sum = r.write(&p, true).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        // Nibbled offsets (kind, count, two block offsets, a word of 4-bit lengths), then
        // five bytes a source with no padding.
        assert_eq!(bytes.len(), 8 + 2 * 4 + 8 + 5 * big.len());
        assert_eq!(sum, Checksum::of(&bytes));
        let words = aligned(&bytes);
        let all = &u64_bytes(&words)[..bytes.len()];
        match view_preds_file(&p, all, len, c).unwrap() {
            PredsView::Wide(v) => {
                assert_eq!(v.sources, &w.sources[..]);
                for t in 0..len {
                    assert_eq!(lists(v, t), lists(w.view(), t));
                }
            }
            _ => panic!("read back in another width"),
        }
        // A narrow reading of a wide file does not pass for a valid one.
        assert!(view_preds_file(&p, all, len, EdgeCodec::narrow(24)).is_err());
    }
}

#[test]
fn three_byte_keys_go_through_files_at_their_width() {
    // Keys at the edges of 24 bits, in a narrow and a wide tier's codec.
    for c in [EdgeCodec::narrow(20), EdgeCodec::new(true, 20)] {
        let c = c.with_keys(3);
        assert_eq!(c.source_bytes(), 3);
        let keys = [0u64, 1, (1 << 24) - 1, 1 << 23, 77];
        let edges: Vec<u64> = keys
            .iter()
            .enumerate()
            .map(|(i, &k)| c.pack(i as u64 % 3, k))
            .collect();
        let p = Preds::build(3, &edges, c).unwrap();
        let Preds::Short(r) = &p else {
            panic!("keys of 3 bytes are stored in 3")
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("preds");
        let sum = p.write(&path, true).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len(), 8 + 2 * 4 + 8 + 3 * keys.len());
        assert_eq!(sum, Checksum::of(&bytes));
        let PredsView::Short(v) = view_preds_file(&path, &bytes, 3, c).unwrap() else {
            panic!("read back in another width")
        };
        for t in 0..3 {
            let got: Vec<u64> = v.preds(t).iter().map(|k| k.get()).collect();
            let want: Vec<u64> = r.view().preds(t).iter().map(|k| k.get()).collect();
            let orig: Vec<u64> = keys
                .iter()
                .enumerate()
                .filter(|(i, _)| i % 3 == t)
                .map(|(_, &k)| k)
                .collect();
            assert_eq!((&got, &want), (&orig, &orig), "target {t}");
        }
        // Read as four-byte sources, the file is refused.
        assert!(view_preds_file(&path, &bytes, 3, c.with_keys(0).with_keys(4)).is_err());
    }
}
