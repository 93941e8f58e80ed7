//! See `agentry_fuzz::checkpoint`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| agentry_fuzz::checkpoint::check(data));
