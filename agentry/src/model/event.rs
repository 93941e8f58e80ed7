//! Events of a streamed answer.

use serde::{Deserialize, Serialize};

use super::response::ChatResponse;
use crate::usage::Usage;

/// One event of a streamed model answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// A piece of answer text.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// A piece of reasoning text.
    ReasoningDelta {
        /// The new reasoning text.
        text: String,
    },
    /// A piece of a refusal.
    RefusalDelta {
        /// The new refusal text.
        text: String,
    },
    /// The model started a tool call. `index` identifies the call among this answer's calls.
    ToolCallStart {
        /// The call's position in the answer.
        index: usize,
        /// The provider's call id.
        id: String,
        /// The tool name.
        name: String,
    },
    /// A piece of a tool call's JSON arguments.
    ToolCallDelta {
        /// The call's position in the answer.
        index: usize,
        /// The new argument text.
        arguments: String,
    },
    /// Usage reported by the provider (may arrive before `Completed`).
    Usage {
        /// The usage.
        usage: Usage,
    },
    /// The answer is complete; carries the whole answer, assembled. (Boxed: every event of
    /// a stream is moved through several layers, and the answer would make each of them
    /// three times as large.)
    Completed {
        /// The answer.
        response: Box<ChatResponse>,
    },
}
