//! See `agentry_fuzz::sse`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| agentry_fuzz::sse::check(data));
