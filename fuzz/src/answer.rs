//! Each provider's whole-answer decoder (as the model runs it on an HTTP 200 body, key
//! redaction and caps included): never panics, and an answer it accepts decodes the same when
//! its JSON is printed again compactly (the decoding depends on the JSON, not on its
//! formatting; the random ids drawn for calls without one are left out of the comparison).

use agentry::__fuzz::{Provider, decode_answer};

use super::split::without_synthetic_ids;

/// Checks the property above for `provider` on one input; panics when it does not hold.
pub fn check(provider: Provider, data: &[u8]) {
    let first = decode_answer(provider, data);
    if let Ok(answer) = &first
        && let Ok(value) = serde_json::from_slice::<serde_json::Value>(data)
    {
        let again = decode_answer(provider, &serde_json::to_vec(&value).unwrap());
        let again = again.expect("reformatted JSON refused");
        assert_eq!(
            without_synthetic_ids(&format!("{again:?}")),
            without_synthetic_ids(&format!("{answer:?}")),
            "reformatted JSON decoded differently"
        );
    }
}
