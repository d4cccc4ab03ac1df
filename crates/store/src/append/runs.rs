//! Where a log can be cut into runs that readers take side by side: the marks of where
//! appends began, kept as a log grows and found again in its file when a run resumes.

use std::fs::File;
use std::io::Read;

/// Least bytes between two marks: small enough that a range's edge log of a few
/// megabytes (Kigogo's 7-seed tier under `--mem 512M`: 3.6 MB) is cut into a run for every
/// reader, four per worker; at 1 MiB it gave four runs to two workers, one of which then
/// waited on the other.
pub(super) const MARK_EVERY: u64 = 1 << 17;

/// Keeps `start`, where a record begins, among `marks` if it lies at least [`MARK_EVERY`]
/// past the last one: the rule appending and a resumed log's walk both follow.
pub(super) fn mark(marks: &mut Vec<u64>, start: u64) {
    if marks.last().is_none_or(|&m| start >= m + MARK_EVERY) {
        marks.push(start);
    }
}

/// Buffer of each reader of a run ([`reader_at`]): one per worker at a time.
const RUN_BUF: usize = 1 << 18;

/// Cuts `0..end` at some of `marks` (sorted, from 0) into at most `parts` runs of about
/// `end / parts` bytes or more.
pub(super) fn runs_at(marks: &[u64], end: u64, parts: usize) -> Vec<std::ops::Range<u64>> {
    let goal = end.div_ceil(parts.max(1) as u64).max(1);
    let mut runs = Vec::new();
    let mut start = 0u64;
    for &m in marks.iter().filter(|&&m| m > 0 && m < end) {
        if m - start >= goal {
            runs.push(start..m);
            start = m;
        }
    }
    if start < end {
        runs.push(start..end);
    }
    runs
}

/// A buffered reader of bytes `run` of `file` (a run of [`super::AppendLog::with_runs`]).
pub fn reader_at(file: &File, run: std::ops::Range<u64>) -> impl Read + '_ {
    std::io::BufReader::with_capacity(
        RUN_BUF,
        ReadAt {
            file,
            pos: run.start,
            end: run.end,
        },
    )
}

/// A file read sequentially from `pos` to `end` by position (the log's own handle keeps its
/// append offset).
pub(super) struct ReadAt<'a> {
    pub(super) file: &'a File,
    pub(super) pos: u64,
    pub(super) end: u64,
}

impl Read for ReadAt<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::os::unix::fs::FileExt;
        let n = (buf.len() as u64).min(self.end - self.pos) as usize;
        if n == 0 {
            return Ok(0);
        }
        let got = self.file.read_at(&mut buf[..n], self.pos)?;
        self.pos += got as u64;
        Ok(got)
    }
}

/// How a log's appends are framed, so that a resumed log finds where they began in its file
/// ([`super::AppendLog::resume_framed`]): every append is one or more records, each starting
/// with a header of `header` bytes from which `record_len` gives the record's whole length.
/// Without it a resumed log knew only its committed end, and its committed bytes were one run:
/// a run resumed during the successor pass built most ranges' predecessors on one core.
#[derive(Clone, Copy, Debug)]
pub struct Framing {
    /// Bytes of a record's header.
    pub header: usize,
    /// A record's whole length (header included) from its header.
    pub record_len: fn(&[u8]) -> u64,
}

/// Walks a log's records through its bytes, given in order a chunk at a time, and keeps
/// their starts as appending keeps its marks ([`mark`]).
pub(super) struct RecordStarts {
    framing: Framing,
    /// Where the next record starts.
    next: u64,
    /// The next record's header bytes read so far (a header may span two chunks).
    header: Vec<u8>,
    marks: Vec<u64>,
    /// A record shorter than its header: not this framing.
    bad: bool,
}

impl RecordStarts {
    pub(super) fn new(framing: Framing) -> RecordStarts {
        RecordStarts {
            framing,
            next: 0,
            header: Vec::with_capacity(framing.header),
            marks: Vec::new(),
            bad: false,
        }
    }

    /// Takes the log's bytes `at..at + chunk.len()`, the chunk after the last one fed.
    pub(super) fn feed(&mut self, at: u64, chunk: &[u8]) {
        let end = at + chunk.len() as u64;
        while !self.bad && self.next + (self.header.len() as u64) < end {
            let from = (self.next + self.header.len() as u64 - at) as usize;
            let take = (self.framing.header - self.header.len()).min(chunk.len() - from);
            self.header.extend_from_slice(&chunk[from..from + take]);
            if self.header.len() < self.framing.header {
                return;
            }
            let len = (self.framing.record_len)(&self.header);
            if len < self.framing.header as u64 {
                self.bad = true;
                return;
            }
            mark(&mut self.marks, self.next);
            self.next += len;
            self.header.clear();
        }
    }

    /// The marks, where the records end exactly at `len`; `None` where they do not.
    pub(super) fn finish(self, len: u64) -> Option<Vec<u64>> {
        (!self.bad && self.next == len && self.header.is_empty()).then_some(self.marks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAMING: Framing = Framing {
        header: 4,
        record_len: |h| 4 + u32::from_le_bytes(h.try_into().unwrap()) as u64,
    };

    /// A log of records with bodies of `bodies` bytes, and where each starts.
    fn log(bodies: &[u32]) -> (Vec<u8>, Vec<u64>) {
        let (mut bytes, mut starts) = (Vec::new(), Vec::new());
        for &b in bodies {
            starts.push(bytes.len() as u64);
            bytes.extend_from_slice(&b.to_le_bytes());
            bytes.extend(std::iter::repeat_n(b as u8, b as usize));
        }
        (bytes, starts)
    }

    /// The starts kept as appending keeps them.
    fn thinned(starts: &[u64]) -> Vec<u64> {
        let mut marks: Vec<u64> = Vec::new();
        for &s in starts {
            if marks.last().is_none_or(|&m| s >= m + MARK_EVERY) {
                marks.push(s);
            }
        }
        marks
    }

    proptest::proptest! {
        #[test]
        fn the_marks_do_not_depend_on_how_the_bytes_are_cut(
            bodies in proptest::collection::vec(0u32..40_000, 0..60),
            cuts in proptest::collection::vec(1usize..9_000, 1..8),
        ) {
            let (bytes, starts) = log(&bodies);
            let mut walk = RecordStarts::new(FRAMING);
            let (mut at, mut k) = (0usize, 0usize);
            while at < bytes.len() {
                // Chunks of a few bytes too, so that headers span two of them.
                let n = (cuts[k % cuts.len()] >> (k % 3 * 5)).max(1).min(bytes.len() - at);
                walk.feed(at as u64, &bytes[at..at + n]);
                at += n;
                k += 1;
            }
            proptest::prop_assert_eq!(walk.finish(bytes.len() as u64), Some(thinned(&starts)));
        }
    }

    #[test]
    fn records_that_do_not_end_at_the_committed_length_are_refused() {
        let (bytes, _) = log(&[10, 200_000, 3]);
        let mut walk = RecordStarts::new(FRAMING);
        walk.feed(0, &bytes[..bytes.len() - 1]);
        assert_eq!(walk.finish(bytes.len() as u64 - 1), None);
        // A header naming a record shorter than itself.
        let mut walk = RecordStarts::new(Framing {
            header: 4,
            record_len: |_| 2,
        });
        walk.feed(0, &bytes);
        assert_eq!(walk.finish(bytes.len() as u64), None);
    }
}
