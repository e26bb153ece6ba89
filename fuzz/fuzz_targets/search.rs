#![no_main]
// The body lives in crates/fuzz-targets, shared with the stable replay test.
libfuzzer_sys::fuzz_target!(|data: &[u8]| registry_fuzz_targets::search(data));
