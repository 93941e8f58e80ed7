//! The gemini whole-answer decoder (as the model runs it on an HTTP 200 body, key redaction and
//! caps included): never panics, and an answer it accepts decodes the same when its JSON is
//! printed again compactly (the decoding depends on the JSON, not on its formatting; the
//! random ids drawn for calls without one are left out of the comparison).
#![no_main]

use agentry::__fuzz::{Provider, decode_answer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let first = decode_answer(Provider::Gemini, data);
    if let Ok(answer) = &first
        && let Ok(value) = serde_json::from_slice::<serde_json::Value>(data)
    {
        let again = decode_answer(Provider::Gemini, &serde_json::to_vec(&value).unwrap());
        let again = again.expect("reformatted JSON refused");
        assert_eq!(
            agentry_fuzz::without_synthetic_ids(&format!("{again:?}")),
            agentry_fuzz::without_synthetic_ids(&format!("{answer:?}")),
            "reformatted JSON decoded differently"
        );
    }
});
