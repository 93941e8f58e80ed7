//! [`Summarization`]: when the transcript passes a token budget, older messages become a
//! summary written by a model.

use std::sync::Arc;

use super::{BeforeModel, Flow, Hook, Middleware, MiddlewareError, RunCx};
use crate::message::Message;
use crate::model::IntoSharedModel;
use crate::model::{ChatRequest, SharedModel};

/// Counts the tokens of messages, for budgets.
pub trait TokenCounter: Send + Sync + 'static {
    /// The tokens `messages` take.
    fn count(&self, messages: &[Message]) -> u64;
}

impl<F: Fn(&[Message]) -> u64 + Send + Sync + 'static> TokenCounter for F {
    fn count(&self, messages: &[Message]) -> u64 {
        self(messages)
    }
}

/// An approximate counter: characters of text and tool-call arguments divided by
/// `chars_per_token` (4 by default, LangChain's `count_tokens_approximately`).
#[derive(Clone, Copy, Debug)]
pub struct CharCounter {
    /// Characters per token.
    pub chars_per_token: u32,
}

impl Default for CharCounter {
    fn default() -> Self {
        CharCounter { chars_per_token: 4 }
    }
}

impl TokenCounter for CharCounter {
    fn count(&self, messages: &[Message]) -> u64 {
        let chars: usize = messages
            .iter()
            .map(|m| {
                let calls = match m {
                    Message::Assistant(a) => a
                        .tool_calls
                        .iter()
                        .map(|c| c.name.len() + c.arguments.len())
                        .sum(),
                    _ => 0,
                };
                m.text().chars().count() + calls
            })
            .sum();
        (chars as u64).div_ceil(u64::from(self.chars_per_token.max(1)))
    }
}

const DEFAULT_PROMPT: &str = "Summarize the conversation below for the assistant that will continue it. \
Keep every fact, decision, name, number and open question it will need; drop pleasantries. \
Answer with the summary only.";

/// Summarizes older messages when the transcript passes `max_tokens` (LangChain's
/// `SummarizationMiddleware`).
///
/// Before each request the transcript is counted with the [`TokenCounter`]; over the budget,
/// everything between the system message and the latest `keep` messages is sent to `model`
/// and replaced by one user message holding its summary. The cut is moved earlier when it
/// would fall between a tool call and its result, so a call and its result always stay
/// together. The summary request's usage is the summarizing model's, not the run's.
///
/// The rewrite is recorded with [`BeforeModel::compact`]: in a thread it is saved as a
/// compaction checkpoint (the history keeps every original message, the next run starts from
/// the summary and the kept messages; see [`Thread::view`](crate::agent::Thread::view)).
///
/// ```
/// use agentry::middleware::{CharCounter, Summarization};
/// use agentry::testing::TestModel;
///
/// let summarize = Summarization::new(TestModel::with_text("summary"), 4_000)
///     .keep_last(20)
///     .counter(CharCounter { chars_per_token: 3 });
/// # let _ = summarize;
/// ```
#[derive(Clone)]
pub struct Summarization {
    model: SharedModel,
    max_tokens: u64,
    keep: usize,
    counter: Arc<dyn TokenCounter>,
    prompt: String,
}

impl Summarization {
    /// Summarizes with `model` when the transcript passes `max_tokens`.
    pub fn new(model: impl IntoSharedModel, max_tokens: u64) -> Self {
        Summarization {
            model: model.into_shared_model(),
            max_tokens,
            keep: 20,
            counter: Arc::new(CharCounter::default()),
            prompt: DEFAULT_PROMPT.to_string(),
        }
    }

    /// Keeps the latest `keep` messages as they are (default 20).
    pub fn keep_last(mut self, keep: usize) -> Self {
        self.keep = keep;
        self
    }

    /// Counts tokens with `counter` (default [`CharCounter`]).
    pub fn counter(mut self, counter: impl TokenCounter) -> Self {
        self.counter = Arc::new(counter);
        self
    }

    /// The instructions of the summary request.
    pub fn prompt(mut self, prompt: impl Into<String>) -> Self {
        self.prompt = prompt.into();
        self
    }

    /// Where the summarized part of `messages` ends (exclusive), starting after `start`;
    /// never between a tool call and its result. `None` when there is nothing to summarize.
    pub fn cut(&self, messages: &[Message], start: usize) -> Option<usize> {
        let mut cut = messages.len().saturating_sub(self.keep).max(start);
        // A kept tool result needs its call: move the cut back to the answer that made it.
        while cut > start && matches!(messages.get(cut), Some(Message::Tool(_))) {
            cut -= 1;
        }
        (cut > start).then_some(cut)
    }

    async fn summarize(&self, before: &mut BeforeModel) -> Result<(), MiddlewareError> {
        let messages = &before.messages;
        if self.counter.count(messages) <= self.max_tokens {
            return Ok(());
        }
        let start = usize::from(matches!(messages.first(), Some(Message::System { .. })));
        let Some(cut) = self.cut(messages, start) else {
            return Ok(());
        };
        let transcript = render(&messages[start..cut]);
        let request = ChatRequest::new(vec![
            Message::system(self.prompt.clone()),
            Message::user(transcript),
        ]);
        let answer = self.model.invoke(request).await.map_err(|e| {
            MiddlewareError::new("Summarization", "the summary request failed").with_source(e)
        })?;
        let summary = answer.message.text();
        tracing::debug!(summarized = cut - start, "older messages summarized");
        // Recorded as a compaction: a thread saves it as a compaction checkpoint.
        before.compact(
            start,
            cut,
            Message::user(format!("Summary of the conversation so far:\n{summary}")),
        );
        Ok(())
    }
}

/// The messages as plain text for the summary request.
fn render(messages: &[Message]) -> String {
    let mut out = String::new();
    for m in messages {
        let (role, extra) = match m {
            Message::System { .. } => ("system", String::new()),
            Message::User(_) => ("user", String::new()),
            Message::Assistant(a) => (
                "assistant",
                a.tool_calls
                    .iter()
                    .map(|c| format!(" [called {}({})]", c.name, c.arguments))
                    .collect(),
            ),
            Message::Tool(t) => {
                out.push_str(&format!("tool {}: {}\n", t.name, m.text()));
                continue;
            }
        };
        out.push_str(&format!("{role}: {}{extra}\n", m.text()));
    }
    out
}

impl std::fmt::Debug for Summarization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Summarization")
            .field("model", &self.model.model_name())
            .field("max_tokens", &self.max_tokens)
            .field("keep", &self.keep)
            .finish_non_exhaustive()
    }
}

impl<C, S> Middleware<C, S> for Summarization
where
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    fn name(&self) -> &str {
        "Summarization"
    }

    fn before_model<'a>(
        &'a self,
        request: &'a mut BeforeModel,
        _cx: &'a RunCx<'a, C, S>,
    ) -> Hook<'a, Result<Flow, MiddlewareError>> {
        Hook::boxed(async move {
            self.summarize(request).await?;
            Ok(Flow::Continue)
        })
    }
}
