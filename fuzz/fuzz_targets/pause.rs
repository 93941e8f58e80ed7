//! See `agentry_fuzz::pause`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| agentry_fuzz::pause::check(data));
