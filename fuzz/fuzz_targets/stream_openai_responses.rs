//! The OpenAI Responses stream decoder, checked by `agentry_fuzz::check_stream`.
#![no_main]

use agentry::__fuzz::Provider;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| agentry_fuzz::check_stream(Provider::OpenAiResponses, data));
