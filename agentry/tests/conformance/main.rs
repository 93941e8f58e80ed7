//! One conformance suite for every provider's wire format: the same scenarios (single,
//! parallel and streamed tool calls, tool-result follow-ups, structured output, usage, each
//! error class, an error inside a 200 stream, a stream cut off mid-answer) run against each
//! format through an in-process server on 127.0.0.1 that answers as the provider documents,
//! plus a multi-turn agent run (and stream) with parallel tool calls on each, and a two-turn
//! conversation whose second request must obey the provider's history rules.
//! A new provider passes this suite before it counts.

mod agent;
mod anthropic;
mod errors;
mod gemini;
mod hardening;
mod history;
mod keys;
mod openai_chat;
mod responses;
mod scenarios;
mod server;
mod suite;
mod wire;

conformance!(openai_chat_completions, super::openai_chat::OpenAiChat);
conformance!(anthropic_messages, super::anthropic::Anthropic);
conformance!(gemini_generate_content, super::gemini::Gemini);
conformance!(openai_responses, super::responses::Responses);
