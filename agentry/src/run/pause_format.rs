//! The serialized form of a [`Pause`], and how a format-1 pause is read.
//!
//! Format 2 holds each call once:
//!
//! ```json
//! {
//!   "format_version": 2,
//!   "id": null,
//!   "snapshot": { "messages": [], "state": null, "usage": {}, "request_usage": [], "steps": [], "counters": {} },
//!   "answer": { "turn": 1, "response": { "message": {}, "usage": {}, "finish_reason": "tool_calls", "model": "m" } },
//!   "calls": [
//!     { "call": { "id": "e1", "name": "send_email", "arguments": "{\"to\":\"bob\"}" },
//!       "review": { "description": "Send an email to bob", "allowed": ["approve", "reject"] } },
//!     { "call": { "id": "s1", "name": "search", "arguments": "{\"query\":\"x\"}" }, "review": null }
//!   ],
//!   "seal": null
//! }
//! ```
//!
//! Format 3 (current) is format 2 where a call may also hold the `question` it stopped at
//! (`{ "question": .., "answered": [..], "kind": "ask" | "external" }`) or the `result` (a
//! tool message) it had before the run paused; both are left out when absent, so a pause
//! without them is written as format 2 would write it. A format-2 pause is read as it is
//! (keeping `format_version: 2`, which its seal covers); one holding either field does not
//! deserialize.
//!
//! A pause whose `answer.response.message.tool_calls` is not empty does not deserialize: a
//! second copy of the calls is not read, and not silently dropped either.
//!
//! Reading a format-1 pause upgrades it: its calls are taken from `calls`, after checking
//! that its copies (the answer's calls, each call's parsed `arguments`, each review's
//! `call_id` and `tool`) agree; a format-1 pause whose copies disagree does not deserialize.
//! A pause of a newer format than [`PAUSE_FORMAT_VERSION`](super::PAUSE_FORMAT_VERSION) is read as far as it fits the
//! current shape, and [`Agent::resume`](crate::agent::Agent::resume) refuses it with
//! [`ResumeError::Version`](super::ResumeError::Version).

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::pause::{OLDEST_READ_FORMAT, Pause, PausedAnswer, PendingCall};
use super::review::{Allowed, ReviewRequest};
use super::snapshot::RunSnapshot;
use crate::message::{ToolCall, ToolResultMessage};
use crate::tool::Question;

/// A review as written: the call and tool are the pending call's.
#[derive(Serialize, Deserialize)]
struct ReviewWire<D> {
    description: D,
    allowed: Allowed,
}

#[derive(Serialize)]
struct PendingCallRef<'a> {
    call: &'a ToolCall,
    review: Option<ReviewWire<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    question: Option<&'a Question>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a ToolResultMessage>,
}

#[derive(Deserialize)]
struct PendingCallWire {
    call: ToolCall,
    review: Option<ReviewWire<String>>,
    #[serde(default)]
    question: Option<Question>,
    #[serde(default)]
    result: Option<ToolResultMessage>,
}

impl Serialize for PendingCall {
    fn serialize<Ser: Serializer>(&self, s: Ser) -> Result<Ser::Ok, Ser::Error> {
        PendingCallRef {
            call: &self.call,
            review: self.review.as_ref().map(|r| ReviewWire {
                description: r.description.as_str(),
                allowed: r.allowed,
            }),
            question: self.question.as_ref(),
            result: self.result.as_ref(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for PendingCall {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let wire = PendingCallWire::deserialize(d)?;
        let review = wire.review.map(|r| ReviewRequest {
            call_id: wire.call.id.clone(),
            tool: wire.call.name.clone(),
            description: r.description,
            allowed: r.allowed,
        });
        if let Some(result) = &wire.result
            && result.call_id != wire.call.id
        {
            return Err(D::Error::custom(format!(
                "call `{}`: its saved result answers call `{}`",
                wire.call.id, result.call_id
            )));
        }
        Ok(PendingCall {
            call: wire.call,
            review,
            question: wire.question,
            result: wire.result,
        })
    }
}

/// The current format, as read.
#[derive(Deserialize)]
struct PauseWire<S> {
    format_version: u32,
    #[serde(default)]
    id: Option<String>,
    snapshot: RunSnapshot<S>,
    answer: PausedAnswer,
    calls: Vec<PendingCall>,
    #[serde(default)]
    seal: Option<String>,
}

impl<'de, S: DeserializeOwned> Deserialize<'de> for Pause<S> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut doc = match Value::deserialize(d)? {
            Value::Object(doc) => doc,
            _ => return Err(D::Error::custom("a pause is a JSON object")),
        };
        let version = doc
            .get("format_version")
            .and_then(Value::as_u64)
            .ok_or_else(|| D::Error::custom("a pause has a numeric `format_version`"))?;
        if version == 1 {
            upgrade_v1(&mut doc).map_err(D::Error::custom)?;
        }
        if version <= 2 {
            let holds_v3 = doc
                .get("calls")
                .and_then(Value::as_array)
                .is_some_and(|calls| {
                    calls
                        .iter()
                        .any(|c| c.get("question").is_some() || c.get("result").is_some())
                });
            if holds_v3 {
                return Err(D::Error::custom(
                    "a format-2 pause holds no questions or saved results: those are format 3",
                ));
            }
        }
        let has_calls = doc
            .get("answer")
            .and_then(|a| a.pointer("/response/message/tool_calls"))
            .and_then(Value::as_array)
            .is_some_and(|calls| !calls.is_empty());
        if has_calls {
            return Err(D::Error::custom(
                "the paused answer holds tool calls: in a pause, the calls are in `calls` only",
            ));
        }
        let wire: PauseWire<S> =
            serde_json::from_value(Value::Object(doc)).map_err(D::Error::custom)?;
        Ok(Pause {
            format_version: wire.format_version,
            id: wire.id,
            snapshot: wire.snapshot,
            answer: wire.answer,
            calls: wire.calls,
            seal: wire.seal,
        })
    }
}

/// Rewrites a format-1 pause document as format 2, refusing one whose copies disagree.
fn upgrade_v1(doc: &mut Map<String, Value>) -> Result<(), String> {
    let answer_calls: Vec<ToolCall> = doc
        .get_mut("answer")
        .and_then(|a| a.pointer_mut("/response/message"))
        .and_then(Value::as_object_mut)
        .and_then(|m| m.remove("tool_calls"))
        .map(serde_json::from_value)
        .transpose()
        .map_err(|e| format!("format-1 pause: the answer's calls: {e}"))?
        .unwrap_or_default();
    let Some(Value::Array(calls)) = doc.remove("calls") else {
        return Err("format-1 pause: no `calls`".to_string());
    };
    if calls.len() != answer_calls.len() {
        return Err(format!(
            "format-1 pause: {} calls in `calls`, {} in the answer",
            calls.len(),
            answer_calls.len()
        ));
    }
    let mut upgraded = Vec::with_capacity(calls.len());
    for (pending, in_answer) in calls.into_iter().zip(&answer_calls) {
        let disagree = |what: &str| {
            format!(
                "format-1 pause: call `{}`: {what} disagrees with the answer's call",
                in_answer.id
            )
        };
        let Value::Object(mut pending) = pending else {
            return Err("format-1 pause: a call is not an object".to_string());
        };
        let call: ToolCall = serde_json::from_value(pending.remove("call").unwrap_or_default())
            .map_err(|e| format!("format-1 pause: a call: {e}"))?;
        if call != *in_answer {
            return Err(disagree("`call`"));
        }
        let parsed = serde_json::from_str(call.arguments.trim()).unwrap_or(Value::Null);
        if pending.remove("arguments").unwrap_or_default() != parsed {
            return Err(disagree("`arguments`"));
        }
        let review = match pending.remove("review").unwrap_or_default() {
            Value::Null => Value::Null,
            review => {
                let review: ReviewRequest = serde_json::from_value(review)
                    .map_err(|e| format!("format-1 pause: a review: {e}"))?;
                if review.call_id != call.id || review.tool != call.name {
                    return Err(disagree("the review's `call_id` or `tool`"));
                }
                serde_json::json!({ "description": review.description, "allowed": review.allowed })
            }
        };
        upgraded.push(serde_json::json!({ "call": call, "review": review }));
    }
    doc.insert("calls".into(), Value::Array(upgraded));
    doc.insert("format_version".into(), OLDEST_READ_FORMAT.into());
    doc.insert("id".into(), Value::Null);
    doc.insert("seal".into(), Value::Null);
    Ok(())
}
