//! The gemini stream decoder (driven as the model drives it: SSE parsing, key redaction, caps,
//! tool-call checks): never panics; the body split at derived places, and byte by byte,
//! yields the same items as the whole; nothing follows an error or the completing event.
#![no_main]

use agentry::__fuzz::{Provider, decode_stream};
use agentry::model::StreamEvent;
use libfuzzer_sys::fuzz_target;

fn run(pieces: Vec<&[u8]>) -> Vec<String> {
    let items = decode_stream(
        Provider::Gemini,
        pieces.into_iter().map(<[u8]>::to_vec).collect(),
    );
    for (i, item) in items.iter().enumerate() {
        let last = i + 1 == items.len();
        match item {
            Err(_) => assert!(last, "an item after an error"),
            Ok(StreamEvent::Completed { .. }) => assert!(last, "an item after completion"),
            Ok(_) => {}
        }
    }
    // The random ids drawn for calls without one differ between runs.
    items
        .iter()
        .map(|i| agentry_fuzz::without_synthetic_ids(&format!("{i:?}")))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let whole = run(vec![data]);
    assert_eq!(
        whole,
        run(agentry_fuzz::pieces(data)),
        "split at derived places"
    );
    if data.len() <= 4096 {
        assert_eq!(whole, run(data.chunks(1).collect()), "byte by byte");
    }
});
