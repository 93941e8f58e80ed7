//! AG-UI events: a run as `RUN_STARTED`, `STATE_SNAPSHOT`, `STEP_*`, `TEXT_MESSAGE_*`,
//! `REASONING_*`, `TOOL_CALL_*`, `CUSTOM`, `STATE_DELTA` and `RUN_FINISHED` / `RUN_ERROR`.
//!
//! A pause for review ends the run with `RUN_FINISHED` whose `outcome` is
//! `{"type": "interrupt", "interrupts": [...]}`, one interrupt per reviewed call (its `id` and
//! `toolCallId` are the call id, `reason` is `tool_approval`); the next request answers them
//! in `RunAgentInput.resume`. A tool's question is an interrupt too (`reason`
//! `tool_question`, the question in `metadata.question`), answered by a `resume` payload
//! `{"answer": ..}`. Calls of external tools are the client's (AG-UI's frontend tools): when
//! nothing else waits, the run finishes with outcome `success` naming them in
//! `pendingToolCallIds`, and the client sends their results as `tool` messages; beside a
//! question they are interrupts of reason `external_tool`. A tool's events are `CUSTOM`
//! events named `agentry.tool_event`, a team's handoffs `CUSTOM` events named
//! `agentry.handoff`; the typed output is `RUN_FINISHED.result`.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use super::event::{Encoder, Event, input_of, result_text};
use super::json_patch;
use crate::run::PendingCall;
use crate::tool::QuestionKind;

/// The name of the `CUSTOM` event carrying what a tool wrote to its `StreamWriter`.
pub const TOOL_EVENT: &str = "agentry.tool_event";

/// The name of the `CUSTOM` event of a team's handoff, `{"from", "to"}` (the agents' names).
pub const HANDOFF: &str = "agentry.handoff";

/// The `reason` of the interrupt asking to approve a tool call.
pub const TOOL_APPROVAL: &str = "tool_approval";

/// The `reason` of the interrupt carrying a tool's question (an `Interrupt` in the tool).
pub const TOOL_QUESTION: &str = "tool_question";

/// The `reason` of the interrupt asking the client to run an external tool's call (sent only
/// beside other interrupts; alone, such calls are the `pendingToolCallIds` of a finished run).
pub const EXTERNAL_TOOL: &str = "external_tool";

/// The AG-UI encoder of one run.
pub(crate) struct AgUi {
    thread_id: String,
    run_id: String,
    /// The state sent in `STATE_SNAPSHOT`, to send the change as `STATE_DELTA`.
    state: Value,
    /// The id of the open text message.
    text: Option<String>,
    /// The id of the open reasoning message.
    reasoning: Option<String>,
    messages: u32,
    step: Option<u32>,
    /// The calls of the current answer by stream index.
    calls: HashMap<usize, String>,
    /// Calls started and not ended.
    open: Vec<String>,
    /// Calls ended.
    ended: HashSet<String>,
    /// Calls whose result was sent.
    results: HashSet<String>,
}

impl AgUi {
    pub(crate) fn new(thread_id: String, run_id: String) -> Self {
        AgUi {
            thread_id,
            run_id,
            state: Value::Null,
            text: None,
            reasoning: None,
            messages: 0,
            step: None,
            calls: HashMap::new(),
            open: Vec::new(),
            ended: HashSet::new(),
            results: HashSet::new(),
        }
    }

    fn next_id(&mut self, kind: &str) -> String {
        self.messages += 1;
        format!("{}-{kind}-{}", self.run_id, self.messages)
    }

    fn close_text(&mut self, out: &mut Vec<Value>) {
        if let Some(id) = self.text.take() {
            out.push(json!({ "type": "TEXT_MESSAGE_END", "messageId": id }));
        }
    }

    fn close_reasoning(&mut self, out: &mut Vec<Value>) {
        if let Some(id) = self.reasoning.take() {
            out.push(json!({ "type": "REASONING_MESSAGE_END", "messageId": id }));
            out.push(json!({ "type": "REASONING_END", "messageId": id }));
        }
    }

    fn close(&mut self, out: &mut Vec<Value>) {
        self.close_text(out);
        self.close_reasoning(out);
    }

    fn end_calls(&mut self, out: &mut Vec<Value>) {
        for id in std::mem::take(&mut self.open) {
            out.push(json!({ "type": "TOOL_CALL_END", "toolCallId": id }));
            self.ended.insert(id);
        }
    }

    fn start_call(&mut self, id: &str, name: &str, out: &mut Vec<Value>) {
        out.push(json!({ "type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": name }));
        self.open.push(id.to_owned());
    }

    fn end_step(&mut self, out: &mut Vec<Value>) {
        self.close(out);
        self.end_calls(out);
        if let Some(turn) = self.step.take() {
            out.push(json!({ "type": "STEP_FINISHED", "stepName": format!("turn-{turn}") }));
        }
    }

    fn state_delta(&mut self, state: &Value, out: &mut Vec<Value>) {
        let delta = json_patch::diff(&self.state, state);
        if !delta.is_empty() {
            out.push(json!({ "type": "STATE_DELTA", "delta": delta }));
            self.state = state.clone();
        }
    }
}

impl Encoder for AgUi {
    const NEEDS_STATE: bool = true;

    fn start(&mut self, state: &Value, out: &mut Vec<Value>) {
        out.push(
            json!({ "type": "RUN_STARTED", "threadId": self.thread_id, "runId": self.run_id }),
        );
        if !state.is_null() {
            out.push(json!({ "type": "STATE_SNAPSHOT", "snapshot": state }));
            self.state = state.clone();
        }
    }

    fn resumed(&mut self, calls: &[String], ran: &[String], _rejected: &[String]) {
        self.results.extend(ran.iter().cloned());
        self.ended.extend(calls.iter().cloned());
    }

    fn event(&mut self, event: Event<'_>, out: &mut Vec<Value>) {
        match event {
            Event::Turn(turn) => {
                self.end_step(out);
                self.calls.clear();
                self.step = Some(turn);
                out.push(json!({ "type": "STEP_STARTED", "stepName": format!("turn-{turn}") }));
            }
            Event::Text(delta) => {
                if delta.is_empty() {
                    return;
                }
                self.close_reasoning(out);
                let id = match &self.text {
                    Some(id) => id.clone(),
                    None => {
                        let id = self.next_id("text");
                        out.push(json!({ "type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant" }));
                        self.text = Some(id.clone());
                        id
                    }
                };
                out.push(
                    json!({ "type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": delta }),
                );
            }
            Event::Reasoning(delta) => {
                if delta.is_empty() {
                    return;
                }
                self.close_text(out);
                let id = match &self.reasoning {
                    Some(id) => id.clone(),
                    None => {
                        let id = self.next_id("reasoning");
                        out.push(json!({ "type": "REASONING_START", "messageId": id }));
                        out.push(json!({ "type": "REASONING_MESSAGE_START", "messageId": id, "role": "reasoning" }));
                        self.reasoning = Some(id.clone());
                        id
                    }
                };
                out.push(
                    json!({ "type": "REASONING_MESSAGE_CONTENT", "messageId": id, "delta": delta }),
                );
            }
            Event::CallStart { index, id, name } => {
                self.close(out);
                if !self.ended.contains(id) {
                    self.calls.insert(index, id.to_owned());
                    self.start_call(id, name, out);
                }
            }
            Event::CallArgs { index, delta } => {
                if let Some(id) = self.calls.get(&index)
                    && !delta.is_empty()
                {
                    out.push(json!({ "type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": delta }));
                }
            }
            Event::Answer(message) => {
                self.close(out);
                for call in &message.tool_calls {
                    if !self.open.contains(&call.id) && !self.ended.contains(&call.id) {
                        self.start_call(&call.id, &call.name, out);
                        if !call.arguments.is_empty() {
                            out.push(json!({ "type": "TOOL_CALL_ARGS", "toolCallId": call.id, "delta": call.arguments }));
                        }
                    }
                }
                self.end_calls(out);
            }
            Event::Result(step) => {
                self.close(out);
                let content = match result_text(step) {
                    Ok(text) | Err(text) => text,
                };
                if !self.results.insert(step.call.id.clone()) {
                    return;
                }
                let id = format!("result-{}", step.call.id);
                out.push(json!({
                    "type": "TOOL_CALL_RESULT",
                    "messageId": id,
                    "toolCallId": step.call.id,
                    "content": content,
                    "role": "tool",
                }));
            }
            Event::Custom(custom) => out.push(json!({
                "type": "CUSTOM",
                "name": TOOL_EVENT,
                "value": { "toolCallId": custom.call_id, "data": custom.data },
            })),
            Event::Handoff { from, to } => {
                // The agent that hands off is done: its step ends.
                self.end_step(out);
                out.push(json!({
                    "type": "CUSTOM",
                    "name": HANDOFF,
                    "value": { "from": from, "to": to },
                }))
            }
        }
    }

    fn paused(&mut self, calls: &[PendingCall], state: &Value, out: &mut Vec<Value>) {
        self.close(out);
        for pending in calls {
            let call = &pending.call;
            if !self.open.contains(&call.id) && !self.ended.contains(&call.id) {
                self.start_call(&call.id, &call.name, out);
                if !call.arguments.is_empty() {
                    out.push(json!({ "type": "TOOL_CALL_ARGS", "toolCallId": call.id, "delta": call.arguments }));
                }
            }
        }
        self.end_calls(out);
        // A call that ran beside one that asked: its result stands.
        for pending in calls {
            if let Some(result) = &pending.result
                && self.results.insert(pending.call.id.clone())
            {
                let content: String = result.content.iter().filter_map(|b| b.as_text()).collect();
                out.push(json!({
                    "type": "TOOL_CALL_RESULT",
                    "messageId": format!("result-{}", pending.call.id),
                    "toolCallId": pending.call.id,
                    "content": content,
                    "role": "tool",
                }));
            }
        }
        self.end_step(out);
        self.state_delta(state, out);
        let external = |c: &&PendingCall| {
            c.question
                .as_ref()
                .is_some_and(|q| q.kind == QuestionKind::External)
        };
        let others: Vec<Value> = calls
            .iter()
            .filter_map(|c| match (&c.review, &c.question) {
                (Some(review), _) => Some(json!({
                    "id": c.call.id,
                    "reason": TOOL_APPROVAL,
                    "message": review.description,
                    "toolCallId": c.call.id,
                    "metadata": { "toolName": c.call.name, "allowed": review.allowed },
                })),
                (None, Some(question)) if question.kind == QuestionKind::Ask => Some(json!({
                    "id": c.call.id,
                    "reason": TOOL_QUESTION,
                    "message": format!("tool `{}` asks a question", c.call.name),
                    "toolCallId": c.call.id,
                    "metadata": { "toolName": c.call.name, "question": question.question },
                })),
                _ => None,
            })
            .collect();
        let external_ids: Vec<&str> = calls
            .iter()
            .filter(external)
            .map(|c| c.call.id.as_str())
            .collect();
        let outcome = if others.is_empty() && !external_ids.is_empty() {
            json!({ "type": "success", "pendingToolCallIds": external_ids })
        } else {
            let mut interrupts = others;
            interrupts.extend(calls.iter().filter(external).map(|c| {
                json!({
                    "id": c.call.id,
                    "reason": EXTERNAL_TOOL,
                    "message": format!("run tool `{}`", c.call.name),
                    "toolCallId": c.call.id,
                    "metadata": { "toolName": c.call.name, "arguments": input_of(&c.call.arguments) },
                })
            }));
            json!({ "type": "interrupt", "interrupts": interrupts })
        };
        out.push(json!({
            "type": "RUN_FINISHED",
            "threadId": self.thread_id,
            "runId": self.run_id,
            "outcome": outcome,
        }));
    }

    fn finished(&mut self, output: &Value, state: &Value, out: &mut Vec<Value>) {
        self.end_step(out);
        self.state_delta(state, out);
        let mut finished = json!({
            "type": "RUN_FINISHED",
            "threadId": self.thread_id,
            "runId": self.run_id,
            "outcome": { "type": "success" },
        });
        if !output.is_null() {
            finished["result"] = output.clone();
        }
        out.push(finished);
    }

    fn failed(&mut self, message: &str, out: &mut Vec<Value>) {
        self.end_step(out);
        out.push(json!({ "type": "RUN_ERROR", "message": message }));
    }

    fn end(&self) -> Option<&'static str> {
        None
    }
}
