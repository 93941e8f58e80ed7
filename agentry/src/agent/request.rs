//! The one place a run's model request is built: the transcript, the tools offered, every
//! [`ModelSettings`] field, and the output spec's preparation. The plain path
//! ([`model_call`](super::model_call)) and the middleware path ([`model_turn`](super::model_turn))
//! both call [`build`], so a setting cannot reach one and not the other.

use crate::messages::Messages;
use crate::model::{ChatRequest, ModelProfile, ModelSettings, PromptCache, Tools};
use crate::output::OutputSpec;

/// The request for one turn.
///
/// `tools` are offered unless `with_tools` is false (the last request at a limit) or there
/// are none; settings that only mean something with tools (`parallel_tool_calls`) are left
/// out when none are offered.
pub(super) fn build<O: OutputSpec>(
    output: &O,
    profile: &ModelProfile,
    messages: Messages,
    tools: Tools,
    with_tools: bool,
    settings: &ModelSettings,
) -> ChatRequest {
    // Destructured whole: a new setting is a compile error here until it is sent.
    let &ModelSettings {
        temperature,
        top_p,
        cache_prompt,
        max_tokens,
        parallel_tool_calls,
        seed,
    } = settings;
    let offer_tools = with_tools && !tools.is_empty();
    let mut request = ChatRequest {
        messages,
        tools: if offer_tools { tools } else { Tools::new() },
        parallel_tool_calls: parallel_tool_calls.filter(|_| offer_tools),
        temperature,
        top_p,
        cache: if cache_prompt {
            PromptCache::system_and_tools()
        } else {
            PromptCache::default()
        },
        max_tokens,
        seed,
        ..ChatRequest::default()
    };
    output.prepare(&mut request, profile, offer_tools);
    request
}
