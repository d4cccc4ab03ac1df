//! Fuzz target `parse_position`: see `bawo_fuzz::parse_position`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = bawo_fuzz::parse_position(data);
});
