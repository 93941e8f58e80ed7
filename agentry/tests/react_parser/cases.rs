//! The table of replies in the shapes models write, each with what the parser must make of it.

use super::*;

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
pub(super) fn cases() -> Vec<(&'static str, &'static str, Want, Option<&'static str>)> {
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
