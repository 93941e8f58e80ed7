//! See `agentry_fuzz::mcp_content`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| agentry_fuzz::mcp_content::check(data));
