//! Memory the allocator keeps after it is freed, handed back to the system.
//!
//! glibc serves small allocations (under the mmap threshold the binary sets, 128 KiB) from
//! per-thread arenas and keeps what is freed there for reuse; only the top of an arena is
//! trimmed. A phase that makes and frees many small buffers (hundreds of work logs' buffers
//! growing and being written) leaves arenas mostly free but resident: on Bawo `n = 4`,
//! 19 seeds under `--mem 2G`, an arena held 126 MB with 2.3 MB in use when the next tier
//! copied its lower tiers into the rest of the budget, and the process peaked 77 MiB over it.

/// Returns the free memory of every arena to the system (`malloc_trim(0)`); a no-op where
/// the allocator is not glibc's. Cheap (a walk over free chunks): called between phases.
pub fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free pages of the allocator's own arenas.
    unsafe {
        libc::malloc_trim(0);
    }
}
