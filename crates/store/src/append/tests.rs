//! Tests of the append log: commits, resumes, holding, runs.

use super::runs::MARK_EVERY;
use super::*;

/// Closes `log`'s file as [`AppendLog::close_if_many`] does beyond the limit.
fn close(log: &AppendLog) {
    let mut g = log.inner.lock().unwrap();
    AppendLog::write_buf(&mut g, &log.path).unwrap();
    if g.file.take().is_some() {
        OPEN.fetch_sub(1, Ordering::Relaxed);
    }
}

#[test]
fn a_log_whose_file_was_closed_reopens_it_at_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log");
    let log = AppendLog::create(&path).unwrap();
    log.append(b"abc").unwrap();
    close(&log);
    log.append(b"def").unwrap();
    let c = log.commit().unwrap();
    close(&log);
    log.append(&vec![7u8; BUF]).unwrap();
    close(&log);
    let mut want = b"abcdef".to_vec();
    want.extend(vec![7u8; BUF]);
    assert_eq!(log.with_bytes(|b| b.to_vec()).unwrap(), want);
    close(&log);
    let mut read = Vec::new();
    log.with_reader(|r| r.read_to_end(&mut read))
        .unwrap()
        .unwrap();
    assert_eq!(read, want);
    // The commit taken between closes names the first six bytes.
    drop(log);
    let resumed = AppendLog::resume(&path, c).unwrap();
    assert_eq!(resumed.with_bytes(|b| b.to_vec()).unwrap(), b"abcdef");
    close(&resumed);
    resumed.discard().unwrap();
    assert!(!path.exists());
}

#[test]
fn a_log_makes_its_file_only_when_bytes_or_a_commit_need_it() {
    let dir = tempfile::tempdir().unwrap();
    // Read from memory and dropped: no file is ever made.
    let p = dir.path().join("due");
    let log = AppendLog::create(&p).unwrap();
    log.append(b"abc").unwrap();
    assert_eq!(log.with_bytes(|b| b.to_vec()).unwrap(), b"abc");
    assert!(!p.exists(), "a log read from memory makes no file");
    assert!(!log.has_file());
    log.discard().unwrap();
    assert!(!p.exists());
    // A commit makes the file, empty ones included, for a resume to reopen.
    let empty = dir.path().join("empty");
    let c = AppendLog::create(&empty).unwrap().commit().unwrap();
    assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0);
    assert_eq!(AppendLog::resume(&empty, c).unwrap().len(), 0);
    // A stale file (a killed run's) is emptied when the log first writes.
    let stale = dir.path().join("stale");
    std::fs::write(&stale, b"left by a killed run").unwrap();
    let log = AppendLog::create(&stale).unwrap();
    log.append(b"new").unwrap();
    log.flush().unwrap();
    assert!(log.has_file());
    assert_eq!(std::fs::read(&stale).unwrap(), b"new");
    // A symbolic link in the log's place is never written through.
    let target = dir.path().join("target");
    std::fs::write(&target, b"not ours").unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let log = AppendLog::create(&link).unwrap();
    log.append(b"x").unwrap();
    assert!(log.flush().is_err(), "written through a symbolic link");
    assert_eq!(std::fs::read(&target).unwrap(), b"not ours");
}

#[test]
fn held_logs_serve_reads_from_memory_and_write_on_commit() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("log");
    let log = AppendLog::create(&p).unwrap().hold();
    log.append(&[7u8; BUF * 2]).unwrap();
    assert_eq!(
        std::fs::metadata(&p).map_or(0, |m| m.len()),
        0,
        "held bytes stay in memory"
    );
    assert_eq!(log.with_bytes(|b| b.len()).unwrap(), BUF * 2);
    let c = log.commit().unwrap();
    assert_eq!(c.len, (BUF * 2) as u64);
    log.append(b"xyz").unwrap();
    // After a write, reads come from the file (with the buffer written first).
    assert_eq!(
        log.with_bytes(|b| b[b.len() - 3..].to_vec()).unwrap(),
        b"xyz"
    );
    assert_eq!(std::fs::metadata(&p).unwrap().len(), (BUF * 2 + 3) as u64);
}

#[test]
fn resume_cuts_uncommitted_bytes_and_checks_the_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("log");
    let log = AppendLog::create(&p).unwrap();
    log.append(b"hello ").unwrap();
    let c = log.commit().unwrap();
    log.append(b"world").unwrap();
    log.flush().unwrap();
    drop(log);
    let log = AppendLog::resume(&p, c).unwrap();
    log.append(b"there").unwrap();
    let c2 = log.commit().unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"hello there");
    let mut fresh = crc32fast::Hasher::new();
    fresh.update(b"hello there");
    assert_eq!(c2.crc, fresh.finalize());
    // A damaged committed prefix is refused.
    let mut bytes = std::fs::read(&p).unwrap();
    bytes[0] ^= 1;
    std::fs::write(&p, &bytes).unwrap();
    assert!(matches!(
        AppendLog::resume(&p, c2),
        Err(Error::Corrupt { .. })
    ));
    // So is a log shorter than what was committed.
    std::fs::write(&p, b"hel").unwrap();
    assert!(matches!(
        AppendLog::resume(&p, c2),
        Err(Error::Corrupt { .. })
    ));
}

/// Records of `len` bytes, each starting with its length (4 bytes) and its number.
fn record(n: u32, len: usize) -> Vec<u8> {
    let mut r = (len as u32).to_le_bytes().to_vec();
    r.extend_from_slice(&n.to_le_bytes());
    r.resize(len, n as u8);
    r
}

/// The records of a run, checking that it holds whole ones.
fn records_of(file: &File, run: std::ops::Range<u64>) -> Vec<u32> {
    let mut bytes = Vec::new();
    reader_at(file, run).read_to_end(&mut bytes).unwrap();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        assert!(len >= 8 && at + len <= bytes.len(), "a run cuts a record");
        out.push(u32::from_le_bytes(
            bytes[at + 4..at + 8].try_into().unwrap(),
        ));
        at += len;
    }
    out
}

/// `log`'s runs for `parts` readers, checked to cover its file in whole records, and
/// the records they hold in order.
fn runs_and_records(log: &AppendLog, parts: usize) -> (Vec<std::ops::Range<u64>>, Vec<u32>) {
    log.with_runs(parts, |file, runs| {
        assert!(!runs.is_empty() && runs.len() <= parts);
        assert_eq!(runs[0].start, 0);
        for w in runs.windows(2) {
            assert_eq!(w[0].end, w[1].start);
        }
        assert_eq!(runs.last().unwrap().end, log_len(file));
        let records = runs
            .iter()
            .flat_map(|r| records_of(file, r.clone()))
            .collect();
        (runs.to_vec(), records)
    })
    .unwrap()
    .expect("written to the file")
}

/// The framing of [`record`]: its first four bytes are its length.
const FRAMED: Framing = Framing {
    header: 4,
    record_len: |h| u32::from_le_bytes(h.try_into().unwrap()) as u64,
};

/// A log of records of many lengths, committed past `bytes`, with one more appended
/// after the commit; the commit and the records committed.
fn committed_log(p: &Path, bytes: u64) -> (Committed, u32) {
    let log = AppendLog::create(p).unwrap();
    let mut n = 0u32;
    while log.len() < bytes {
        log.append(&record(n, 8 + (n as usize * 7919) % 90_000))
            .unwrap();
        n += 1;
    }
    let c = log.commit().unwrap();
    log.append(&record(n, 100)).unwrap();
    (c, n)
}

#[test]
fn runs_cover_the_log_in_whole_appends_also_after_a_resume() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("log");
    let (c, mut n) = committed_log(&p, 6 * MARK_EVERY);
    let log = AppendLog::resume(&p, c).unwrap();
    let mut want: Vec<u32> = (0..n).collect();
    while log.len() < 10 * MARK_EVERY {
        log.append(&record(n, 8 + (n as usize * 7919) % 90_000))
            .unwrap();
        want.push(n);
        n += 1;
    }
    for parts in [1, 2, 3, 8] {
        let (runs, got) = runs_and_records(&log, parts);
        if parts > 1 {
            assert!(runs.len() > 1, "a log of 10 MiB is cut ({parts} parts)");
        }
        assert_eq!(got, want);
    }
    // A log held in memory has no runs: its readers take the bytes from memory.
    let held = AppendLog::create(&dir.path().join("held")).unwrap().hold();
    held.append(&record(0, 64)).unwrap();
    assert!(held.with_runs(4, |_, _| ()).unwrap().is_none());
}

#[test]
fn a_framed_resume_cuts_the_committed_bytes_where_the_log_did() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("log");
    let (c, n) = committed_log(&p, 6 * MARK_EVERY);
    // The same records, never interrupted.
    let q = dir.path().join("whole");
    let whole = AppendLog::create(&q).unwrap();
    for k in 0..n {
        whole
            .append(&record(k, 8 + (k as usize * 7919) % 90_000))
            .unwrap();
    }
    let plain = AppendLog::resume(&p, c).unwrap();
    assert_eq!(runs_and_records(&plain, 8).0.len(), 1, "one run unframed");
    drop(plain);
    let framed = AppendLog::resume_framed(&p, c, Some(FRAMED)).unwrap();
    for parts in [1, 2, 3, 8] {
        let (runs, got) = runs_and_records(&framed, parts);
        assert_eq!(
            (runs, got),
            runs_and_records(&whole, parts),
            "{parts} parts"
        );
    }
    // Records that do not end at the committed length: not this framing.
    drop(framed);
    let wrong = Framing {
        header: 4,
        record_len: |_| 1000,
    };
    let err = AppendLog::resume_framed(&p, c, Some(wrong)).err().unwrap();
    assert!(matches!(err, Error::Corrupt { .. }), "{err}");
}

fn log_len(file: &File) -> u64 {
    file.metadata().unwrap().len()
}
