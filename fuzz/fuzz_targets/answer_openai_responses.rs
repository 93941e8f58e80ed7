//! See `agentry_fuzz::answer`.
#![no_main]

use agentry::__fuzz::Provider;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| agentry_fuzz::answer::check(Provider::OpenAiResponses, data));
