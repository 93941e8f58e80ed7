//! What a model can do.

use serde::{Deserialize, Serialize};

/// A model's capabilities, used to refuse or drop settings it cannot honour before a request
/// is sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelProfile {
    /// JSON-schema constrained output (`response_format: json_schema`).
    pub native_structured_output: bool,
    /// Strict (schema-enforced) tool definitions.
    pub strict_tools: bool,
    /// Several tool calls in one answer.
    pub parallel_tool_calls: bool,
    /// `tool_choice: required`.
    pub tool_choice_required: bool,
    /// `tool_choice` naming one tool.
    pub tool_choice_named: bool,
    /// `tool_choice: none`.
    pub tool_choice_none: bool,
    /// Usage reported at the end of a stream.
    pub streaming_usage: bool,
    /// Reasoning (thinking) output.
    pub reasoning: bool,
    /// Sampling `seed`.
    pub seed: bool,
}

impl ModelProfile {
    /// Everything supported (OpenAI's current chat models).
    pub const fn full() -> Self {
        ModelProfile {
            native_structured_output: true,
            strict_tools: true,
            parallel_tool_calls: true,
            tool_choice_required: true,
            tool_choice_named: true,
            tool_choice_none: true,
            streaming_usage: true,
            reasoning: false,
            seed: true,
        }
    }

    /// A conservative profile for unknown OpenAI-compatible servers: tools with `auto`
    /// choice, no strict schemas, no native structured output.
    pub const fn conservative() -> Self {
        ModelProfile {
            native_structured_output: false,
            strict_tools: false,
            parallel_tool_calls: true,
            tool_choice_required: false,
            tool_choice_named: false,
            tool_choice_none: true,
            streaming_usage: false,
            reasoning: false,
            seed: false,
        }
    }
}

impl Default for ModelProfile {
    fn default() -> Self {
        ModelProfile::full()
    }
}
