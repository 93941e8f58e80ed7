//! See `agentry_fuzz::partial_json`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| agentry_fuzz::partial_json::check(data));
