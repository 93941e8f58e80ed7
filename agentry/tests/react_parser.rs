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

fn both(e: &ReactParseError) -> bool {
    *e == ReactParseError::BothActionAndFinalAnswer
}
fn neither(e: &ReactParseError) -> bool {
    *e == ReactParseError::NoActionOrFinalAnswer
}
fn no_input(e: &ReactParseError) -> bool {
    matches!(e, ReactParseError::MissingActionInput { .. })
}
fn bad_json(e: &ReactParseError) -> bool {
    matches!(e, ReactParseError::InvalidJson { .. })
}
fn no_tool(e: &ReactParseError) -> bool {
    *e == ReactParseError::MissingToolName
}
fn input_first(e: &ReactParseError) -> bool {
    *e == ReactParseError::ActionInputWithoutAction
}

/// (name, reply, expected, expected thought or None to skip).
fn cases() -> Vec<(&'static str, &'static str, Want, Option<&'static str>)> {
    vec![
        (
            "bare input cut inside the stop sequence",
            "Thought: t\nAction: search\nAction Input: the input\nObs",
            Act("search", json!("the input")),
            Some("t"),
        ),
        (
            "final answer cut inside the stop sequence",
            "Final Answer: Paris\nis the capital\nobserv",
            Final("Paris\nis the capital"),
            None,
        ),
        (
            "canonical action",
            "Thought: I should look this up.\nAction: search\nAction Input: {\"query\": \"capital of France\"}",
            Act("search", json!({"query": "capital of France"})),
            Some("I should look this up."),
        ),
        (
            "canonical final",
            "Thought: I now know the final answer\nFinal Answer: Paris",
            Final("Paris"),
            Some("I now know the final answer"),
        ),
        (
            "no thought prefix",
            "I need the weather.\nAction: weather\nAction Input: {\"city\": \"Oslo\"}",
            Act("weather", json!({"city": "Oslo"})),
            Some("I need the weather."),
        ),
        (
            "fenced json input",
            "Thought: x\nAction: search\nAction Input: ```json\n{\"query\": \"rust\"}\n```",
            Act("search", json!({"query": "rust"})),
            None,
        ),
        (
            "fence on its own line",
            "Action: search\nAction Input:\n```\n{\"query\": \"rust\"}\n```\n",
            Act("search", json!({"query": "rust"})),
            Some(""),
        ),
        (
            "trailing text after json",
            "Action: search\nAction Input: {\"query\": \"a\"} I will wait for the result.",
            Act("search", json!({"query": "a"})),
            None,
        ),
        (
            "hallucinated observation is cut",
            "Thought: t\nAction: search\nAction Input: {\"query\": \"a\"}\nObservation: it is 42\nThought: done\nFinal Answer: 42",
            Act("search", json!({"query": "a"})),
            Some("t"),
        ),
        (
            "lowercase markers",
            "thought: hmm\naction: search\naction input: {\"query\": \"b\"}",
            Act("search", json!({"query": "b"})),
            Some("hmm"),
        ),
        (
            "space before colon",
            "Action : search\nAction Input : {\"query\": \"c\"}",
            Act("search", json!({"query": "c"})),
            None,
        ),
        (
            "upper case",
            "THOUGHT: loud\nACTION: search\nACTION INPUT: {\"query\": \"d\"}",
            Act("search", json!({"query": "d"})),
            Some("loud"),
        ),
        (
            "double space between words",
            "Action:  search\nAction  Input:   {\"query\": \"e\"}",
            Act("search", json!({"query": "e"})),
            None,
        ),
        (
            "markdown bold outside colon",
            "**Thought:** bold\n**Action:** search\n**Action Input:** {\"query\": \"f\"}",
            Act("search", json!({"query": "f"})),
            Some("bold"),
        ),
        (
            "markdown bold inside colon",
            "**Action**: search\n**Action Input**: {\"query\": \"g\"}",
            Act("search", json!({"query": "g"})),
            None,
        ),
        (
            "tool in backticks",
            "Action: `search`\nAction Input: {\"query\": \"h\"}",
            Act("search", json!({"query": "h"})),
            None,
        ),
        (
            "tool in quotes",
            "Action: \"search\"\nAction Input: {\"query\": \"i\"}",
            Act("search", json!({"query": "i"})),
            None,
        ),
        (
            "tool in brackets",
            "Action: [search]\nAction Input: {\"query\": \"j\"}",
            Act("search", json!({"query": "j"})),
            None,
        ),
        (
            "tool with trailing period",
            "Action: search.\nAction Input: {\"query\": \"k\"}",
            Act("search", json!({"query": "k"})),
            None,
        ),
        (
            "tool on next line",
            "Action:\nsearch\nAction Input: {\"query\": \"l\"}",
            Act("search", json!({"query": "l"})),
            None,
        ),
        (
            "multi-line thought",
            "Thought: first I consider\nthe question carefully\n\nand then act.\nAction: search\nAction Input: {\"query\": \"m\"}",
            Act("search", json!({"query": "m"})),
            Some("first I consider\nthe question carefully\n\nand then act."),
        ),
        (
            "several thought markers",
            "Thought: one\nmore\nThought:  two\n\nAction: search\nAction Input: {\"query\": \"n\"}",
            Act("search", json!({"query": "n"})),
            Some("one\nmore\ntwo"),
        ),
        (
            "text, then a thought marker",
            "I think.\nthought: yes\nAction: search\nAction Input: {\"query\": \"o\"}",
            Act("search", json!({"query": "o"})),
            Some("I think.\nyes"),
        ),
        (
            "final answer spanning lines",
            "Thought: ok\nFinal Answer: line one\nline two\n\n- bullet",
            Final("line one\nline two\n\n- bullet"),
            Some("ok"),
        ),
        (
            "windows line endings",
            "Thought: w\r\nAction: search\r\nAction Input: {\"query\": \"n\"}\r\n",
            Act("search", json!({"query": "n"})),
            Some("w"),
        ),
        (
            "windows final answer",
            "Thought: w\r\nFinal Answer: a\r\nb\r\n",
            Final("a\nb"),
            Some("w"),
        ),
        (
            "bare string input",
            "Action: search\nAction Input: weather in Paris",
            Act("search", json!("weather in Paris")),
            None,
        ),
        (
            "quoted bare string is unquoted",
            "Action: search\nAction Input: \"weather in Paris\"",
            Act("search", json!("weather in Paris")),
            None,
        ),
        (
            "bare input stops at blank line",
            "Action: search\nAction Input: tokio\n\nI'll see what comes back.",
            Act("search", json!("tokio")),
            None,
        ),
        (
            "bare input stops at observation",
            "Action: search\nAction Input: tokio\nObservation: made up",
            Act("search", json!("tokio")),
            None,
        ),
        (
            "fenced bare input keeps lines",
            "Action: python\nAction Input: ```python\nx = 1\n\nprint(x)\n```",
            Act("python", json!("x = 1\n\nprint(x)")),
            None,
        ),
        (
            "nested json",
            "Action: book\nAction Input: {\"trip\": {\"from\": \"A\", \"to\": \"B\"}, \"seats\": [1, 2]}",
            Act(
                "book",
                json!({"trip": {"from": "A", "to": "B"}, "seats": [1, 2]}),
            ),
            None,
        ),
        (
            "braces inside json strings",
            "Action: echo\nAction Input: {\"text\": \"a } b { c\"} trailing",
            Act("echo", json!({"text": "a } b { c"})),
            None,
        ),
        (
            "multi-line json",
            "Action: search\nAction Input: {\n  \"query\": \"o\",\n  \"limit\": 3\n}\nThat should do.",
            Act("search", json!({"query": "o", "limit": 3})),
            None,
        ),
        (
            "numbered steps",
            "Thought 1: numbered\nAction 1: search\nAction Input 1: {\"query\": \"p\"}",
            Act("search", json!({"query": "p"})),
            Some("numbered"),
        ),
        (
            "first of several actions",
            "Action: search\nAction Input: {\"query\": \"q1\"}\nAction: search\nAction Input: {\"query\": \"q2\"}",
            Act("search", json!({"query": "q1"})),
            None,
        ),
        (
            "final answer after complete action is discarded",
            "Action: search\nAction Input: {\"query\": \"r\"}\nFinal Answer: guessed",
            Act("search", json!({"query": "r"})),
            None,
        ),
        (
            "final answer then action is both",
            "Final Answer: 42\nAction: search\nAction Input: {\"query\": \"s\"}",
            Fails(both),
            None,
        ),
        (
            "action then final answer before input is both",
            "Action: search\nFinal Answer: 42",
            Fails(both),
            None,
        ),
        (
            "neither",
            "I think the answer is probably 42.",
            Fails(neither),
            None,
        ),
        ("empty reply", "", Fails(neither), None),
        (
            "observation only",
            "Observation: nothing happened",
            Fails(neither),
            None,
        ),
        (
            "action without input",
            "Thought: t\nAction: search",
            Fails(no_input),
            None,
        ),
        (
            "action followed by another action",
            "Action: search\nAction: lookup\nAction Input: {}",
            Fails(no_input),
            None,
        ),
        (
            "empty action input",
            "Action: search\nAction Input:   ",
            Fails(no_input),
            None,
        ),
        (
            "malformed json",
            "Action: search\nAction Input: {\"query\": \"t\",}",
            Fails(bad_json),
            None,
        ),
        (
            "unclosed json",
            "Action: search\nAction Input: {\"query\": \"u\"",
            Fails(bad_json),
            None,
        ),
        (
            "single quoted json",
            "Action: search\nAction Input: {'query': 'v'}",
            Fails(bad_json),
            None,
        ),
        (
            "empty tool name",
            "Action:\nAction Input: {}",
            Fails(no_tool),
            None,
        ),
        (
            "input without action",
            "Action Input: {\"query\": \"w\"}",
            Fails(input_first),
            None,
        ),
        (
            "actionable is not a marker",
            "Actionable: yes\nFinal Answer: fine",
            Final("fine"),
            Some("Actionable: yes"),
        ),
        (
            "final answer with bold",
            "**Final Answer:** the **bold** result",
            Final("the **bold** result"),
            Some(""),
        ),
        (
            "final answer cut at invented observation",
            "Final Answer: 7\nObservation: junk",
            Final("7"),
            None,
        ),
        (
            "final answer keeps json",
            "Thought: done\nFinal Answer: {\"name\": \"Ada\", \"age\": 36}",
            Final("{\"name\": \"Ada\", \"age\": 36}"),
            None,
        ),
        (
            "empty object input",
            "Action: now\nAction Input: {}",
            Act("now", json!({})),
            None,
        ),
        (
            "unicode in input and thought",
            "Thought: café ☕\nAction: search\nAction Input: {\"query\": \"日本\"}",
            Act("search", json!({"query": "日本"})),
            Some("café ☕"),
        ),
        (
            "heading marker",
            "### Thought: heading\n### Final Answer: yes",
            Final("yes"),
            Some("heading"),
        ),
    ]
}

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
