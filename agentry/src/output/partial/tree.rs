//! How [`PartialJson`] builds the value in place: the open container it writes into, values
//! started, strings appended to, scalars and containers closed.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::scalar::scalar;
use super::{Kind, PartialError, PartialJson, Seg, State};

impl PartialJson {
    /// The innermost open container.
    fn container(&mut self) -> Option<&mut Value> {
        let mut node = Arc::make_mut(self.root.as_mut()?);
        for seg in &self.path {
            node = match (seg, node) {
                (Seg::Index(i), Value::Array(items)) => items.get_mut(*i)?,
                (Seg::Key(k), Value::Object(map)) => map.get_mut(k.as_str())?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// Puts `value` in the current slot; returns the segment that reaches it.
    fn insert(&mut self, value: Value) -> Option<Seg> {
        if self.open.is_empty() {
            self.root = Some(Arc::new(value));
            return None;
        }
        let key = self.key.take();
        match self.container() {
            Some(Value::Array(items)) => {
                items.push(value);
                Some(Seg::Index(items.len() - 1))
            }
            Some(Value::Object(map)) => {
                let key = key.unwrap_or_default();
                map.insert(key.clone(), value);
                Some(Seg::Key(key))
            }
            _ => None,
        }
    }

    pub(super) fn start_value(&mut self, b: u8, at: usize) -> Result<(), PartialError> {
        match b {
            b'{' | b'[' => {
                let (kind, value) = if b == b'{' {
                    (Kind::Object, Value::Object(Map::new()))
                } else {
                    (Kind::Array, Value::Array(Vec::new()))
                };
                if let Some(seg) = self.insert(value) {
                    self.path.push(seg);
                }
                self.open.push(kind);
                self.deepest = self.deepest.max(self.open.len());
                self.state = if kind == Kind::Object {
                    State::ObjectFirst
                } else {
                    State::ArrayFirst
                };
            }
            b'"' => {
                // The string goes in now, empty, and grows in place. Its segment is pushed
                // on the path while it is read.
                if let Some(seg) = self.insert(Value::String(String::new())) {
                    self.path.push(seg);
                }
                self.state = State::Str;
            }
            b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                self.token.clear();
                self.token.push(b as char);
                self.state = State::Scalar;
            }
            _ if self.skip_prose && self.root.is_none() => {
                self.prose = true;
                self.state = State::Prose;
            }
            _ => return Err(self.error(at, "expected a JSON value")),
        }
        Ok(())
    }

    /// Appends to the string being read.
    pub(super) fn append(&mut self, text: &str) {
        let mut node = self.root.as_mut().map(Arc::make_mut);
        for seg in &self.path {
            node = match (seg, node) {
                (Seg::Index(i), Some(Value::Array(items))) => items.get_mut(*i),
                (Seg::Key(k), Some(Value::Object(map))) => map.get_mut(k.as_str()),
                _ => None,
            };
        }
        if let Some(Value::String(s)) = node {
            s.push_str(text);
        }
    }

    pub(super) fn push_char(&mut self, c: char) {
        if self.state == State::Str {
            let mut buf = [0u8; 4];
            self.append(c.encode_utf8(&mut buf));
        } else {
            self.token.push(c);
        }
    }

    /// A value just ended (a string's closing quote, a scalar, a closing bracket).
    pub(super) fn end_value(&mut self) {
        if self.state == State::Str && !self.open.is_empty() {
            self.path.pop();
        }
        self.state = if self.open.is_empty() {
            State::Done
        } else {
            State::After
        };
    }

    pub(super) fn end_scalar(&mut self) -> Result<(), PartialError> {
        let value = scalar(&self.token).ok_or_else(|| PartialError {
            offset: self.offset,
            message: format!("`{}` is not a JSON value", self.token),
        })?;
        self.token.clear();
        self.insert(value);
        self.end_value();
        Ok(())
    }

    pub(super) fn close(&mut self, kind: Kind, at: usize) -> Result<(), PartialError> {
        if self.open.last() != Some(&kind) {
            return Err(self.error(at, "mismatched closing bracket"));
        }
        self.open.pop();
        if !self.open.is_empty() {
            self.path.pop();
        }
        self.state = State::Value; // so end_value does not pop a string segment
        self.end_value();
        Ok(())
    }
}
