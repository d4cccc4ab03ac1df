//! Decompressing the start of a block, as far as one probe needs, into a buffer its thread
//! keeps.
//!
//! A cold `query` is a new process that probes three or four blocks once each, and what it
//! spent was mostly the kernel's: every page of zstd's window buffer and of a fresh output
//! buffer is faulted in and zeroed per probe (`perf record -e page-faults`: two thirds of a
//! query's faults). Here zstd writes straight into the output (`ZSTD_d_stableOutBuffer`: no
//! window of its own, no copy), the output buffer and the decompression context live as long
//! as the thread and are reused by the next probe, so a process faults in the pages of the
//! longest prefix it decoded, once. The compressed frame is handed over a step at a time, so
//! decoding stops soon past what is needed: within the zstd blocks (128 KiB of output each)
//! that one step of input completes. Each thread keeps one block's buffer (1 MiB at the
//! default block size) and one context, as long as it lives.

use std::cell::RefCell;

use zstd::zstd_safe::{get_error_name, DCtx, DParameter, InBuffer, OutBuffer, ResetDirective};

/// Compressed bytes given to zstd per step: a few compressed zstd blocks of a typical frame,
/// so stopping early wastes little and the calls stay few.
const STEP: usize = 32 << 10;

struct Prefix {
    dctx: DCtx<'static>,
    out: Vec<u8>,
}

thread_local! {
    static PREFIX: RefCell<Option<Prefix>> = const { RefCell::new(None) };
}

/// Decompresses the zstd frame `frame`, whose content is `content` bytes, until its first
/// `need` bytes (at most `content`) are out, and returns `f` of them. An error (zstd's
/// words) when the frame does not decompress or ends before `need` bytes. Each thread keeps
/// the buffer of the largest content it decoded (one block: 1 MiB at the default size).
pub fn with_prefix<R>(
    frame: &[u8],
    content: usize,
    need: usize,
    f: impl FnOnce(&[u8]) -> R,
) -> Result<R, String> {
    if need > content {
        return Err(format!("{need} bytes asked of a {content}-byte block"));
    }
    PREFIX.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut dctx = DCtx::try_create().ok_or("zstd: no decompression context")?;
            dctx.set_parameter(DParameter::StableOutBuffer(true))
                .map_err(zstd_error)?;
            *slot = Some(Prefix {
                dctx,
                out: Vec::new(),
            });
        }
        let p = slot.as_mut().expect("set above");
        let Prefix { dctx, out } = p;
        // A probe stopped part-way through its frame last time: start a new one.
        dctx.reset(ResetDirective::SessionOnly)
            .map_err(zstd_error)?;
        out.clear();
        // Stable output must hold the whole frame; its pages are touched only as written.
        out.reserve(content);
        let mut buf = OutBuffer::around(out);
        let mut fed = 0;
        while buf.pos() < need {
            if fed == frame.len() {
                return Err(format!("ends after {} of its {content} bytes", buf.pos()));
            }
            let end = (fed + STEP).min(frame.len());
            let given = end - fed;
            let mut input = InBuffer::around(&frame[fed..end]);
            let left = dctx
                .decompress_stream(&mut buf, &mut input)
                .map_err(zstd_error)?;
            fed += input.pos();
            // While its output has room, zstd takes all the input it is given until the
            // frame ends (`left == 0`): a frame that ended short holds fewer bytes than the
            // index says.
            let ended = left == 0 || input.pos() < given;
            if ended && buf.pos() < need {
                return Err(format!("ends after {} of its {content} bytes", buf.pos()));
            }
        }
        Ok(f(&buf.as_slice()[..need]))
    })
}

fn zstd_error(code: usize) -> String {
    format!("zstd: {}", get_error_name(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: usize) -> Vec<u8> {
        let mut x = 7u64;
        (0..n)
            .map(|i| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                if i % 3 == 0 {
                    (x >> 60) as u8
                } else {
                    (i / 97) as u8
                }
            })
            .collect()
    }

    #[test]
    fn prefixes_match_the_content_at_any_length() {
        let data = sample(700_000);
        let frame = zstd::bulk::compress(&data, 3).unwrap();
        for need in [0, 1, 2, 4095, 131_072, 131_073, 400_000, 699_999, 700_000] {
            let got = with_prefix(&frame, data.len(), need, |p| p.to_vec()).unwrap();
            assert_eq!(got, &data[..need], "need {need}");
        }
        // A smaller frame after a larger one reuses the buffer.
        let small = zstd::bulk::compress(&data[..1000], 3).unwrap();
        let got = with_prefix(&small, 1000, 1000, |p| p.to_vec()).unwrap();
        assert_eq!(got, &data[..1000]);
    }

    #[test]
    fn damaged_or_short_frames_are_errors() {
        let data = sample(300_000);
        let frame = zstd::bulk::compress(&data, 3).unwrap();
        // Content shorter than the index says.
        assert!(with_prefix(&frame, 400_000, 350_000, |_| ()).is_err());
        assert!(with_prefix(&frame, 300_000, 300_001, |_| ()).is_err());
        // Cut short, or damaged anywhere: an error or (a flip zstd cannot see) other bytes,
        // never a panic; the next probe still works.
        assert!(with_prefix(&frame[..frame.len() / 2], 300_000, 300_000, |_| ()).is_err());
        for at in (0..frame.len()).step_by(frame.len() / 50 + 1) {
            let mut bad = frame.clone();
            bad[at] ^= 0x5a;
            let _ = with_prefix(&bad, 300_000, 299_000, |p| p.len());
        }
        let got = with_prefix(&frame, 300_000, 300_000, |p| p.to_vec()).unwrap();
        assert_eq!(got, data);
    }
}
