//! [`Pii`]: finds personal data (emails, card numbers, IP addresses, API keys, your own
//! patterns) in input, output and tool results, and blocks, redacts, masks or hashes it.

use std::net::Ipv4Addr;
use std::sync::LazyLock;

use regex::Regex;

use super::{AfterModel, Flow, Hook, Middleware, MiddlewareError, RunCx, ToolNext};
use crate::message::{ContentBlock, Message, ToolCall};
use crate::model::ChatResponse;
use crate::tool::{ToolCallError, ToolError, ToolOutput, ToolRuntime};

/// A kind of personal data.
#[derive(Clone, Debug)]
pub enum PiiKind {
    /// Email addresses.
    Email,
    /// Payment card numbers (13 to 19 digits, spaces or dashes allowed) that pass the Luhn
    /// check.
    CreditCard,
    /// IPv4 addresses.
    IpAddress,
    /// Strings that look like API keys or tokens (`sk-...`, `AKIA...`, `ghp_...`, ...).
    ApiKey,
    /// Your own pattern, with a name used in redactions and errors.
    Custom {
        /// The name, e.g. `employee_id`.
        name: String,
        /// The pattern.
        pattern: Regex,
    },
}

impl PiiKind {
    /// The kind's name, as it appears in redactions (`[REDACTED_EMAIL]`).
    pub fn name(&self) -> &str {
        match self {
            PiiKind::Email => "email",
            PiiKind::CreditCard => "credit_card",
            PiiKind::IpAddress => "ip",
            PiiKind::ApiKey => "api_key",
            PiiKind::Custom { name, .. } => name,
        }
    }

    /// The byte ranges of this kind of data in `text`, in order.
    pub fn find(&self, text: &str) -> Vec<std::ops::Range<usize>> {
        static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
                .expect("a valid pattern")
        });
        static CARD: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"\b\d(?:[ -]?\d){12,18}\b").expect("a valid pattern"));
        static IP: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"\b\d{1,3}(?:\.\d{1,3}){3}\b").expect("a valid pattern"));
        static KEY: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(
                r"\b(?:(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}|xox[abpr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35})\b",
            )
            .expect("a valid pattern")
        });
        let ranges = |re: &Regex| re.find_iter(text).map(|m| m.range()).collect::<Vec<_>>();
        match self {
            PiiKind::Email => ranges(&EMAIL),
            PiiKind::CreditCard => CARD
                .find_iter(text)
                .filter(|m| luhn(m.as_str()))
                .map(|m| m.range())
                .collect(),
            PiiKind::IpAddress => IP
                .find_iter(text)
                .filter(|m| m.as_str().parse::<Ipv4Addr>().is_ok())
                .map(|m| m.range())
                .collect(),
            PiiKind::ApiKey => ranges(&KEY),
            PiiKind::Custom { pattern, .. } => ranges(pattern),
        }
    }
}

/// Whether the digits of `text` pass the Luhn check (13 to 19 digits).
pub fn luhn(text: &str) -> bool {
    let digits: Vec<u32> = text.chars().filter_map(|c| c.to_digit(10)).collect();
    if !(13..=19).contains(&digits.len()) {
        return false;
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 1 {
                let d = d * 2;
                if d > 9 { d - 9 } else { d }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// What to do with personal data that is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PiiStrategy {
    /// Stop the run with an error naming the kind (never the data).
    Block,
    /// Replace it with `[REDACTED_<KIND>]`.
    Redact,
    /// Hide all but a little: the first letter and the domain of an email, the last four
    /// digits of a card, the last part of an IP address, the first four characters of a key.
    Mask,
    /// Replace it with `<kind_hash:...>`, the same for the same value, so the model can still
    /// tell values apart. The hash is FNV-1a (64 bits): a pseudonym, not a secret-keeping
    /// digest.
    Hash,
}

/// One kind of data with its strategy and where it applies.
#[derive(Clone, Debug)]
struct Rule {
    kind: PiiKind,
    strategy: PiiStrategy,
}

/// Where a [`Pii`] middleware looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Scope {
    input: bool,
    output: bool,
    tool_results: bool,
}

/// Personal-data detection (LangChain's `PIIMiddleware`): each rule finds one kind of data
/// and applies its strategy. By default it looks at the input (the user messages the run
/// starts with); turn on the model's answers and the tool results as needed.
///
/// ```
/// use agentry::middleware::{Pii, PiiKind, PiiStrategy};
///
/// let pii = Pii::new(PiiKind::Email, PiiStrategy::Redact)
///     .rule(PiiKind::CreditCard, PiiStrategy::Mask)
///     .apply_to_tool_results(true);
/// let clean = pii.clean("write to ada@example.com, card 4111 1111 1111 1111").unwrap();
/// assert_eq!(clean, "write to [REDACTED_EMAIL], card ****-****-****-1111");
/// ```
#[derive(Clone, Debug)]
pub struct Pii {
    rules: Vec<Rule>,
    scope: Scope,
}

impl Pii {
    /// One rule, applied to the input.
    pub fn new(kind: PiiKind, strategy: PiiStrategy) -> Self {
        Pii {
            rules: vec![Rule { kind, strategy }],
            scope: Scope {
                input: true,
                output: false,
                tool_results: false,
            },
        }
    }

    /// No rules yet (the guardrail [`PiiCheck`](crate::guard::builtin::PiiCheck) adds them).
    pub(crate) fn empty() -> Self {
        Pii {
            rules: Vec::new(),
            scope: Scope {
                input: true,
                output: false,
                tool_results: false,
            },
        }
    }

    /// A rule for your own pattern; `Err` when the pattern is not a valid regex.
    pub fn custom(
        name: impl Into<String>,
        pattern: &str,
        strategy: PiiStrategy,
    ) -> Result<Self, regex::Error> {
        Ok(Pii::new(
            PiiKind::Custom {
                name: name.into(),
                pattern: Regex::new(pattern)?,
            },
            strategy,
        ))
    }

    /// Adds a rule.
    pub fn rule(mut self, kind: PiiKind, strategy: PiiStrategy) -> Self {
        self.rules.push(Rule { kind, strategy });
        self
    }

    /// Whether the user messages the run starts with are checked (default yes).
    pub fn apply_to_input(mut self, on: bool) -> Self {
        self.scope.input = on;
        self
    }

    /// Whether the model's answers are checked (default no).
    pub fn apply_to_output(mut self, on: bool) -> Self {
        self.scope.output = on;
        self
    }

    /// Whether tool results are checked before the model sees them (default no).
    pub fn apply_to_tool_results(mut self, on: bool) -> Self {
        self.scope.tool_results = on;
        self
    }

    /// `text` with every rule applied; `Err` names the kind a `Block` rule found.
    pub fn clean(&self, text: &str) -> Result<String, String> {
        let mut text = text.to_string();
        for rule in &self.rules {
            let found = rule.kind.find(&text);
            if found.is_empty() {
                continue;
            }
            if rule.strategy == PiiStrategy::Block {
                return Err(rule.kind.name().to_string());
            }
            for range in found.into_iter().rev() {
                let value = &text[range.clone()];
                let replacement = replace(&rule.kind, rule.strategy, value);
                text.replace_range(range, &replacement);
            }
        }
        Ok(text)
    }

    fn clean_blocks(
        &self,
        blocks: &mut [ContentBlock],
        place: &str,
    ) -> Result<(), MiddlewareError> {
        for block in blocks {
            if let ContentBlock::Text { text, .. } = block {
                *text = self.clean(text).map_err(|kind| {
                    MiddlewareError::new("Pii", format!("{kind} found in {place}"))
                })?;
            }
        }
        Ok(())
    }
}

fn replace(kind: &PiiKind, strategy: PiiStrategy, value: &str) -> String {
    let name = kind.name();
    match strategy {
        PiiStrategy::Block => String::new(),
        PiiStrategy::Redact => format!("[REDACTED_{}]", name.to_uppercase()),
        PiiStrategy::Hash => format!("<{name}_hash:{:016x}>", fnv1a(value.as_bytes())),
        PiiStrategy::Mask => match kind {
            PiiKind::Email => match value.split_once('@') {
                Some((user, domain)) => {
                    let first: String = user.chars().take(1).collect();
                    format!("{first}***@{domain}")
                }
                None => "***".to_string(),
            },
            PiiKind::CreditCard => {
                let digits: String = value.chars().filter(char::is_ascii_digit).collect();
                format!(
                    "****-****-****-{}",
                    &digits[digits.len().saturating_sub(4)..]
                )
            }
            PiiKind::IpAddress => {
                let last = value.rsplit('.').next().unwrap_or("*");
                format!("*.*.*.{last}")
            }
            PiiKind::ApiKey => {
                let head: String = value.chars().take(4).collect();
                format!("{head}****")
            }
            PiiKind::Custom { .. } => {
                let n = value.chars().count();
                let tail: String = value.chars().skip(n.saturating_sub(4)).collect();
                format!("{}{tail}", "*".repeat(n.saturating_sub(4)))
            }
        },
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl<C, S> Middleware<C, S> for Pii
where
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    fn name(&self) -> &str {
        "Pii"
    }

    fn before_agent<'a>(
        &'a self,
        messages: &'a mut Vec<Message>,
        _cx: &'a RunCx<'a, C, S>,
    ) -> Hook<'a, Result<Flow, MiddlewareError>> {
        if !self.scope.input {
            return Hook::ready(Ok(Flow::Continue));
        }
        for message in messages.iter_mut() {
            if let Message::User(user) = message
                && let Err(e) = self.clean_blocks(&mut user.content, "the input")
            {
                return Hook::ready(Err(e));
            }
        }
        Hook::ready(Ok(Flow::Continue))
    }

    fn after_model<'a>(
        &'a self,
        response: &'a mut ChatResponse,
        _cx: &'a RunCx<'a, C, S>,
    ) -> Hook<'a, Result<AfterModel, MiddlewareError>> {
        if !self.scope.output {
            return Hook::ready(Ok(AfterModel::Continue));
        }
        let cleaned = self.clean_blocks(&mut response.message.content, "the model's answer");
        Hook::ready(cleaned.map(|()| AfterModel::Continue))
    }

    fn wrap_tool_call<'a>(
        &'a self,
        call: ToolCall,
        _runtime: &'a ToolRuntime<C, S>,
        next: ToolNext<'a, C, S>,
    ) -> Hook<'a, Result<ToolOutput, ToolCallError>> {
        if !self.scope.tool_results {
            return next.run(call);
        }
        Hook::boxed(async move {
            let tool = call.name.clone();
            let mut output = next.run(call).await?;
            // A tool result that must not reach the model becomes an error the model reads,
            // without the data.
            match self.clean_blocks(&mut output.content, "the tool result") {
                Ok(()) => Ok(output),
                Err(e) => Err(ToolCallError::Failed {
                    tool,
                    source: ToolError::new(e.message),
                }),
            }
        })
    }
}
