//! A non-streamed Chat Completions answer as a [`ChatResponse`].

use super::wire::{WireChoice, WireResponse};
use crate::message::{AssistantMessage, ContentBlock, ToolCall};
use crate::model::{ChatResponse, FinishReason, ModelError};
use crate::usage::Usage;

/// Converts a decoded answer; `model` is used when the server does not name one.
pub(crate) fn convert(mut wire: WireResponse, model: &str) -> Result<ChatResponse, ModelError> {
    // One choice (the usual answer): no list of converted choices to build and take from.
    if wire.choices.len() == 1
        && let Some(choice) = wire.choices.pop()
    {
        let model = wire.model.unwrap_or_else(|| model.to_owned());
        return Ok(convert_choice(choice, usage_of(wire.usage), model, wire.id));
    }
    let mut all = convert_all(wire, model)?;
    Ok(all.swap_remove(0))
}

/// The answer's usage; an answer without one still counts as a request.
fn usage_of(usage: Option<super::wire::WireUsage>) -> Usage {
    usage.map(|u| u.to_usage()).unwrap_or(Usage {
        requests: 1,
        ..Usage::default()
    })
}

/// Converts every choice of a decoded answer, in index order (each carries the request's
/// usage, id and model).
pub(crate) fn convert_all(
    mut wire: WireResponse,
    model: &str,
) -> Result<Vec<ChatResponse>, ModelError> {
    if wire.choices.is_empty() {
        return Err(ModelError::Decode("the answer has no choices".into()));
    }
    wire.choices.sort_by_key(|c| c.index);
    let usage = usage_of(wire.usage);
    let model = wire.model.unwrap_or_else(|| model.to_owned());
    // The last choice (usually the only one) takes the id and model; the others copy them.
    let last = wire.choices.len() - 1;
    let mut shared = Some((wire.id, model));
    let mut responses = Vec::with_capacity(wire.choices.len());
    for (i, choice) in wire.choices.into_iter().enumerate() {
        let (id, model) = match &shared {
            Some((id, model)) if i < last => (id.clone(), model.clone()),
            _ => shared.take().unwrap_or_default(),
        };
        responses.push(convert_choice(choice, usage, model, id));
    }
    Ok(responses)
}

fn convert_choice(
    choice: WireChoice,
    usage: Usage,
    model: String,
    id: Option<String>,
) -> ChatResponse {
    let m = choice.message;
    let reasoning = m.reasoning_content.or(m.reasoning);
    let tool_calls: Vec<ToolCall> = m
        .tool_calls
        .into_iter()
        .map(|c| match (c.function, c.custom) {
            (Some(function), _) => ToolCall {
                id: c.id,
                name: function.name,
                arguments: function.arguments,
            },
            // A `custom` (free-form) call: its input text is the arguments.
            (None, custom) => {
                let custom = custom.unwrap_or_default();
                ToolCall {
                    id: c.id,
                    name: custom.name.unwrap_or_default(),
                    arguments: custom.input.unwrap_or_default(),
                }
            }
        })
        .collect();
    let message = assemble(reasoning, m.content, tool_calls, m.refusal);
    let finish_reason = finish_reason(choice.finish_reason.as_deref(), &message);
    ChatResponse {
        message,
        usage,
        finish_reason,
        model,
        id,
    }
}

/// An assistant message from its parts; empty parts are left out.
pub(crate) fn assemble(
    reasoning: Option<String>,
    text: Option<String>,
    tool_calls: Vec<ToolCall>,
    refusal: Option<String>,
) -> AssistantMessage {
    let reasoning = reasoning.filter(|r| !r.is_empty());
    let text = text.filter(|t| !t.is_empty());
    // At its size: the message lives as long as the run's transcript, and one block (80
    // bytes) is a size the allocator keeps in its fast lists, four (a first push's room)
    // is not.
    let mut content =
        Vec::with_capacity(usize::from(reasoning.is_some()) + usize::from(text.is_some()));
    if let Some(r) = reasoning {
        content.push(ContentBlock::Reasoning {
            text: r,
            signature: None,
        });
    }
    if let Some(t) = text {
        content.push(ContentBlock::Text {
            citations: Vec::new(),
            text: t,
        });
    }
    AssistantMessage {
        content,
        tool_calls,
        refusal: refusal.filter(|r| !r.is_empty()),
    }
}

/// The typed finish reason. OpenAI reports a refusal with `stop`; it becomes
/// [`FinishReason::Refusal`]. A missing reason (some compatible servers) is read from the
/// answer: tool calls mean `ToolCalls`, anything else `Stop`.
pub(crate) fn finish_reason(raw: Option<&str>, message: &AssistantMessage) -> FinishReason {
    match raw {
        _ if message.refusal.is_some() && matches!(raw, None | Some("stop")) => {
            FinishReason::Refusal
        }
        Some(raw) => KNOWN_REASONS
            .iter()
            .find(|(name, _)| *name == raw)
            .map(|(_, reason)| reason.clone())
            .unwrap_or_else(|| FinishReason::Other(raw.to_owned())),
        None if !message.tool_calls.is_empty() => FinishReason::ToolCalls,
        None => FinishReason::Stop,
    }
}

/// The finish reasons OpenAI documents, and the synonyms some compatible servers send.
pub(crate) const KNOWN_REASONS: [(&str, FinishReason); 7] = [
    ("stop", FinishReason::Stop),
    ("eos", FinishReason::Stop),
    ("end_turn", FinishReason::Stop),
    ("length", FinishReason::Length),
    ("tool_calls", FinishReason::ToolCalls),
    ("function_call", FinishReason::ToolCalls),
    ("content_filter", FinishReason::ContentFilter),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_holds_room_for_its_blocks_only() {
        let text = assemble(None, Some("It is 21 degrees.".into()), Vec::new(), None);
        assert_eq!((text.content.len(), text.content.capacity()), (1, 1));
        let both = assemble(Some("hmm".into()), Some("21".into()), Vec::new(), None);
        assert_eq!((both.content.len(), both.content.capacity()), (2, 2));
        let empty = assemble(Some(String::new()), Some(String::new()), Vec::new(), None);
        assert_eq!(empty.content.capacity(), 0);
    }
}
