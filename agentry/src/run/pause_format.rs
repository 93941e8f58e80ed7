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
//! (keeping `format_version: 2`, which its seal covers); a format-1 or format-2 pause holding
//! either field (even as `null`) does not deserialize.
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
//!
//! Every format is read in one typed pass, with no `serde_json::Value` tree of the document
//! in between: format 1's extra copies are optional fields of the structs it is read into,
//! checked against the calls once read. A pause costs what serde costs for what it holds.

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

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
        pending_call(
            wire.call,
            wire.review.map(|r| (r.description, r.allowed)),
            wire.question,
            wire.result,
        )
        .map_err(D::Error::custom)
    }
}

/// A pending call from its parts as written: its review names the call and its tool, and a
/// saved result must answer this call.
fn pending_call(
    call: ToolCall,
    review: Option<(String, Allowed)>,
    question: Option<Question>,
    result: Option<ToolResultMessage>,
) -> Result<PendingCall, String> {
    if let Some(result) = &result
        && result.call_id != call.id
    {
        return Err(format!(
            "call `{}`: its saved result answers call `{}`",
            call.id, result.call_id
        ));
    }
    let review = review.map(|(description, allowed)| ReviewRequest {
        call_id: call.id.clone(),
        tool: call.name.clone(),
        description,
        allowed,
    });
    Ok(PendingCall {
        call,
        review,
        question,
        result,
    })
}

/// A call as read, in any format: format 1's copies (`arguments`, the review's `call_id` and
/// `tool`) are read beside it and checked against it; `question` and `result` are `Some`
/// when their key is present (even as `null`), so a format-2 pause holding them is refused.
#[derive(Deserialize)]
struct CallWire {
    call: ToolCall,
    review: Option<ReviewAnyWire>,
    #[serde(default, deserialize_with = "present")]
    question: Option<Option<Question>>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Option<ToolResultMessage>>,
    /// Format 1: the arguments, parsed.
    #[serde(default)]
    arguments: Option<Value>,
}

/// A review as read, in any format (format 1 names its call and tool again).
#[derive(Deserialize)]
struct ReviewAnyWire {
    description: String,
    allowed: Allowed,
    #[serde(default)]
    call_id: Option<String>,
    #[serde(default)]
    tool: Option<String>,
}

/// `Some` for a key that is present, whatever its value.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// A pause as read, in any format: one typed pass over the document, no tree of it.
#[derive(Deserialize)]
struct PauseWire<S> {
    format_version: u32,
    #[serde(default)]
    id: Option<String>,
    snapshot: RunSnapshot<S>,
    answer: PausedAnswer,
    calls: Vec<CallWire>,
    #[serde(default)]
    seal: Option<String>,
}

impl<'de, S: DeserializeOwned> Deserialize<'de> for Pause<S> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut wire = PauseWire::<S>::deserialize(d)?;
        if wire.format_version <= 2
            && wire
                .calls
                .iter()
                .any(|c| c.question.is_some() || c.result.is_some())
        {
            return Err(D::Error::custom(
                "a format-2 pause holds no questions or saved results: those are format 3",
            ));
        }
        if wire.format_version == 1 {
            upgrade_v1(&mut wire).map_err(D::Error::custom)?;
        } else if !wire.answer.response.message.tool_calls.is_empty() {
            return Err(D::Error::custom(
                "the paused answer holds tool calls: in a pause, the calls are in `calls` only",
            ));
        }
        let calls = wire
            .calls
            .into_iter()
            .map(|c| {
                pending_call(
                    c.call,
                    c.review.map(|r| (r.description, r.allowed)),
                    c.question.flatten(),
                    c.result.flatten(),
                )
            })
            .collect::<Result<_, _>>()
            .map_err(D::Error::custom)?;
        Ok(Pause {
            format_version: wire.format_version,
            id: wire.id,
            snapshot: wire.snapshot,
            answer: wire.answer,
            calls,
            seal: wire.seal,
        })
    }
}

/// Turns a format-1 pause into format 2, refusing one whose copies disagree: its calls are
/// taken from `calls` once each copy (the answer's calls, each call's parsed `arguments`,
/// each review's `call_id` and `tool`) is checked against them.
fn upgrade_v1<S>(wire: &mut PauseWire<S>) -> Result<(), String> {
    let answer_calls = std::mem::take(&mut wire.answer.response.message.tool_calls);
    if wire.calls.len() != answer_calls.len() {
        return Err(format!(
            "format-1 pause: {} calls in `calls`, {} in the answer",
            wire.calls.len(),
            answer_calls.len()
        ));
    }
    for (pending, in_answer) in wire.calls.iter_mut().zip(&answer_calls) {
        let disagree = |what: &str| {
            format!(
                "format-1 pause: call `{}`: {what} disagrees with the answer's call",
                in_answer.id
            )
        };
        if pending.call != *in_answer {
            return Err(disagree("`call`"));
        }
        let parsed = serde_json::from_str(pending.call.arguments.trim()).unwrap_or(Value::Null);
        if pending.arguments.take().unwrap_or_default() != parsed {
            return Err(disagree("`arguments`"));
        }
        if let Some(review) = &pending.review {
            let (Some(call_id), Some(tool)) = (&review.call_id, &review.tool) else {
                return Err("format-1 pause: a review without its `call_id` and `tool`".into());
            };
            if *call_id != pending.call.id || *tool != pending.call.name {
                return Err(disagree("the review's `call_id` or `tool`"));
            }
        }
    }
    wire.format_version = OLDEST_READ_FORMAT;
    wire.id = None;
    wire.seal = None;
    Ok(())
}
