//! Shared by the ReAct parser tests: the streaming parser checked against its own events.

use agentry::protocol::react::{ReactEvent, ReactParseError, ReactReply, ReactStep, ReactStream};

/// Feeds `text` in the given pieces; checks the events against the result, and returns it.
pub fn streamed(pieces: &[&str]) -> Result<ReactReply, ReactParseError> {
    let mut stream = ReactStream::new();
    let mut events = Vec::new();
    for p in pieces {
        events.extend(stream.push(p));
    }
    let (last, result) = stream.finish();
    events.extend(last);
    let thought: String = events
        .iter()
        .filter_map(|e| match e {
            ReactEvent::Thought(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    let answer: String = events
        .iter()
        .filter_map(|e| match e {
            ReactEvent::FinalAnswer(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    let actions: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            ReactEvent::Action(a) => Some(a),
            _ => None,
        })
        .collect();
    match &result {
        Ok(r) => {
            assert_eq!(thought, r.thought, "thought deltas for {pieces:?}");
            match &r.step {
                ReactStep::Action(a) => {
                    assert_eq!(actions, vec![a], "{pieces:?}");
                    assert!(answer.is_empty());
                }
                ReactStep::FinalAnswer(f) => {
                    assert_eq!(&answer, f, "answer deltas for {pieces:?}");
                    assert!(actions.is_empty());
                }
            }
        }
        Err(_) => assert!(actions.is_empty(), "{pieces:?}: action emitted, then error"),
    }
    result
}
