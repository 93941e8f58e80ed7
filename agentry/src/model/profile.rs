//! What a model can do.

use serde::{Deserialize, Serialize};

/// A model's capabilities, used to refuse or drop settings it cannot honour before a request
/// is sent, and by the agent to choose how it asks for structured output and whether tools go
/// through native calls or the ReAct text protocol.
///
/// The provider builders start from [`ModelProfile::for_model`] (the table of known models,
/// else the provider's defaults); `.profile(..)` and `.adjust_profile(..)` on a builder
/// override it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelProfile {
    /// Native tool (function) calling: a request may carry `tools`. Without it an agent with
    /// tools uses the ReAct text protocol ([`crate::protocol::ToolProtocol::for_profile`]).
    #[serde(default = "yes")]
    pub tool_calling: bool,
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
    /// The most tokens of one request, input and output together (`None`: unknown).
    #[serde(default)]
    pub context_window: Option<u32>,
    /// The most tokens of one answer (`None`: unknown).
    #[serde(default)]
    pub max_output_tokens: Option<u32>,
    /// Images in user messages.
    #[serde(default)]
    pub image_input: bool,
    /// Audio in user messages.
    #[serde(default)]
    pub audio_input: bool,
    /// PDF documents in user messages.
    #[serde(default)]
    pub pdf_input: bool,
}

impl ModelProfile {
    /// Everything supported, limits unknown: the base of OpenAI's chat models (without
    /// reasoning; see [`for_model`](Self::for_model) for the profile of a known model).
    pub const fn full() -> Self {
        ModelProfile {
            tool_calling: true,
            native_structured_output: true,
            strict_tools: true,
            parallel_tool_calls: true,
            tool_choice_required: true,
            tool_choice_named: true,
            tool_choice_none: true,
            streaming_usage: true,
            reasoning: false,
            seed: true,
            context_window: None,
            max_output_tokens: None,
            image_input: true,
            audio_input: true,
            pdf_input: true,
        }
    }

    /// A conservative profile for unknown OpenAI-compatible servers: tools with `auto`
    /// choice, no strict schemas, no native structured output; images but no audio or PDF
    /// input.
    pub const fn conservative() -> Self {
        ModelProfile {
            tool_calling: true,
            native_structured_output: false,
            strict_tools: false,
            parallel_tool_calls: true,
            tool_choice_required: false,
            tool_choice_named: false,
            tool_choice_none: true,
            streaming_usage: false,
            reasoning: false,
            seed: false,
            context_window: None,
            max_output_tokens: None,
            image_input: true,
            audio_input: false,
            pdf_input: false,
        }
    }
}

fn yes() -> bool {
    true
}

impl ModelProfile {
    /// A model without native tool calling (nor any tool or structured-output feature): text in,
    /// text out. Tools reach it through the ReAct protocol.
    pub const fn text_only() -> Self {
        ModelProfile {
            tool_calling: false,
            native_structured_output: false,
            strict_tools: false,
            parallel_tool_calls: false,
            tool_choice_required: false,
            tool_choice_named: false,
            tool_choice_none: false,
            streaming_usage: false,
            reasoning: false,
            seed: false,
            context_window: None,
            max_output_tokens: None,
            image_input: false,
            audio_input: false,
            pdf_input: false,
        }
    }

    /// The profile a preset knows for a model served through an OpenAI-compatible server
    /// (Ollama, vLLM, LM Studio, ...): [`text_only`](Self::text_only) for model families whose
    /// published chat templates have no tool support, [`conservative`](Self::conservative)
    /// otherwise. The name is matched case-insensitively on its family prefix, ignoring any
    /// `org/` and `:tag`.
    pub fn for_compatible_model(model: &str) -> Self {
        let lower = model.to_ascii_lowercase();
        let base = lower.rsplit('/').next().unwrap_or(&lower);
        let family = base.split(':').next().unwrap_or(base);
        // Families whose Ollama / Hugging Face chat templates have no tool section.
        const WITHOUT_TOOLS: [&str; 7] = [
            "gemma",
            "llama2",
            "llama-2",
            "codellama",
            "tinyllama",
            "phi3",
            "deepseek-r1",
        ];
        let no_tools = WITHOUT_TOOLS.iter().any(|p| family.starts_with(p));
        if no_tools {
            ModelProfile::text_only()
        } else {
            ModelProfile::conservative()
        }
    }
}

impl Default for ModelProfile {
    fn default() -> Self {
        ModelProfile::full()
    }
}
