//! See `agentry_fuzz::schema`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| agentry_fuzz::schema::check(data));
