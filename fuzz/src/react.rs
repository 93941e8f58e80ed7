//! The ReAct parser: a reply parsed whole (`parse`) and streamed in pieces (`ReactStream`)
//! give the same result; the streamed text deltas add up to the same thought / final answer
//! whatever the pieces.

use agentry::protocol::react::{ReactEvent, ReactStream, parse};

fn stream(pieces: &[&str]) -> (String, String, Vec<ReactEvent>, String) {
    let mut s = ReactStream::new();
    let mut events = Vec::new();
    for p in pieces {
        events.extend(s.push(p));
    }
    let (tail, result) = s.finish();
    events.extend(tail);
    let (mut thought, mut answer, mut actions) = (String::new(), String::new(), Vec::new());
    for e in events {
        match e {
            ReactEvent::Thought(t) => thought.push_str(&t),
            ReactEvent::FinalAnswer(t) => answer.push_str(&t),
            action => actions.push(action),
        }
    }
    (thought, answer, actions, format!("{result:?}"))
}

/// Checks the property above on one input; panics when it does not hold.
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let whole = format!("{:?}", parse(text));
    let one = stream(&[text]);
    assert_eq!(one.3, whole, "streamed whole differs from parse");
    assert_eq!(
        stream(&super::split::str_pieces(text)),
        one,
        "pieces differ"
    );
    if text.len() <= 1024 {
        assert_eq!(
            stream(&super::split::chars(text)),
            one,
            "char by char differs"
        );
    }
}
