//! [`PiiCheck`]: personal data in the input, the output or a tool call, found with the PII
//! middleware's detectors.

use std::fmt;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::guard::Verdict;
use crate::guard::traits::{
    InputGuardrail, OutputGuardrail, ToolInputGuardrail, ToolOutputGuardrail,
};
use crate::message::{ContentBlock, ToolCall};
use crate::middleware::{Pii, PiiKind, PiiStrategy};
use crate::tool::ToolOutput;

/// Personal data as a guardrail: the rules of a [`Pii`] middleware (its detectors: emails,
/// card numbers that pass the Luhn check, IP addresses, API keys, your own patterns) applied
/// to one value. A rule with [`PiiStrategy::Block`] blocks (the reason names the kind, never
/// the data); the other strategies rewrite the value with the data redacted, masked or
/// hashed.
///
/// As an input guardrail, a rewrite cancels the first request (sent with the message as
/// written) and makes it again with the redacted one: to keep personal data from reaching the
/// provider at all, use the [`Pii`] middleware, which redacts before the request is built.
///
/// ```
/// use agentry::guard::builtin::PiiCheck;
/// use agentry::middleware::{Pii, PiiKind, PiiStrategy};
///
/// let check = PiiCheck::new(
///     Pii::new(PiiKind::CreditCard, PiiStrategy::Block).rule(PiiKind::Email, PiiStrategy::Redact),
/// );
/// assert_eq!(check.clean("mail ada@example.com").unwrap(), "mail [REDACTED_EMAIL]");
/// assert_eq!(check.clean("card 4111 1111 1111 1111").unwrap_err().to_string(), "credit_card found");
/// ```
#[derive(Clone, Debug)]
pub struct PiiCheck {
    name: String,
    pii: Pii,
}

/// Why a [`PiiCheck`] blocked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PiiFound {
    /// A kind of data whose rule blocks (its name: `email`, `credit_card`, ...).
    Kind(String),
    /// Data to redact in an output whose type does not take the redacted value back (a
    /// field that no longer parses).
    Unredactable,
}

impl fmt::Display for PiiFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PiiFound::Kind(kind) => write!(f, "{kind} found"),
            PiiFound::Unredactable => {
                f.write_str("personal data found, and the output does not parse once redacted")
            }
        }
    }
}

impl PiiCheck {
    /// The rules of `pii` (where that middleware looks does not matter here: the guardrail
    /// looks where it is declared).
    pub fn new(pii: Pii) -> Self {
        PiiCheck {
            name: "pii".to_string(),
            pii,
        }
    }

    /// Blocks every kind in `kinds`.
    pub fn block(kinds: impl IntoIterator<Item = PiiKind>) -> Self {
        PiiCheck::with_strategy(kinds, PiiStrategy::Block)
    }

    /// Redacts every kind in `kinds` (`[REDACTED_EMAIL]`).
    pub fn redact(kinds: impl IntoIterator<Item = PiiKind>) -> Self {
        PiiCheck::with_strategy(kinds, PiiStrategy::Redact)
    }

    fn with_strategy(kinds: impl IntoIterator<Item = PiiKind>, strategy: PiiStrategy) -> Self {
        PiiCheck::new(
            kinds
                .into_iter()
                .fold(Pii::empty(), |pii, kind| pii.rule(kind, strategy)),
        )
    }

    /// Names the guardrail (default `pii`), as a block reports it.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// `text` with every rule applied, or the kind a blocking rule found.
    pub fn clean(&self, text: &str) -> Result<String, PiiFound> {
        self.pii.clean(text).map_err(PiiFound::Kind)
    }

    /// `text` cleaned, as a verdict.
    fn verdict_text(&self, text: &str) -> Verdict<String, PiiFound> {
        match self.clean(text) {
            Err(found) => Verdict::Block(found),
            Ok(clean) if clean == text => Verdict::Pass,
            Ok(clean) => Verdict::Rewrite(clean),
        }
    }

    /// Every string in `value` cleaned; `Ok(true)` when one changed.
    fn clean_json(&self, value: &mut Value) -> Result<bool, PiiFound> {
        match value {
            Value::String(s) => {
                let clean = self.clean(s)?;
                let changed = clean != *s;
                *s = clean;
                Ok(changed)
            }
            Value::Array(items) => items
                .iter_mut()
                .try_fold(false, |changed, v| Ok(self.clean_json(v)? || changed)),
            Value::Object(map) => map
                .values_mut()
                .try_fold(false, |changed, v| Ok(self.clean_json(v)? || changed)),
            Value::Null | Value::Bool(_) | Value::Number(_) => Ok(false),
        }
    }
}

impl<C: Sync> InputGuardrail<C> for PiiCheck {
    type Reason = PiiFound;

    fn name(&self) -> &str {
        &self.name
    }

    async fn check(&self, message: &str, _: &C) -> Verdict<String, PiiFound> {
        self.verdict_text(message)
    }
}

/// Every string of the output, as it serializes; a rewrite is the output with its strings
/// cleaned, parsed back into `O`.
impl<O, C> OutputGuardrail<O, C> for PiiCheck
where
    O: Serialize + DeserializeOwned + Send + Sync,
    C: Sync,
{
    type Reason = PiiFound;

    fn name(&self) -> &str {
        &self.name
    }

    async fn check(&self, output: &O, _: &C) -> Verdict<O, PiiFound> {
        let Ok(mut json) = serde_json::to_value(output) else {
            return Verdict::Pass;
        };
        match self.clean_json(&mut json) {
            Err(found) => Verdict::Block(found),
            Ok(false) => Verdict::Pass,
            Ok(true) => serde_json::from_value(json)
                .map_or(Verdict::Block(PiiFound::Unredactable), Verdict::Rewrite),
        }
    }
}

/// The string values of the arguments (or their text, when it is not JSON).
impl<C: Sync> ToolInputGuardrail<C> for PiiCheck {
    type Reason = PiiFound;

    fn name(&self) -> &str {
        &self.name
    }

    async fn check(&self, call: &ToolCall, _: &C) -> Verdict<String, PiiFound> {
        let Ok(mut json) = serde_json::from_str::<Value>(&call.arguments) else {
            return self.verdict_text(&call.arguments);
        };
        match self.clean_json(&mut json) {
            Err(found) => Verdict::Block(found),
            Ok(false) => Verdict::Pass,
            Ok(true) => Verdict::Rewrite(json.to_string()),
        }
    }
}

/// The text blocks of the result.
impl<C: Sync> ToolOutputGuardrail<C> for PiiCheck {
    type Reason = PiiFound;

    fn name(&self) -> &str {
        &self.name
    }

    async fn check(
        &self,
        _: &ToolCall,
        output: &ToolOutput,
        _: &C,
    ) -> Verdict<ToolOutput, PiiFound> {
        let mut cleaned = output.clone();
        let mut changed = false;
        for block in &mut cleaned.content {
            if let ContentBlock::Text { text, .. } = block {
                match self.clean(text) {
                    Err(found) => return Verdict::Block(found),
                    Ok(clean) if clean != *text => {
                        *text = clean;
                        changed = true;
                    }
                    Ok(_) => {}
                }
            }
        }
        if changed {
            Verdict::Rewrite(cleaned)
        } else {
            Verdict::Pass
        }
    }
}
