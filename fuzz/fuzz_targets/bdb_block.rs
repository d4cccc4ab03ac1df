//! Fuzz target `bdb_block`: see `bawo_fuzz::bdb_block`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = bawo_fuzz::bdb_block(data);
});
