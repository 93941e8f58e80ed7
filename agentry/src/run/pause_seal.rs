//! Sealed pauses: [`PauseKey`], and the HMAC-SHA256 seal over a pause's canonical JSON.

use std::fmt;

use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use super::pause::Pause;
use super::resume_error::ResumeError;

type HmacSha256 = Hmac<Sha256>;

/// What the MAC's input starts with, so a seal of a pause is never a valid MAC of anything
/// else made with the same key.
const DOMAIN: &[u8] = b"agentry pause seal, format 2\n";

/// The secret an agent seals its pauses with
/// ([`AgentBuilder::pause_key`](crate::agent::AgentBuilder::pause_key)).
///
/// A sealed pause carries an HMAC-SHA256 of the whole pause — format version, id, snapshot
/// (messages, state, usage, steps, counters), the paused answer, every call with its
/// review — but not of the seal itself. The MAC is over a canonical serialization: the
/// pause as JSON with object keys sorted and no whitespace, so a pause whose JSON was
/// re-indented or had its keys reordered (by a browser, a queue) still verifies, while any
/// changed value does not. The state must serialize the same after a round trip through
/// JSON (every derived `Serialize`/`Deserialize` pair does).
///
/// Not covered: the context (it is not in the pause), and a pause read back from a
/// thread's checkpointer by [`Thread::resume`](crate::agent::Thread::resume) (the thread's
/// storage is trusted like its history is). A seal says the pause is unchanged since this
/// agent's key sealed it; it does not make a pause single use (see
/// [`Pause`](super::Pause)).
///
/// Use 32 random bytes, kept like any other secret. The key never appears in `Debug` output:
///
/// ```
/// use agentry::agent::PauseKey;
///
/// let key = PauseKey::new(*b"0123456789abcdef0123456789abcdef");
/// assert_eq!(format!("{key:?}"), "PauseKey(<redacted>)");
/// ```
#[derive(Clone)]
pub struct PauseKey(Vec<u8>);

impl PauseKey {
    /// A key from secret bytes (32 random bytes; HMAC accepts any length).
    pub fn new(secret: impl Into<Vec<u8>>) -> Self {
        PauseKey(secret.into())
    }

    fn mac(&self, pause: &Value) -> HmacSha256 {
        // HMAC takes a key of any length.
        let mut mac = HmacSha256::new_from_slice(&self.0).unwrap_or_else(|_| unreachable!());
        mac.update(DOMAIN);
        let mut text = String::new();
        canonical(pause, &mut text);
        mac.update(text.as_bytes());
        mac
    }
}

impl fmt::Debug for PauseKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PauseKey(<redacted>)")
    }
}

impl Drop for PauseKey {
    fn drop(&mut self) {
        // Best effort: the bytes are overwritten before they are freed.
        self.0.iter_mut().for_each(|b| *b = 0);
    }
}

/// Serializes a pause for its seal (erased: the agent knows its state serializes only where
/// the key is set).
pub(crate) type PauseToJson<S> = fn(&Pause<S>) -> Result<Value, serde_json::Error>;

/// A key with the way to serialize the agent's pauses.
pub(crate) struct Sealer<S> {
    pub(crate) key: PauseKey,
    pub(crate) to_json: PauseToJson<S>,
}

impl<S> Sealer<S> {
    /// The pause's JSON without its seal.
    fn unsealed(&self, pause: &Pause<S>) -> Result<Value, serde_json::Error> {
        let mut value = (self.to_json)(pause)?;
        if let Value::Object(doc) = &mut value {
            doc.remove("seal");
        }
        Ok(value)
    }

    /// Seals `pause` (replacing any seal).
    pub(crate) fn seal(&self, pause: &mut Pause<S>) -> Result<(), serde_json::Error> {
        let value = self.unsealed(pause)?;
        let tag = self.key.mac(&value).finalize().into_bytes();
        pause.seal = Some(hex(&tag));
        Ok(())
    }

    /// Checks `pause`'s seal, in constant time.
    pub(crate) fn verify(&self, pause: &Pause<S>) -> Result<(), ResumeError> {
        let seal = pause.seal.as_deref().ok_or(ResumeError::Unsealed)?;
        let tag = unhex(seal).ok_or(ResumeError::BadSeal)?;
        let value = self.unsealed(pause).map_err(|_| ResumeError::BadSeal)?;
        self.key
            .mac(&value)
            .verify_slice(&tag)
            .map_err(|_| ResumeError::BadSeal)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

/// `value` as JSON with object keys sorted and no whitespace.
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                canonical(value, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_json_sorts_keys_at_every_depth() {
        let a = json!({"b": [{"y": 1, "x": "é"}], "a": null});
        let mut text = String::new();
        canonical(&a, &mut text);
        assert_eq!(text, r#"{"a":null,"b":[{"x":"é","y":1}]}"#);
    }

    #[test]
    fn hex_round_trips_and_refuses_bad_text() {
        assert_eq!(unhex(&hex(&[0, 15, 255])), Some(vec![0, 15, 255]));
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex("zz"), None);
        assert_eq!(unhex("é1"), None);
    }
}
