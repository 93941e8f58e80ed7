//! The SSE decoder: a body split anywhere (at derived places, and byte by byte) decodes to
//! the same events, and the same outcome, as the whole; a size cap, when not hit, changes
//! nothing.

use std::collections::VecDeque;

use agentry::http::sse::{SseDecoder, SseEvent};

fn decode(mut d: SseDecoder, pieces: &[&[u8]]) -> (Vec<SseEvent>, Option<String>) {
    let mut out = VecDeque::new();
    for p in pieces {
        if let Err(e) = d.push(p, &mut out) {
            return (out.into(), Some(e.to_string()));
        }
    }
    (out.into(), None)
}

/// Checks the property above on one input; panics when it does not hold.
pub fn check(data: &[u8]) {
    let whole = decode(SseDecoder::new(), &[data]);
    let split = decode(SseDecoder::new(), &super::split::pieces(data));
    assert_eq!(whole, split, "split at derived places");
    let bytes: Vec<&[u8]> = data.chunks(1).collect();
    assert_eq!(whole, decode(SseDecoder::new(), &bytes), "byte by byte");
    for e in &whole.0 {
        assert!(!e.event.is_empty());
    }
    // A cap: either an error, or exactly the uncapped events.
    let max = (data.first().copied().unwrap_or(0) as usize) * 4;
    let capped = decode(
        SseDecoder::with_max_event_bytes(max),
        &super::split::pieces(data),
    );
    if capped.1.is_none() {
        assert_eq!(capped, whole, "a cap not hit changed the events");
    }
}
