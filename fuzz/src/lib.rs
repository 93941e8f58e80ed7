//! The properties the fuzz targets check, one module per target family. The targets in
//! `fuzz_targets/` call them; the workspace's `tests/fuzz_smoke.rs` runs the same functions
//! over the committed seeds (and mutations of them) in every `cargo test`.

pub mod answer;
pub mod checkpoint;
pub mod mcp_content;
pub mod partial_json;
pub mod pause;
pub mod react;
pub mod schema;
pub mod split;
pub mod sse;
pub mod stream;

use agentry::__fuzz::Provider;
pub use stream::check_stream;

/// A target: its name (the binary's and the seed directory's) and its check.
pub type Target = (&'static str, fn(&[u8]));

/// Every target, by name.
pub const TARGETS: [Target; 15] = [
    ("sse", sse::check),
    ("answer_openai_chat", |d| {
        answer::check(Provider::OpenAiChat, d)
    }),
    ("answer_openai_responses", |d| {
        answer::check(Provider::OpenAiResponses, d)
    }),
    ("answer_anthropic", |d| {
        answer::check(Provider::Anthropic, d)
    }),
    ("answer_gemini", |d| answer::check(Provider::Gemini, d)),
    ("stream_openai_chat", |d| {
        check_stream(Provider::OpenAiChat, d)
    }),
    ("stream_openai_responses", |d| {
        check_stream(Provider::OpenAiResponses, d)
    }),
    ("stream_anthropic", |d| check_stream(Provider::Anthropic, d)),
    ("stream_gemini", |d| check_stream(Provider::Gemini, d)),
    ("partial_json", partial_json::check),
    ("react", react::check),
    ("pause", pause::check),
    ("checkpoint", checkpoint::check),
    ("schema", schema::check),
    ("mcp_content", mcp_content::check),
];
