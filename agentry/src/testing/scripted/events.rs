//! Between a whole response and its stream events, for a scripted [`Turn`](super::Turn):
//! splitting a response into deltas, and assembling scripted events into a response.

use super::turn::response_for;
use crate::message::{AssistantMessage, ContentBlock, ToolCall};
use crate::model::{ChatResponse, ModelError, StreamEvent};
use crate::usage::Usage;

/// Splits a whole response into stream events: reasoning and text deltas (one per word),
/// tool-call starts, then argument halves interleaved across calls, usage, `Completed`.
pub(super) fn split_into_events(response: ChatResponse) -> Vec<Result<StreamEvent, ModelError>> {
    let mut events = Vec::new();
    for block in &response.message.content {
        match block {
            ContentBlock::Reasoning { text, .. } => {
                for piece in split_words(text) {
                    events.push(StreamEvent::ReasoningDelta { text: piece });
                }
            }
            ContentBlock::Text { text, .. } => {
                for piece in split_words(text) {
                    events.push(StreamEvent::TextDelta { text: piece });
                }
            }
            _ => {}
        }
    }
    if let Some(refusal) = &response.message.refusal {
        events.push(StreamEvent::RefusalDelta {
            text: refusal.clone(),
        });
    }
    let calls = &response.message.tool_calls;
    for (index, call) in calls.iter().enumerate() {
        events.push(StreamEvent::ToolCallStart {
            index,
            id: call.id.clone(),
            name: call.name.clone(),
        });
    }
    let halves: Vec<(&str, &str)> = calls.iter().map(|c| split_half(&c.arguments)).collect();
    for pass in 0..2 {
        for (index, (first, second)) in halves.iter().enumerate() {
            let piece = if pass == 0 { first } else { second };
            if !piece.is_empty() {
                events.push(StreamEvent::ToolCallDelta {
                    index,
                    arguments: piece.to_string(),
                });
            }
        }
    }
    events.push(StreamEvent::Usage {
        usage: response.usage,
    });
    events.push(StreamEvent::Completed {
        response: Box::new(response),
    });
    events.into_iter().map(Ok).collect()
}

/// `"a b c"` → `["a ", "b ", "c"]`: concatenating the pieces gives the text back.
fn split_words(text: &str) -> Vec<String> {
    text.split_inclusive(' ').map(str::to_string).collect()
}

fn split_half(s: &str) -> (&str, &str) {
    let mut mid = s.len() / 2;
    while !s.is_char_boundary(mid) {
        mid += 1;
    }
    s.split_at(mid)
}

/// Builds a response from stream events (for `invoke` on a chunk turn).
pub(super) struct Assembler {
    model: String,
    text: String,
    reasoning: String,
    refusal: Option<String>,
    calls: Vec<ToolCall>,
    usage: Usage,
}

impl Assembler {
    pub(super) fn new(model: &str) -> Self {
        Assembler {
            model: model.to_string(),
            text: String::new(),
            reasoning: String::new(),
            refusal: None,
            calls: Vec::new(),
            usage: Usage {
                requests: 1,
                ..Usage::default()
            },
        }
    }

    pub(super) fn push(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::TextDelta { text } => self.text.push_str(text),
            StreamEvent::ReasoningDelta { text } => self.reasoning.push_str(text),
            StreamEvent::RefusalDelta { text } => {
                self.refusal.get_or_insert_with(String::new).push_str(text)
            }
            StreamEvent::ToolCallStart { index, id, name } => {
                if self.calls.len() <= *index {
                    self.calls
                        .resize_with(index + 1, || ToolCall::new("", "", ""));
                }
                self.calls[*index].id = id.clone();
                self.calls[*index].name = name.clone();
            }
            StreamEvent::ToolCallDelta { index, arguments } => {
                if let Some(call) = self.calls.get_mut(*index) {
                    call.arguments.push_str(arguments);
                }
            }
            StreamEvent::Usage { usage } => self.usage = *usage,
            StreamEvent::Completed { .. } => {}
        }
    }

    pub(super) fn finish(self) -> ChatResponse {
        let mut content = Vec::new();
        if !self.reasoning.is_empty() {
            content.push(ContentBlock::Reasoning {
                text: self.reasoning,
                signature: None,
            });
        }
        if !self.text.is_empty() {
            content.push(ContentBlock::text(self.text));
        }
        let mut response = response_for(AssistantMessage {
            content,
            tool_calls: self.calls,
            refusal: self.refusal,
        });
        response.usage = self.usage;
        response.model = self.model;
        response
    }
}
