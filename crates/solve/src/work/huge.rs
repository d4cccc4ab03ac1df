//! Large working vectors the kernel may back with huge pages.
//!
//! The solver's big buffers (lower tiers copied into memory, predecessor lists while they are
//! built) are touched at random or all at once. In 4 KiB pages that costs a page fault per
//! page when they are first written and a TLB miss on most random reads; in 2 MiB pages it
//! costs neither. Linux gives anonymous memory huge pages where the program asks for them
//! (`madvise`), and this module asks. It is advice only: contents and results are the same
//! with or without it, and elsewhere it does nothing.

/// Below this a vector stays in ordinary pages: it would not fill a huge page.
const MIN_HUGE: usize = 4 << 20;

/// Asks for huge pages for the whole pages inside `len` bytes at `addr` (not yet touched,
/// or it only applies to pages touched later).
fn advise(addr: usize, len: usize) {
    if len < MIN_HUGE {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = addr.next_multiple_of(PAGE);
        let end = (addr + len) / PAGE * PAGE;
        if end > start {
            // SAFETY: the range lies inside an allocation this process owns; MADV_HUGEPAGE
            // changes how its pages are backed, never their contents.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = addr;
}

/// An empty vector with room for `n` elements, in huge pages where the kernel gives them.
pub fn with_capacity<T>(n: usize) -> Vec<T> {
    let v = Vec::with_capacity(n);
    advise(
        v.as_ptr() as usize,
        n.saturating_mul(std::mem::size_of::<T>()),
    );
    v
}

/// Elements each worker writes at a time when filling or copying a large vector.
const FILL_CHUNK: usize = 1 << 18;

/// `n` copies of `value`, in huge pages where the kernel gives them. A large vector is
/// written by every worker thread, a chunk each: its first writes are its page faults (and
/// the kernel's zeroing of each page), which on one thread left the other cores idle while
/// a tier's predecessor lists were allocated.
pub fn filled<T: Copy + Send + Sync>(n: usize, value: T) -> Vec<T> {
    let mut v = with_capacity(n);
    if n.saturating_mul(std::mem::size_of::<T>()) < MIN_HUGE {
        v.resize(n, value);
        return v;
    }
    use rayon::prelude::*;
    v.spare_capacity_mut()[..n]
        .par_chunks_mut(FILL_CHUNK)
        .for_each(|c| {
            c.iter_mut().for_each(|x| {
                x.write(value);
            })
        });
    // SAFETY: the first `n` elements were all written just above.
    unsafe { v.set_len(n) };
    v
}

/// A copy of `items`, in huge pages where the kernel gives them (written by every worker,
/// as [`filled`] is).
pub fn copy_of<T: Copy + Send + Sync>(items: &[T]) -> Vec<T> {
    let n = items.len();
    let mut v = with_capacity(n);
    if n.saturating_mul(std::mem::size_of::<T>()) < MIN_HUGE {
        v.extend_from_slice(items);
        return v;
    }
    use rayon::prelude::*;
    v.spare_capacity_mut()[..n]
        .par_chunks_mut(FILL_CHUNK)
        .zip(items.par_chunks(FILL_CHUNK))
        .for_each(|(out, from)| {
            for (x, &y) in out.iter_mut().zip(from) {
                x.write(y);
            }
        });
    // SAFETY: the first `n` elements were all written just above.
    unsafe { v.set_len(n) };
    v
}

#[cfg(test)]
mod tests {
    #[test]
    fn huge_vectors_hold_what_plain_ones_do() {
        let items: Vec<u16> = (0..(3 << 20)).map(|i| (i % 65_521) as u16).collect();
        assert_eq!(super::copy_of(&items), items);
        assert_eq!(super::filled(5 << 20, 7u32), vec![7u32; 5 << 20]);
        assert_eq!(super::filled(100, 9u64), vec![9u64; 100]);
        let big: Vec<u64> = (0..(1 << 20) + 3).collect();
        assert_eq!(super::copy_of(&big), big);
        assert!(super::with_capacity::<u64>(1 << 20).capacity() >= 1 << 20);
    }
}
