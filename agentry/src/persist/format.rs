//! The versioned serialized form of a checkpoint, and how older versions are read.
//!
//! Every backend stores a checkpoint's non-message fields as one JSON *body* tagged with the
//! format version it was written in; messages are stored one per row, as the crate's
//! [`Message`] JSON. [`Checkpoint::to_json`] and [`Checkpoint::from_json`] give the whole
//! checkpoint as one self-describing document (export, import, fixtures).
//!
//! ## Versions
//!
//! - **1**: `state`, `usage` and `turns` (the loop's only counter). No pauses.
//! - **2** (current): `state`, `usage`, `counters` (a JSON object of the loop's counters) and
//!   `pending` (a serialized pause, or null).
//!
//! `pending` is a serialized [`Pause`](crate::agent::Pause) in the pause's own format
//! ([`PAUSE_FORMAT_VERSION`](crate::agent::PAUSE_FORMAT_VERSION)), without its messages (the
//! checkpoint holds them); a pause of an older format is upgraded when the thread reads it.
//!
//! Reading upgrades step by step: a version-1 body becomes version 2 with
//! `counters = {"turns": turns}` and no pending pause. A version newer than
//! [`FORMAT_VERSION`] is refused with [`PersistError::UnsupportedFormat`].

// Without a database backend, some encoders have no user.
#![cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]

use std::time::SystemTime;

use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::lease::{from_ms, to_ms};
use super::{Checkpoint, CheckpointRef, PersistError};
use crate::message::Message;
use crate::usage::Usage;

/// The format version this library writes.
pub const FORMAT_VERSION: u32 = 2;

/// The current (version 2) body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Body {
    pub state: Value,
    #[serde(default)]
    pub usage: Usage,
    #[serde(default)]
    pub counters: Value,
    #[serde(default)]
    pub pending: Option<Value>,
}

/// The version 1 body.
#[derive(Deserialize)]
struct BodyV1 {
    state: Value,
    #[serde(default)]
    usage: Usage,
    #[serde(default)]
    turns: u64,
}

impl From<BodyV1> for Body {
    fn from(v1: BodyV1) -> Body {
        Body {
            state: v1.state,
            usage: v1.usage,
            counters: serde_json::json!({ "turns": v1.turns }),
            pending: None,
        }
    }
}

/// The body as the current version writes it, borrowing the writer's values.
#[derive(Serialize)]
struct BodyRef<'a> {
    state: &'a Value,
    usage: Usage,
    counters: &'a Value,
    pending: Option<&'a Value>,
}

pub(crate) fn encode_body(
    state: &Value,
    usage: Usage,
    counters: &Value,
    pending: Option<&Value>,
) -> String {
    let body = BodyRef {
        state,
        usage,
        counters,
        pending,
    };
    // Serializing `Value`s and plain structs into a String cannot fail.
    serde_json::to_string(&body).unwrap_or_default()
}

/// Reads a body written in `version`, upgrading it to the current one.
pub(crate) fn decode_body<'de, D>(version: u32, body: D) -> Result<Body, PersistError>
where
    D: Deserializer<'de>,
    D::Error: std::error::Error + Send + Sync + 'static,
{
    fn read<'de, T: Deserialize<'de>, D: Deserializer<'de>>(d: D) -> Result<T, PersistError>
    where
        D::Error: std::error::Error + Send + Sync + 'static,
    {
        T::deserialize(d).map_err(|e| PersistError::corrupt_by("checkpoint body", e))
    }
    match version {
        1 => read::<BodyV1, _>(body).map(Body::from),
        2 => read::<Body, _>(body),
        found => Err(PersistError::UnsupportedFormat {
            found,
            newest: FORMAT_VERSION,
        }),
    }
}

pub(crate) fn decode_body_str(version: u32, text: &str) -> Result<Body, PersistError> {
    let mut de = serde_json::Deserializer::from_str(text);
    decode_body(version, &mut de)
}

/// Messages stored as a JSON array of their rows, in order.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn decode_messages(array: &str) -> Result<Vec<Message>, PersistError> {
    serde_json::from_str(array).map_err(|e| PersistError::corrupt_by("messages", e))
}

#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub(crate) fn encode_message(message: &Message) -> String {
    serde_json::to_string(message).unwrap_or_default()
}

pub(crate) fn checkpoint_from_body(
    thread_id: String,
    step: u64,
    parent: Option<CheckpointRef>,
    format_version: u32,
    messages: Vec<Message>,
    body: Body,
    created_at: SystemTime,
) -> Checkpoint {
    Checkpoint {
        thread_id,
        step,
        parent,
        format_version,
        messages,
        state: body.state,
        usage: body.usage,
        counters: body.counters,
        pending: body.pending,
        created_at,
    }
}

fn take<T: DeserializeOwned>(
    doc: &mut Map<String, Value>,
    field: &'static str,
) -> Result<T, PersistError> {
    let value = doc.remove(field).unwrap_or(Value::Null);
    serde_json::from_value(value).map_err(|e| PersistError::Corrupt {
        thread_id: None,
        what: "checkpoint document",
        reason: format!("field `{field}`: {e}"),
        source: Some(Box::new(e)),
    })
}

impl Checkpoint {
    /// The checkpoint as one JSON document in the current format (version
    /// [`FORMAT_VERSION`]), messages included.
    pub fn to_json(&self) -> Value {
        let mut doc = Map::new();
        doc.insert("format_version".into(), FORMAT_VERSION.into());
        doc.insert("thread_id".into(), self.thread_id.clone().into());
        doc.insert("step".into(), self.step.into());
        doc.insert(
            "parent".into(),
            serde_json::to_value(&self.parent).unwrap_or(Value::Null),
        );
        doc.insert("created_at_ms".into(), to_ms(self.created_at).into());
        doc.insert(
            "messages".into(),
            serde_json::to_value(&self.messages).unwrap_or(Value::Null),
        );
        doc.insert("state".into(), self.state.clone());
        doc.insert(
            "usage".into(),
            serde_json::to_value(self.usage).unwrap_or(Value::Null),
        );
        doc.insert("counters".into(), self.counters.clone());
        doc.insert(
            "pending".into(),
            self.pending.clone().unwrap_or(Value::Null),
        );
        Value::Object(doc)
    }

    /// Reads a checkpoint document written by [`to_json`](Self::to_json) in this or any
    /// earlier format version, upgrading it (see the [module docs](self)).
    pub fn from_json(document: &Value) -> Result<Checkpoint, PersistError> {
        let Value::Object(doc) = document else {
            return Err(PersistError::corrupt(
                "checkpoint document",
                "not a JSON object",
            ));
        };
        let mut doc = doc.clone();
        let format_version: u32 = take(&mut doc, "format_version")?;
        let thread_id: String = take(&mut doc, "thread_id")?;
        let step: u64 = take(&mut doc, "step")?;
        let parent: Option<CheckpointRef> = take(&mut doc, "parent")?;
        let created_at_ms: i64 = take(&mut doc, "created_at_ms")?;
        let messages: Vec<Message> = take(&mut doc, "messages")?;
        let body = decode_body(format_version, Value::Object(doc))?;
        Ok(checkpoint_from_body(
            thread_id,
            step,
            parent,
            format_version,
            messages,
            body,
            from_ms(created_at_ms),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_version_1_body_gains_counters_and_no_pause() {
        let body = decode_body_str(1, r#"{"state":{"n":1},"turns":4}"#).unwrap();
        assert_eq!(body.counters, json!({"turns": 4}));
        assert_eq!(body.pending, None);
        assert_eq!(body.state, json!({"n": 1}));
    }

    #[test]
    fn a_newer_version_is_refused_with_the_versions() {
        let err = decode_body_str(3, "{}").unwrap_err();
        assert!(matches!(
            err,
            PersistError::UnsupportedFormat {
                found: 3,
                newest: 2
            }
        ));
        assert!(err.to_string().contains("upgrade agentry"), "{err}");
    }

    #[test]
    fn a_current_body_round_trips() {
        let pending = json!({"calls": ["c1"]});
        let text = encode_body(
            &json!({"a": [1, 2]}),
            Usage {
                requests: 2,
                ..Usage::default()
            },
            &json!({"turns": 2}),
            Some(&pending),
        );
        let body = decode_body_str(FORMAT_VERSION, &text).unwrap();
        assert_eq!(body.pending, Some(pending));
        assert_eq!(body.usage.requests, 2);
    }

    #[test]
    fn a_corrupt_body_is_a_typed_error() {
        let err = decode_body_str(2, "{not json").unwrap_err();
        assert!(matches!(err, PersistError::Corrupt { .. }), "{err:?}");
    }

    /// serde's error, downcast from the source of `err`.
    fn serde_source(err: &PersistError) -> &serde_json::Error {
        std::error::Error::source(err)
            .and_then(|e| e.downcast_ref::<serde_json::Error>())
            .unwrap_or_else(|| panic!("no serde error as the source of {err:?}"))
    }

    #[test]
    fn a_corrupt_body_or_message_list_keeps_serdes_error() {
        let err = decode_body_str(2, "{not json").unwrap_err();
        assert!(serde_source(&err).is_syntax());
        let err = decode_body_str(2, r#"{"state": 1, "usage": "many"}"#).unwrap_err();
        assert!(serde_source(&err).is_data());
        let err = decode_messages(r#"[{"role": 7}]"#).unwrap_err();
        assert!(serde_source(&err).is_data());
    }
}
