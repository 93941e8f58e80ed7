//! What every crash test checks of a finished thread (SQLite, Postgres, Restate): its
//! transcript against the side-effect log the tools append to.
//!
//! The model of these tests makes `steps` answers that each call `record` (not idempotent,
//! call id `r{n}`) and `observe` (idempotent, call id `o{n}`) with step `n`, then says "done".

use std::collections::{HashMap, HashSet};

use agentry::agent::NOT_COMPLETED;
use agentry::prelude::*;

/// How many times each (thread, tool, step) ran, from the side-effect log.
pub type Ran = HashMap<(String, String, u32), usize>;

/// Checks a finished thread: every step once and in order, every call made once and answered
/// once after it, a completed `record` ran exactly once and a lost one (reported
/// `NOT_COMPLETED`) at most once, a completed `observe` ran, and nothing ran that the
/// transcript does not hold. `on_call` sees each call the model made, for a backend's own
/// checks.
pub fn check_transcript(
    thread: &str,
    steps: usize,
    messages: &[Message],
    ran: &Ran,
    mut on_call: impl FnMut(&ToolCall),
) {
    let mut called = HashSet::new();
    let mut answered: HashMap<String, (bool, String)> = HashMap::new();
    let mut seen_steps = Vec::new();
    for message in messages {
        match message {
            Message::Assistant(a) => {
                for call in &a.tool_calls {
                    assert!(
                        called.insert(call.id.clone()),
                        "{thread}: call {} made twice",
                        call.id
                    );
                    on_call(call);
                }
                if let Some(call) = a.tool_calls.first() {
                    seen_steps.push(call.id[1..].parse::<u32>().unwrap());
                }
            }
            Message::Tool(t) => {
                assert!(
                    called.contains(&t.call_id),
                    "{thread}: result of {} before its call",
                    t.call_id
                );
                let previous = answered.insert(t.call_id.clone(), (t.is_error, message.text()));
                assert!(
                    previous.is_none(),
                    "{thread}: call {} answered twice",
                    t.call_id
                );
            }
            _ => {}
        }
    }
    assert_eq!(
        seen_steps,
        (0..steps as u32).collect::<Vec<_>>(),
        "{thread}: steps"
    );
    assert_eq!(messages.last().map(Message::text).as_deref(), Some("done"));
    assert_eq!(
        answered.len(),
        called.len(),
        "{thread}: every call answered"
    );
    for (id, (is_error, text)) in &answered {
        let tool = if id.starts_with('r') {
            "record"
        } else {
            "observe"
        };
        let step: u32 = id[1..].parse().unwrap();
        let n = ran
            .get(&(thread.to_string(), tool.to_string(), step))
            .copied()
            .unwrap_or(0);
        if *is_error {
            assert_eq!(
                tool, "record",
                "{thread}: only non-idempotent calls are reported"
            );
            assert!(text.contains(NOT_COMPLETED), "{thread}: {text}");
            assert!(n <= 1, "{thread}: {tool} {step} ran {n} times");
        } else if tool == "record" {
            assert_eq!(text, &format!("recorded {step}"), "{thread}");
            assert_eq!(n, 1, "{thread}: completed {tool} {step} ran {n} times");
        } else {
            assert_eq!(text, &format!("observed {step}"), "{thread}");
            assert!(n >= 1, "{thread}: completed {tool} {step} never ran");
        }
    }
    for (t, tool, step) in ran.keys() {
        if t == thread {
            let id = format!("{}{step}", &tool[..1]);
            assert!(
                called.contains(&id),
                "{thread}: {tool} {step} ran but was never called"
            );
        }
    }
}

/// Reads the side-effect log: one `thread tool step` line per side effect, then `fields - 3`
/// more words (a worker's name, say). A line of another shape is a torn write and fails.
pub fn read_log(path: &std::path::Path, fields: usize) -> Ran {
    let mut ran = Ran::new();
    for line in std::fs::read_to_string(path).unwrap_or_default().lines() {
        let parts: Vec<&str> = line.split(' ').collect();
        assert_eq!(parts.len(), fields, "a torn log line: {line:?}");
        let step = parts[2].parse().expect("a step number");
        *ran.entry((parts[0].into(), parts[1].into(), step))
            .or_default() += 1;
    }
    ran
}
