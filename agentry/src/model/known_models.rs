//! The table of known models: what each supports, per provider, as published in the
//! providers' model pages (OpenAI, Anthropic, Google) in November 2025.
//!
//! A Rust `const` table rather than a data file parsed at start-up: a typo in a field is a
//! compile error instead of a run-time parse failure to report, the lookup needs no
//! allocation or lazy initialization, and every row is a [`ModelProfile`] built by the same
//! few helpers, one row a line, which reads and diffs like a data file.
//!
//! A row's id matches the model of that exact id, then, for ids not in the table, every model
//! id it is the family prefix of (`gpt-4o` for `gpt-4o-2024-11-20`, see
//! [`ModelProfile::for_model`]).

use super::ModelProfile;

/// A row: a model id (or family prefix) and its profile.
pub(super) type Row = (&'static str, ModelProfile);

impl ModelProfile {
    /// With these limits (`context` tokens in and out, `output` tokens out).
    const fn limits(self, context: u32, output: u32) -> Self {
        ModelProfile {
            context_window: Some(context),
            max_output_tokens: Some(output),
            ..self
        }
    }

    /// A reasoning model.
    const fn reasons(self) -> Self {
        ModelProfile {
            reasoning: true,
            ..self
        }
    }

    /// Only text input.
    const fn text_input(self) -> Self {
        ModelProfile {
            image_input: false,
            audio_input: false,
            pdf_input: false,
            ..self
        }
    }

    /// Text and images (and PDFs, as pages) in, no audio.
    const fn vision(self) -> Self {
        ModelProfile {
            image_input: true,
            audio_input: false,
            pdf_input: true,
            ..self
        }
    }

    /// Audio in as well.
    const fn with_audio(self) -> Self {
        ModelProfile {
            audio_input: true,
            ..self
        }
    }

    /// No PDF input.
    const fn no_pdf(self) -> Self {
        ModelProfile {
            pdf_input: false,
            ..self
        }
    }

    /// No JSON-schema constrained output (tools still work).
    const fn no_native_output(self) -> Self {
        ModelProfile {
            native_structured_output: false,
            strict_tools: false,
            ..self
        }
    }

    /// One tool call per answer.
    const fn serial_tools(self) -> Self {
        ModelProfile {
            parallel_tool_calls: false,
            ..self
        }
    }

    /// No function calling at all (the agent falls back to the ReAct text protocol).
    const fn no_tools(self) -> Self {
        ModelProfile {
            tool_calling: false,
            parallel_tool_calls: false,
            tool_choice_required: false,
            tool_choice_named: false,
            tool_choice_none: false,
            strict_tools: false,
            native_structured_output: false,
            ..self
        }
    }
}

/// OpenAI's models (Chat Completions; the Responses builder adjusts what that API differs in).
const OPENAI_BASE: ModelProfile = ModelProfile::full();

/// OpenAI's reasoning models: no temperature or `top_p` (see the provider's request notes).
const O_SERIES: ModelProfile = OPENAI_BASE.reasons().vision();

/// Unknown OpenAI models: everything, limits unknown, images and PDFs in.
pub(super) const OPENAI_DEFAULT: ModelProfile = OPENAI_BASE.vision();

#[rustfmt::skip]
pub(super) const OPENAI: &[Row] = &[
    ("gpt-5",                 O_SERIES.limits(400_000, 128_000)),
    ("gpt-5-mini",            O_SERIES.limits(400_000, 128_000)),
    ("gpt-5-nano",            O_SERIES.limits(400_000, 128_000)),
    ("gpt-5-pro",             O_SERIES.limits(400_000, 272_000)),
    ("gpt-5-codex",           O_SERIES.limits(400_000, 128_000)),
    ("gpt-5-chat",            OPENAI_BASE.vision().limits(128_000, 16_384)),
    ("gpt-5.1",               O_SERIES.limits(400_000, 128_000)),
    ("gpt-5.1-chat",          OPENAI_BASE.vision().limits(128_000, 16_384)),
    ("gpt-4.1",               OPENAI_BASE.vision().limits(1_047_576, 32_768)),
    ("gpt-4.1-mini",          OPENAI_BASE.vision().limits(1_047_576, 32_768)),
    ("gpt-4.1-nano",          OPENAI_BASE.vision().limits(1_047_576, 32_768)),
    ("gpt-4o",                OPENAI_BASE.vision().limits(128_000, 16_384)),
    // The first gpt-4o snapshot predates structured outputs.
    ("gpt-4o-2024-05-13",     OPENAI_BASE.vision().no_native_output().limits(128_000, 4_096)),
    ("gpt-4o-mini",           OPENAI_BASE.vision().limits(128_000, 16_384)),
    ("gpt-4o-audio-preview",  OPENAI_BASE.text_input().limits(128_000, 16_384).with_audio()),
    ("gpt-4o-mini-audio-preview", OPENAI_BASE.text_input().limits(128_000, 16_384).with_audio()),
    ("gpt-4-turbo",           OPENAI_BASE.vision().no_native_output().limits(128_000, 4_096)),
    ("gpt-4",                 OPENAI_BASE.text_input().no_native_output().serial_tools().limits(8_192, 8_192)),
    ("gpt-3.5-turbo",         OPENAI_BASE.text_input().no_native_output().limits(16_385, 4_096)),
    ("o4-mini",               O_SERIES.limits(200_000, 100_000)),
    ("o3",                    O_SERIES.limits(200_000, 100_000)),
    ("o3-pro",                O_SERIES.limits(200_000, 100_000)),
    ("o3-mini",               O_SERIES.text_input().serial_tools().limits(200_000, 100_000)),
    ("o1",                    O_SERIES.serial_tools().limits(200_000, 100_000)),
    ("o1-pro",                O_SERIES.serial_tools().limits(200_000, 100_000)),
    // The first o1 models: no tools, no structured output, no images.
    ("o1-mini",               O_SERIES.text_input().no_tools().limits(128_000, 65_536)),
    ("o1-preview",            O_SERIES.text_input().no_tools().limits(128_000, 32_768)),
];

/// Claude: native structured output (`output_config.format`), parallel tool use and every tool
/// choice; no strict tools, no seed; images and PDFs in.
const CLAUDE: ModelProfile = ModelProfile {
    strict_tools: false,
    seed: false,
    ..ModelProfile::full()
}
.vision();

/// Claude models before structured outputs: JSON answers go through a tool.
const CLAUDE_TOOLS_ONLY: ModelProfile = CLAUDE.no_native_output();

/// Unknown Claude models.
pub(super) const ANTHROPIC_DEFAULT: ModelProfile = CLAUDE;

#[rustfmt::skip]
pub(super) const ANTHROPIC: &[Row] = &[
    ("claude-opus-4-5",       CLAUDE.reasons().limits(200_000, 64_000)),
    ("claude-sonnet-4-5",     CLAUDE.reasons().limits(200_000, 64_000)),
    ("claude-haiku-4-5",      CLAUDE.reasons().limits(200_000, 64_000)),
    ("claude-opus-4-1",       CLAUDE.reasons().limits(200_000, 32_000)),
    ("claude-opus-4",         CLAUDE_TOOLS_ONLY.reasons().limits(200_000, 32_000)),
    ("claude-sonnet-4",       CLAUDE_TOOLS_ONLY.reasons().limits(200_000, 64_000)),
    ("claude-3-7-sonnet",     CLAUDE_TOOLS_ONLY.reasons().limits(200_000, 64_000)),
    ("claude-3-5-sonnet",     CLAUDE_TOOLS_ONLY.limits(200_000, 8_192)),
    ("claude-3-5-haiku",      CLAUDE_TOOLS_ONLY.limits(200_000, 8_192)),
    ("claude-3-opus",         CLAUDE_TOOLS_ONLY.no_pdf().limits(200_000, 4_096)),
    ("claude-3-haiku",        CLAUDE_TOOLS_ONLY.no_pdf().limits(200_000, 4_096)),
];

/// Gemini: JSON-schema output, parallel calls, every tool choice, seed; no strict tools;
/// images, audio and PDFs in.
const GEMINI: ModelProfile = ModelProfile {
    strict_tools: false,
    ..ModelProfile::full()
}
.vision()
.with_audio();

/// Unknown Gemini models.
pub(super) const GEMINI_DEFAULT: ModelProfile = GEMINI;

#[rustfmt::skip]
pub(super) const GEMINI_MODELS: &[Row] = &[
    ("gemini-3-pro",          GEMINI.reasons().limits(1_048_576, 65_536)),
    ("gemini-2.5-pro",        GEMINI.reasons().limits(1_048_576, 65_536)),
    ("gemini-2.5-flash",      GEMINI.reasons().limits(1_048_576, 65_536)),
    ("gemini-2.5-flash-lite", GEMINI.reasons().limits(1_048_576, 65_536)),
    ("gemini-flash-latest",   GEMINI.reasons().limits(1_048_576, 65_536)),
    ("gemini-flash-lite-latest", GEMINI.reasons().limits(1_048_576, 65_536)),
    ("gemini-2.0-flash",      GEMINI.limits(1_048_576, 8_192)),
    ("gemini-2.0-flash-lite", GEMINI.limits(1_048_576, 8_192)),
    ("gemini-1.5-pro",        GEMINI.limits(2_097_152, 8_192)),
    ("gemini-1.5-flash",      GEMINI.limits(1_048_576, 8_192)),
];
