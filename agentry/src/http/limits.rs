//! Caps on what a server may send: the defence against hostile or broken servers.
//!
//! Every provider builder takes a [`ResponseLimits`] (`.response_limits(..)`, or one setter
//! per cap). Going over a cap ends the request with
//! [`ModelError::LimitExceeded`](crate::model::ModelError::LimitExceeded) naming the cap, and
//! the memory the answer held is freed: a client never grows past its caps plus a small,
//! constant overhead.

use std::fmt;

/// The caps on one answer. The defaults are far above what a real model sends and far below
/// what would hurt a process:
///
/// | cap | default | what it bounds |
/// |---|---|---|
/// | [`max_body_bytes`](Self::max_body_bytes) | 32 MiB | a non-streamed answer's body |
/// | [`max_event_bytes`](Self::max_event_bytes) | 8 MiB | one SSE line, and one event's data |
/// | [`max_stream_bytes`](Self::max_stream_bytes) | 64 MiB | all the bytes of one streamed answer |
/// | [`max_tool_call_bytes`](Self::max_tool_call_bytes) | 4 MiB | one tool call's accumulated arguments |
/// | [`max_tool_calls`](Self::max_tool_calls) | 256 | tool calls in one answer |
///
/// ```
/// use agentry::http::ResponseLimits;
/// let limits = ResponseLimits::default().max_tool_calls(16).max_body_bytes(1 << 20);
/// assert_eq!(limits.max_tool_calls, 16);
/// assert_eq!(limits.max_event_bytes, 8 << 20);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResponseLimits {
    /// The largest non-streamed response body, in bytes.
    pub max_body_bytes: usize,
    /// The longest SSE line and the largest SSE event (its joined data), in bytes.
    pub max_event_bytes: usize,
    /// The most bytes one streamed answer may have.
    pub max_stream_bytes: usize,
    /// The longest arguments of one tool call, in bytes.
    pub max_tool_call_bytes: usize,
    /// The most tool calls in one answer.
    pub max_tool_calls: usize,
}

impl Default for ResponseLimits {
    fn default() -> Self {
        ResponseLimits {
            max_body_bytes: 32 << 20,
            max_event_bytes: 8 << 20,
            max_stream_bytes: 64 << 20,
            max_tool_call_bytes: 4 << 20,
            max_tool_calls: 256,
        }
    }
}

impl ResponseLimits {
    /// Sets [`max_body_bytes`](Self::max_body_bytes).
    pub fn max_body_bytes(mut self, n: usize) -> Self {
        self.max_body_bytes = n;
        self
    }

    /// Sets [`max_event_bytes`](Self::max_event_bytes).
    pub fn max_event_bytes(mut self, n: usize) -> Self {
        self.max_event_bytes = n;
        self
    }

    /// Sets [`max_stream_bytes`](Self::max_stream_bytes).
    pub fn max_stream_bytes(mut self, n: usize) -> Self {
        self.max_stream_bytes = n;
        self
    }

    /// Sets [`max_tool_call_bytes`](Self::max_tool_call_bytes).
    pub fn max_tool_call_bytes(mut self, n: usize) -> Self {
        self.max_tool_call_bytes = n;
        self
    }

    /// Sets [`max_tool_calls`](Self::max_tool_calls).
    pub fn max_tool_calls(mut self, n: usize) -> Self {
        self.max_tool_calls = n;
        self
    }
}

/// Which cap of [`ResponseLimits`] an answer went over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResponseLimit {
    /// [`ResponseLimits::max_body_bytes`].
    BodyBytes,
    /// [`ResponseLimits::max_event_bytes`].
    EventBytes,
    /// [`ResponseLimits::max_stream_bytes`].
    StreamBytes,
    /// [`ResponseLimits::max_tool_call_bytes`].
    ToolCallBytes,
    /// [`ResponseLimits::max_tool_calls`].
    ToolCalls,
}

impl ResponseLimit {
    /// The cap's field (and builder setter) name, e.g. `max_body_bytes`.
    pub fn name(self) -> &'static str {
        match self {
            ResponseLimit::BodyBytes => "max_body_bytes",
            ResponseLimit::EventBytes => "max_event_bytes",
            ResponseLimit::StreamBytes => "max_stream_bytes",
            ResponseLimit::ToolCallBytes => "max_tool_call_bytes",
            ResponseLimit::ToolCalls => "max_tool_calls",
        }
    }

    fn what(self) -> &'static str {
        match self {
            ResponseLimit::BodyBytes => "response body size",
            ResponseLimit::EventBytes => "SSE line / event size",
            ResponseLimit::StreamBytes => "streamed answer size",
            ResponseLimit::ToolCallBytes => "size of one tool call's arguments",
            ResponseLimit::ToolCalls => "number of tool calls in one answer",
        }
    }

    fn unit(self) -> &'static str {
        match self {
            ResponseLimit::ToolCalls => "",
            _ => " bytes",
        }
    }

    /// The error for going over this cap, whose value is `max`.
    pub(crate) fn exceeded(self, max: usize) -> crate::model::ModelError {
        crate::model::ModelError::LimitExceeded { limit: self, max }
    }
}

impl fmt::Display for ResponseLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} cap `{}`", self.what(), self.name())
    }
}

/// `max` followed by the cap's unit, for error messages.
pub(crate) fn describe(limit: ResponseLimit, max: usize) -> String {
    format!("{max}{}", limit.unit())
}
