//! The ReAct parser on replies in the shapes models write, one-shot and streamed at every byte
//! split, plus randomized checks (no panic, split invariance).

use agentry::protocol::react::{
    ActionInput, ReactEvent, ReactParseError, ReactReply, ReactStep, ReactStream, parse,
};
use serde_json::{Value, json};

mod react_support;
use react_support::streamed;

/// What a case should parse to.
enum Want {
    /// Tool and input (a JSON object, or a string for bare text).
    Act(&'static str, Value),
    /// The final answer.
    Final(&'static str),
    /// A correction.
    Fails(fn(&ReactParseError) -> bool),
}
use Want::*;

#[path = "react_parser/cases.rs"]
mod cases;
use cases::cases;

fn check(name: &str, reply: &str, result: &Result<ReactReply, ReactParseError>, want: &Want) {
    match (result, want) {
        (Ok(r), Act(tool, input)) => {
            let ReactStep::Action(a) = &r.step else {
                panic!("{name}: expected an action, got {r:?}");
            };
            assert_eq!(a.tool, *tool, "{name}");
            match (&a.input, input) {
                (ActionInput::Json(m), Value::Object(w)) => assert_eq!(m, w, "{name}"),
                (ActionInput::Text(t), Value::String(w)) => assert_eq!(t, w, "{name}"),
                (got, _) => panic!("{name}: input {got:?}, want {input}"),
            }
        }
        (Ok(r), Final(text)) => {
            assert_eq!(r.step, ReactStep::FinalAnswer(text.to_string()), "{name}")
        }
        (Err(e), Fails(pred)) => assert!(pred(e), "{name}: wrong error {e:?}"),
        (got, _) => panic!("{name}: unexpected {got:?} for {reply:?}"),
    }
}

#[test]
fn table_of_model_replies() {
    let cases = cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    for (name, reply, want, thought) in &cases {
        let result = parse(reply);
        check(name, reply, &result, want);
        if let (Some(t), Ok(r)) = (thought, &result) {
            assert_eq!(r.thought, *t, "{name}");
        }
    }
}

#[test]
fn discarded_tail_is_reported() {
    let r = parse("Action: a\nAction Input: {}\nAction: b\nAction Input: {}").unwrap();
    assert!(r.discarded_tail);
    let r = parse("Action: a\nAction Input: {}\n\n").unwrap();
    assert!(!r.discarded_tail);
    let r = parse("Action: a\nAction Input: ```json\n{}\n```\n").unwrap();
    assert!(!r.discarded_tail, "{r:?}");
}

#[test]
fn corrections_are_precise() {
    let e = parse("Action: search\nAction Input: {\n  \"q\": 1,\n  oops\n}").unwrap_err();
    let ReactParseError::InvalidJson { line, column, .. } = &e else {
        panic!("{e:?}")
    };
    assert_eq!((*line, *column), (3, 3));
    let text = e.to_string();
    assert!(
        text.contains("`search`") && text.contains("line 3 column 3"),
        "{text}"
    );
    let e = parse("Action: `lookup`").unwrap_err();
    assert!(e.to_string().contains("Action: lookup"), "{e}");
    assert!(
        parse("hello")
            .unwrap_err()
            .to_string()
            .contains("Final Answer:")
    );
}

#[test]
fn bare_string_maps_to_the_single_string_argument() {
    let one = json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]});
    let args = ActionInput::Text("rust".into())
        .into_arguments("search", &one)
        .unwrap();
    assert_eq!(Value::Object(args), json!({"query": "rust"}));
    let two = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}});
    let err = ActionInput::Text("rust".into())
        .into_arguments("pair", &two)
        .unwrap_err();
    assert!(
        err.contains("`pair`") && err.contains("JSON object"),
        "{err}"
    );
    let int = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    let err = ActionInput::Text("3".into())
        .into_arguments("count", &int)
        .unwrap_err();
    assert!(err.contains("{\"n\": ...}"), "{err}");
    let object = ActionInput::Json(json!({"x": 1}).as_object().unwrap().clone().into());
    assert_eq!(
        Value::Object(object.into_arguments("t", &two).unwrap()),
        json!({"x": 1})
    );
}

#[test]
fn stream_matches_one_shot_at_every_byte_split() {
    for (name, reply, _, _) in cases() {
        let whole = parse(reply);
        assert_eq!(streamed(&[reply]), whole, "{name} (one piece)");
        for i in 0..=reply.len() {
            if !reply.is_char_boundary(i) {
                continue;
            }
            let (a, b) = reply.split_at(i);
            assert_eq!(streamed(&[a, b]), whole, "{name} split at {i}");
        }
        // Byte by byte (char by char).
        let chars: Vec<String> = reply.chars().map(String::from).collect();
        let pieces: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(streamed(&pieces), whole, "{name} char by char");
    }
}

#[test]
fn stream_emits_the_action_when_the_object_closes() {
    let mut s = ReactStream::new();
    assert!(
        s.push("Thought: go\nAction: search\nAction Input: {\"q\": ")
            .iter()
            .all(|e| !matches!(e, ReactEvent::Action(_)))
    );
    let events = s.push("\"x\"} and then some");
    assert!(
        matches!(events.last(), Some(ReactEvent::Action(a)) if a.tool == "search"),
        "{events:?}"
    );
    // Thought is streamed before its line ends.
    let mut s = ReactStream::new();
    assert_eq!(
        s.push("Thought: hal"),
        vec![ReactEvent::Thought("hal".into())]
    );
    // A line that could become a marker is held back.
    let mut s = ReactStream::new();
    assert_eq!(s.push("Act"), vec![]);
    assert_eq!(
        s.push("ually no\n"),
        vec![ReactEvent::Thought("Actually no".into())]
    );
}
