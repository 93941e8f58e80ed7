//! [`MaxLength`]: a limit on the length of text.

use std::fmt;

use serde::Serialize;

use super::text::{strings_of, texts_of};
use crate::guard::Verdict;
use crate::guard::traits::{
    InputGuardrail, OutputGuardrail, ToolInputGuardrail, ToolOutputGuardrail,
};
use crate::message::ToolCall;
use crate::tool::ToolOutput;

/// Blocks text longer than a number of characters (Unicode scalar values): the user's
/// message, the output (all its strings together), a tool call's arguments (their JSON
/// text) or a tool's result (its text blocks together).
///
/// ```
/// use agentry::guard::builtin::{MaxLength, TooLong};
///
/// let limit = MaxLength::chars(5);
/// assert_eq!(limit.exceeded("héllo"), None);
/// assert_eq!(limit.exceeded("héllo!"), Some(TooLong { max: 5, chars: 6 }));
/// ```
#[derive(Clone, Debug)]
pub struct MaxLength {
    name: String,
    max: usize,
}

/// Why a [`MaxLength`] blocked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLong {
    /// The limit.
    pub max: usize,
    /// The length found.
    pub chars: usize,
}

impl fmt::Display for TooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the text is {} characters long, over the limit of {}",
            self.chars, self.max
        )
    }
}

impl MaxLength {
    /// At most `max` characters.
    pub fn chars(max: usize) -> Self {
        MaxLength {
            name: "max_length".to_string(),
            max,
        }
    }

    /// Names the guardrail (default `max_length`), as a block reports it.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The limit and the length of `text`, when it is over the limit.
    pub fn exceeded(&self, text: &str) -> Option<TooLong> {
        self.over(text.chars().count())
    }

    fn over(&self, chars: usize) -> Option<TooLong> {
        (chars > self.max).then_some(TooLong {
            max: self.max,
            chars,
        })
    }

    fn verdict<V>(&self, chars: usize) -> Verdict<V, TooLong> {
        self.over(chars).map_or(Verdict::Pass, Verdict::Block)
    }
}

impl<C: Sync> InputGuardrail<C> for MaxLength {
    type Reason = TooLong;

    fn name(&self) -> &str {
        &self.name
    }

    async fn check(&self, message: &str, _: &C) -> Verdict<String, TooLong> {
        self.verdict(message.chars().count())
    }
}

impl<O: Serialize + Sync, C: Sync> OutputGuardrail<O, C> for MaxLength {
    type Reason = TooLong;

    fn name(&self) -> &str {
        &self.name
    }

    async fn check(&self, output: &O, _: &C) -> Verdict<O, TooLong> {
        self.verdict(strings_of(output).iter().map(|s| s.chars().count()).sum())
    }
}

impl<C: Sync> ToolInputGuardrail<C> for MaxLength {
    type Reason = TooLong;

    fn name(&self) -> &str {
        &self.name
    }

    async fn check(&self, call: &ToolCall, _: &C) -> Verdict<String, TooLong> {
        self.verdict(call.arguments.chars().count())
    }
}

impl<C: Sync> ToolOutputGuardrail<C> for MaxLength {
    type Reason = TooLong;

    fn name(&self) -> &str {
        &self.name
    }

    async fn check(
        &self,
        _: &ToolCall,
        output: &ToolOutput,
        _: &C,
    ) -> Verdict<ToolOutput, TooLong> {
        self.verdict(texts_of(output).map(|t| t.chars().count()).sum())
    }
}
