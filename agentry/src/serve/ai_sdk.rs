//! The Vercel AI SDK's UI message stream protocol (`x-vercel-ai-ui-message-stream: v1`): a run
//! as the chunks `useChat` reads.
//!
//! A run is one assistant message: `start`, then per model request `start-step` ...
//! `finish-step`, holding `text-*`, `reasoning-*` and `tool-input-*` / `tool-output-*` parts;
//! a tool's events as `data-event` parts; then `data-output` (the typed output) and
//! `data-state` (the typed state), `finish`, and `[DONE]`. A pause for review sends one
//! `tool-approval-request` per reviewed call (its `approvalId` is the call id) and finishes
//! with reason `tool-calls`; a call the reviewer rejected ends as `tool-output-denied`. A
//! pause at a tool's question sends a `data-question` part per question; a call of an
//! external tool is left at `tool-input-available` for the client to run (a client-side
//! tool). A team's handoff is a `data-handoff` part `{"from", "to"}`. A failure sends
//! `error`.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use super::event::{Encoder, Event, input_of, result_text};
use crate::message::ToolCall;
use crate::run::PendingCall;
use crate::tool::QuestionKind;

/// The headers of a UI message stream response.
pub(crate) const HEADERS: [(&str, &str); 4] = [
    ("content-type", "text/event-stream"),
    ("cache-control", "no-cache"),
    ("x-vercel-ai-ui-message-stream", "v1"),
    ("x-accel-buffering", "no"),
];

/// The AI SDK encoder of one response.
#[derive(Default)]
pub(crate) struct AiSdk {
    /// The id of the open text part.
    text: Option<String>,
    /// The id of the open reasoning part.
    reasoning: Option<String>,
    /// Parts made so far (for unique ids).
    parts: u32,
    /// Whether a step is open.
    step: bool,
    /// The calls of the current answer by stream index.
    calls: HashMap<usize, String>,
    /// Calls whose `tool-input-start` was sent.
    started: HashSet<String>,
    /// Calls whose `tool-input-available` was sent.
    available: HashSet<String>,
    /// Calls whose output was sent.
    output: HashSet<String>,
    /// Calls the reviewer rejected.
    rejected: HashSet<String>,
}

/// The `data-question` part of a call that stopped at a tool's question.
pub(crate) fn question_part(call: &ToolCall, question: &Value) -> Value {
    json!({
        "type": "data-question",
        "id": format!("question-{}", call.id),
        "data": { "toolCallId": call.id, "tool": call.name, "question": question },
    })
}

impl AiSdk {
    fn close(&mut self, out: &mut Vec<Value>) {
        if let Some(id) = self.text.take() {
            out.push(json!({ "type": "text-end", "id": id }));
        }
        if let Some(id) = self.reasoning.take() {
            out.push(json!({ "type": "reasoning-end", "id": id }));
        }
    }

    fn next_id(&mut self, kind: &str) -> String {
        self.parts += 1;
        format!("{kind}-{}", self.parts)
    }

    fn end_step(&mut self, out: &mut Vec<Value>) {
        self.close(out);
        if std::mem::take(&mut self.step) {
            out.push(json!({ "type": "finish-step" }));
        }
    }

    fn open_step(&mut self, out: &mut Vec<Value>) {
        if !self.step {
            self.step = true;
            out.push(json!({ "type": "start-step" }));
        }
    }

    fn input_available(&mut self, id: &str, name: &str, arguments: &str, out: &mut Vec<Value>) {
        if self.started.insert(id.to_owned()) {
            out.push(json!({ "type": "tool-input-start", "toolCallId": id, "toolName": name }));
        }
        if self.available.insert(id.to_owned()) {
            out.push(json!({
                "type": "tool-input-available",
                "toolCallId": id,
                "toolName": name,
                "input": input_of(arguments),
            }));
        }
    }
}

impl Encoder for AiSdk {
    const NEEDS_STATE: bool = false;

    fn start(&mut self, _state: &Value, out: &mut Vec<Value>) {
        out.push(json!({ "type": "start" }));
    }

    fn resumed(&mut self, calls: &[String], ran: &[String], rejected: &[String]) {
        self.started.extend(calls.iter().cloned());
        self.available.extend(calls.iter().cloned());
        self.output.extend(ran.iter().cloned());
        self.rejected.extend(rejected.iter().cloned());
    }

    fn event(&mut self, event: Event<'_>, out: &mut Vec<Value>) {
        match event {
            Event::Turn(_) => {
                self.end_step(out);
                self.calls.clear();
                self.open_step(out);
            }
            Event::Text(delta) => {
                if delta.is_empty() {
                    return;
                }
                self.open_step(out);
                if let Some(id) = self.reasoning.take() {
                    out.push(json!({ "type": "reasoning-end", "id": id }));
                }
                let id = match &self.text {
                    Some(id) => id.clone(),
                    None => {
                        let id = self.next_id("text");
                        out.push(json!({ "type": "text-start", "id": id }));
                        self.text = Some(id.clone());
                        id
                    }
                };
                out.push(json!({ "type": "text-delta", "id": id, "delta": delta }));
            }
            Event::Reasoning(delta) => {
                if delta.is_empty() {
                    return;
                }
                self.open_step(out);
                if let Some(id) = self.text.take() {
                    out.push(json!({ "type": "text-end", "id": id }));
                }
                let id = match &self.reasoning {
                    Some(id) => id.clone(),
                    None => {
                        let id = self.next_id("reasoning");
                        out.push(json!({ "type": "reasoning-start", "id": id }));
                        self.reasoning = Some(id.clone());
                        id
                    }
                };
                out.push(json!({ "type": "reasoning-delta", "id": id, "delta": delta }));
            }
            Event::CallStart { index, id, name } => {
                self.open_step(out);
                self.close(out);
                if self.available.contains(id) {
                    return;
                }
                self.calls.insert(index, id.to_owned());
                if self.started.insert(id.to_owned()) {
                    out.push(
                        json!({ "type": "tool-input-start", "toolCallId": id, "toolName": name }),
                    );
                }
            }
            Event::CallArgs { index, delta } => {
                if let Some(id) = self.calls.get(&index)
                    && !delta.is_empty()
                {
                    out.push(json!({
                        "type": "tool-input-delta",
                        "toolCallId": id,
                        "inputTextDelta": delta,
                    }));
                }
            }
            Event::Answer(message) => {
                self.open_step(out);
                self.close(out);
                for call in &message.tool_calls {
                    self.input_available(&call.id, &call.name, &call.arguments, out);
                }
            }
            Event::Result(step) => {
                self.close(out);
                if !self.output.insert(step.call.id.clone()) {
                    return;
                }
                if self.rejected.contains(&step.call.id) {
                    out.push(json!({ "type": "tool-output-denied", "toolCallId": step.call.id }));
                    return;
                }
                out.push(match result_text(step) {
                    Ok(text) => json!({
                        "type": "tool-output-available",
                        "toolCallId": step.call.id,
                        "output": text,
                    }),
                    Err(error) => json!({
                        "type": "tool-output-error",
                        "toolCallId": step.call.id,
                        "errorText": error,
                    }),
                });
            }
            Event::Custom(custom) => out.push(json!({
                "type": "data-event",
                "data": { "toolCallId": custom.call_id, "data": custom.data },
            })),
            Event::Handoff { from, to } => out.push(json!({
                "type": "data-handoff",
                "data": { "from": from, "to": to },
            })),
        }
    }

    fn paused(&mut self, calls: &[PendingCall], state: &Value, out: &mut Vec<Value>) {
        self.open_step(out);
        self.close(out);
        for pending in calls {
            let call = &pending.call;
            self.input_available(&call.id, &call.name, &call.arguments, out);
        }
        for pending in calls {
            let id = &pending.call.id;
            if pending.review.is_some() {
                out.push(json!({
                    "type": "tool-approval-request",
                    "approvalId": id,
                    "toolCallId": id,
                }));
            }
            // A call that ran beside one that asked: its result stands.
            if let Some(result) = &pending.result
                && self.output.insert(id.clone())
            {
                let text: String = result.content.iter().filter_map(|b| b.as_text()).collect();
                out.push(match result.is_error {
                    false => {
                        json!({ "type": "tool-output-available", "toolCallId": id, "output": text })
                    }
                    true => {
                        json!({ "type": "tool-output-error", "toolCallId": id, "errorText": text })
                    }
                });
            }
            // An external tool's call waits at `tool-input-available` for the client.
            if let Some(question) = &pending.question
                && question.kind == QuestionKind::Ask
            {
                out.push(question_part(&pending.call, &question.question));
            }
        }
        self.end_step(out);
        if !state.is_null() {
            out.push(json!({ "type": "data-state", "data": state }));
        }
        out.push(json!({ "type": "finish", "finishReason": "tool-calls" }));
    }

    fn finished(&mut self, output: &Value, state: &Value, out: &mut Vec<Value>) {
        self.end_step(out);
        out.push(json!({ "type": "data-output", "data": output }));
        if !state.is_null() {
            out.push(json!({ "type": "data-state", "data": state }));
        }
        out.push(json!({ "type": "finish", "finishReason": "stop" }));
    }

    fn failed(&mut self, message: &str, out: &mut Vec<Value>) {
        self.end_step(out);
        out.push(json!({ "type": "error", "errorText": message }));
        out.push(json!({ "type": "finish", "finishReason": "error" }));
    }

    fn end(&self) -> Option<&'static str> {
        Some("[DONE]")
    }
}
