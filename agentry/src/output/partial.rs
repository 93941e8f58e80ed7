//! An incremental JSON parser for streamed answers: the value so far after every delta.
//!
//! [`PartialJson`] is a state machine that keeps its state between deltas: each byte is
//! looked at once, strings are appended in place, and the partial value is built where it
//! will stay, so the total work is linear in the bytes received (nothing is re-parsed).

use std::sync::Arc;

use serde_json::Value;

mod escape;
mod scalar;
mod tree;

/// Invalid JSON in a stream.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid JSON at byte {offset}: {message}")]
pub struct PartialError {
    /// Bytes of JSON consumed before the error (prose skipped before the value included).
    pub offset: usize,
    /// What was expected.
    pub message: String,
}

/// An incremental JSON parser.
///
/// Feed it text as it arrives with [`push`](Self::push); [`value`](Self::value) is the value
/// so far: open objects and arrays hold the members seen so far, a string being received
/// holds its characters so far, and numbers and `true`/`false`/`null` appear once complete.
///
/// ```
/// use agentry::output::PartialJson;
/// use serde_json::json;
///
/// let mut p = PartialJson::new();
/// p.push(r#"{"title": "The Ma"#).unwrap();
/// assert_eq!(p.value(), Some(&json!({"title": "The Ma"})));
/// p.push(r#"trix", "year": 19"#).unwrap();
/// assert_eq!(p.value(), Some(&json!({"title": "The Matrix"})));
/// p.push("99}").unwrap();
/// assert_eq!(p.finish().unwrap(), json!({"title": "The Matrix", "year": 1999}));
/// ```
#[derive(Debug)]
pub struct PartialJson {
    /// Shared with the [`shared`](PartialJson::shared) handles given out: written in place
    /// while no handle is alive (copy-on-write otherwise).
    root: Option<Arc<Value>>,
    /// From the root, how to reach each open container below it (`path.len() + 1` open
    /// containers when the root is an open container).
    path: Vec<Seg>,
    /// Kinds of the open containers, root first.
    open: Vec<Kind>,
    state: State,
    /// A number or literal being read, or an object key being read.
    token: String,
    /// The key of the member being read in the innermost object.
    key: Option<String>,
    escape: Escape,
    /// A high surrogate waiting for its low half.
    high_surrogate: Option<u16>,
    skip_prose: bool,
    offset: usize,
    /// Text other than whitespace was skipped before the value.
    prose: bool,
    /// Text other than whitespace came after the value (skipped when skipping prose).
    trailing: bool,
    /// The most containers open at once.
    deepest: usize,
}

/// The deepest nesting [`PartialJson::whole`] vouches for: well under serde_json's recursion
/// limit (128), which a text nested deeper fails on.
const WHOLE_MAX_DEPTH: usize = 64;

#[derive(Clone, Debug)]
enum Seg {
    Index(usize),
    Key(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Array,
    Object,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Text before the value, skipped (for answers with leading prose).
    Prose,
    /// A value is expected.
    Value,
    /// Just after `[`: a value or `]`.
    ArrayFirst,
    /// Just after `{`: a key or `}`.
    ObjectFirst,
    /// After `,` in an object: a key.
    ObjectKey,
    /// Reading a key.
    Key,
    /// After a key: `:`.
    Colon,
    /// Reading a string value.
    Str,
    /// Reading a number or literal.
    Scalar,
    /// After a value: `,`, a closing bracket, or the end.
    After,
    /// The root value is complete; the rest is ignored.
    Done,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Escape {
    None,
    Backslash,
    Unicode { digits: u8, code: u16 },
}

impl Default for PartialJson {
    fn default() -> Self {
        PartialJson::new()
    }
}

impl PartialJson {
    /// A parser for a text that is JSON from its first byte (whitespace aside).
    pub fn new() -> Self {
        PartialJson {
            root: None,
            path: Vec::new(),
            open: Vec::new(),
            state: State::Value,
            token: String::new(),
            key: None,
            escape: Escape::None,
            high_surrogate: None,
            skip_prose: false,
            offset: 0,
            prose: false,
            trailing: false,
            deepest: 0,
        }
    }

    /// A parser that skips any text (prose, a code-fence line) before the first `{` or `[`.
    pub fn skipping_prose() -> Self {
        PartialJson {
            state: State::Prose,
            skip_prose: true,
            ..PartialJson::new()
        }
    }

    /// The value so far, `None` before it starts.
    pub fn value(&self) -> Option<&Value> {
        self.root.as_deref()
    }

    /// The value so far as a shared handle, without copying it. The parser keeps writing in
    /// place while no handle is alive; a handle kept across a [`push`](Self::push) sees the
    /// value as it was (the parser then copies once, on its next write).
    pub fn shared(&self) -> Option<Arc<Value>> {
        self.root.clone()
    }

    /// The path from the root to the innermost value still being received (an open
    /// container, or a string being read); everything off this path is complete. `None` once
    /// the root value is complete.
    pub fn open_path(&self) -> Option<Vec<super::OpenSeg>> {
        if self.state == State::Done {
            return None;
        }
        Some(
            self.path
                .iter()
                .map(|seg| match seg {
                    Seg::Index(i) => super::OpenSeg::Index(*i),
                    Seg::Key(k) => super::OpenSeg::Key(k.clone()),
                })
                .collect(),
        )
    }

    /// The complete value, when the text pushed was exactly one JSON object or array
    /// (whitespace aside: nothing skipped before it, nothing after it) of modest depth: then
    /// `serde_json::from_str` of that text (trimmed) gives this value (what the parser is
    /// fuzzed for), and a caller holding the text need not parse it again. `None` otherwise.
    pub fn whole(&self) -> Option<&Value> {
        if self.state != State::Done
            || self.prose
            || self.trailing
            || self.deepest > WHOLE_MAX_DEPTH
        {
            return None;
        }
        match self.root.as_deref() {
            Some(value @ (Value::Object(_) | Value::Array(_))) => Some(value),
            _ => None,
        }
    }

    /// Whether the root value is complete.
    pub fn is_complete(&self) -> bool {
        self.state == State::Done
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The complete value: the pending number or literal at the root is completed; an
    /// unfinished value is an error.
    pub fn finish(mut self) -> Result<Value, PartialError> {
        if self.state == State::Scalar && self.open.is_empty() {
            self.end_scalar()?;
        }
        match (self.state, self.root) {
            (State::Done, Some(root)) => Ok(Arc::try_unwrap(root).unwrap_or_else(|r| (*r).clone())),
            (_, root) => Err(PartialError {
                offset: self.offset,
                message: if root.is_none() {
                    "no JSON value".to_string()
                } else {
                    "the JSON value is incomplete".to_string()
                },
            }),
        }
    }

    /// Consumes the next piece of text. Returns whether [`value`](Self::value) changed.
    pub fn push(&mut self, delta: &str) -> Result<bool, PartialError> {
        let bytes = delta.as_bytes();
        let mut changed = false;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            match self.state {
                State::Done => {
                    if self.skip_prose {
                        self.trailing |= bytes[i..].iter().any(|b| !b.is_ascii_whitespace());
                        break;
                    }
                    if !b.is_ascii_whitespace() {
                        return Err(self.error(i, "unexpected text after the JSON value"));
                    }
                    i += 1;
                }
                State::Prose => {
                    let skipped = match bytes[i..].iter().position(|&b| b == b'{' || b == b'[') {
                        Some(p) => {
                            self.state = State::Value;
                            &bytes[i..i + p]
                        }
                        None => &bytes[i..],
                    };
                    self.prose |= skipped.iter().any(|b| !b.is_ascii_whitespace());
                    i += skipped.len();
                    continue;
                }
                State::Str | State::Key => {
                    if self.escape != Escape::None {
                        self.escape_byte(b, i)?;
                        if self.state == State::Str && self.escape == Escape::None {
                            changed = true;
                        }
                        i += 1;
                        continue;
                    }
                    let run = bytes[i..]
                        .iter()
                        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                        .unwrap_or(bytes.len() - i);
                    if run > 0 {
                        self.no_surrogate(i)?;
                        let text = &delta[i..i + run];
                        if self.state == State::Str {
                            self.append(text);
                            changed = true;
                        } else {
                            self.token.push_str(text);
                        }
                        i += run;
                        continue;
                    }
                    match b {
                        b'"' => {
                            self.no_surrogate(i)?;
                            if self.state == State::Key {
                                self.key = Some(std::mem::take(&mut self.token));
                                self.state = State::Colon;
                            } else {
                                self.end_value();
                            }
                        }
                        b'\\' => self.escape = Escape::Backslash,
                        _ => return Err(self.error(i, "control character in a string")),
                    }
                    i += 1;
                }
                State::Scalar => {
                    let run = bytes[i..]
                        .iter()
                        .position(|&b| {
                            !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.'))
                        })
                        .unwrap_or(bytes.len() - i);
                    self.token.push_str(&delta[i..i + run]);
                    i += run;
                    if i < bytes.len() {
                        self.end_scalar().map_err(|e| self.error(i, &e.message))?;
                        changed = true;
                    }
                }
                _ if b.is_ascii_whitespace() => i += 1,
                State::Value | State::ArrayFirst => {
                    if b == b']' && self.state == State::ArrayFirst {
                        self.close(Kind::Array, i)?;
                    } else {
                        self.start_value(b, i)?;
                        changed |= b != b'-' && !b.is_ascii_digit() && !b.is_ascii_alphabetic();
                    }
                    i += 1;
                }
                State::ObjectFirst | State::ObjectKey => {
                    match b {
                        b'"' => {
                            self.token.clear();
                            self.state = State::Key;
                        }
                        b'}' if self.state == State::ObjectFirst => self.close(Kind::Object, i)?,
                        _ => return Err(self.error(i, "expected a key in double quotes")),
                    }
                    i += 1;
                }
                State::Colon => {
                    if b != b':' {
                        return Err(self.error(i, "expected `:` after the key"));
                    }
                    self.state = State::Value;
                    i += 1;
                }
                State::After => {
                    match (b, self.open.last()) {
                        (b',', Some(Kind::Array)) => self.state = State::Value,
                        (b',', Some(Kind::Object)) => self.state = State::ObjectKey,
                        (b']', Some(Kind::Array)) => self.close(Kind::Array, i)?,
                        (b'}', Some(Kind::Object)) => self.close(Kind::Object, i)?,
                        (_, Some(Kind::Array)) => {
                            return Err(self.error(i, "expected `,` or `]`"));
                        }
                        (_, Some(Kind::Object)) => {
                            return Err(self.error(i, "expected `,` or `}`"));
                        }
                        (_, None) => {
                            return Err(self.error(i, "unexpected text after the JSON value"));
                        }
                    }
                    i += 1;
                }
            }
        }
        self.offset += bytes.len();
        Ok(changed)
    }

    fn error(&self, at: usize, message: &str) -> PartialError {
        PartialError {
            offset: self.offset + at,
            message: message.to_string(),
        }
    }
}

#[cfg(test)]
#[path = "partial_tests.rs"]
mod tests;
