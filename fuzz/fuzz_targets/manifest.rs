//! Fuzz target `manifest`: see `bawo_fuzz::manifest`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = bawo_fuzz::manifest(data);
});
