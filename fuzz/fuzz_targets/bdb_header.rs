//! Fuzz target `bdb_header`: see `bawo_fuzz::bdb_header`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = bawo_fuzz::bdb_header(data);
});
