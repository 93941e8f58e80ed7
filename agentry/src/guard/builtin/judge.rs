//! [`LlmJudge`]: another model decides, and its verdict is a typed structured output.

use std::fmt;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::guard::Verdict;
use crate::guard::traits::{InputGuardrail, OutputGuardrail};
use crate::message::Message;
use crate::model::{IntoSharedModel, SharedModel};
use crate::output::{StructuredExt, StructuredOutput};

/// A judge's typed verdict: a [`StructuredOutput`] the judging model fills, which says
/// whether the text may go on and why not.
///
/// [`SafetyVerdict`] is one; write your own to ask for more (a category, a severity) and
/// read it back from the run's error with
/// [`GuardReason::downcast_ref::<JudgeReason<YourVerdict>>`](crate::guard::GuardReason::downcast_ref).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a judge's verdict",
    label = "an `LlmJudge` needs a verdict type that says whether the text may go on",
    note = "derive `Deserialize, JsonSchema, StructuredOutput` for `{Self}` and implement `JudgeVerdict` for it (`allowed` and `reason`)"
)]
pub trait JudgeVerdict: StructuredOutput + fmt::Debug + Send + Sync + 'static {
    /// Whether the judged text may go on.
    fn allowed(&self) -> bool;

    /// Why not (shown in the run's error).
    fn reason(&self) -> String;
}

/// The default verdict: allowed or not, with a reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, StructuredOutput)]
pub struct SafetyVerdict {
    /// Whether the text follows the policy.
    pub allowed: bool,
    /// One sentence: why the text does or does not follow the policy.
    pub reason: String,
}

impl JudgeVerdict for SafetyVerdict {
    fn allowed(&self) -> bool {
        self.allowed
    }

    fn reason(&self) -> String {
        self.reason.clone()
    }
}

/// Why an [`LlmJudge`] blocked: the judge's verdict, or (by default, failing closed) that no
/// verdict could be had.
#[derive(Debug)]
pub enum JudgeReason<V> {
    /// The judge did not allow the text.
    Verdict(V),
    /// The judging model failed, refused, or kept answering outside the verdict's schema.
    Unavailable(String),
}

impl<V: JudgeVerdict> fmt::Display for JudgeReason<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JudgeReason::Verdict(v) => f.write_str(&v.reason()),
            JudgeReason::Unavailable(why) => write!(f, "the judge gave no verdict: {why}"),
        }
    }
}

/// A guardrail that asks another model: the judge gets `policy` as its instructions and the
/// text as the user's message, and answers with a typed verdict `V` through
/// [`structured`](crate::output::StructuredExt::structured) (validated, re-asked when
/// invalid). Use a small, fast model: as an input guardrail it runs beside the agent's first
/// request, and its latency is hidden only while it is shorter than that request.
///
/// When the judge cannot answer, the text is blocked ([`JudgeReason::Unavailable`]); call
/// [`fail_open`](LlmJudge::fail_open) to let it through instead. The judge's usage is its
/// own model's (count it with a [`UsageTracker`](crate::model::UsageTracker) on that model).
///
/// ```
/// use agentry::guard::builtin::{LlmJudge, SafetyVerdict};
/// use agentry::testing::{ScriptedModel, Turn};
///
/// let judge_model = ScriptedModel::new([Turn::text(r#"{"allowed": true, "reason": "on topic"}"#)]);
/// let judge: LlmJudge<SafetyVerdict> =
///     LlmJudge::new(judge_model, "Allow only questions about cooking.");
/// ```
pub struct LlmJudge<V = SafetyVerdict> {
    name: String,
    model: SharedModel,
    policy: String,
    fail_open: bool,
    verdict: PhantomData<fn() -> V>,
}

impl<V> LlmJudge<V> {
    /// A judge on `model` enforcing `policy` (the judge's instructions). (`V: JudgeVerdict`
    /// is asked where the judge is used as a guardrail, so a verdict type that is not one is
    /// one error there naming `JudgeVerdict`, not "`new` exists but its trait bounds were not
    /// satisfied".)
    pub fn new(model: impl IntoSharedModel, policy: impl Into<String>) -> Self {
        LlmJudge {
            name: "llm_judge".to_string(),
            model: model.into_shared_model(),
            policy: policy.into(),
            fail_open: false,
            verdict: PhantomData,
        }
    }
}

impl<V: JudgeVerdict> LlmJudge<V> {
    /// Names the guardrail (default `llm_judge`), as a block reports it.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Lets the text through when the judge cannot answer (default: block it).
    pub fn fail_open(mut self) -> Self {
        self.fail_open = true;
        self
    }

    /// The judge's verdict on `text`, as a guardrail's.
    pub async fn judge<T>(&self, text: String) -> Verdict<T, JudgeReason<V>> {
        let asked = self
            .model
            .structured::<V>()
            .invoke(vec![
                Message::system(self.policy.clone()),
                Message::user(text),
            ])
            .await;
        match asked {
            Ok(verdict) if verdict.allowed() => Verdict::Pass,
            Ok(verdict) => Verdict::Block(JudgeReason::Verdict(verdict)),
            Err(error) if self.fail_open => {
                tracing::warn!(guardrail = %self.name, %error, "the judge gave no verdict; letting the text through");
                Verdict::Pass
            }
            Err(error) => Verdict::Block(JudgeReason::Unavailable(error.to_string())),
        }
    }
}

impl<V> fmt::Debug for LlmJudge<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmJudge")
            .field("name", &self.name)
            .field("model", &self.model.model_name())
            .field("verdict", &std::any::type_name::<V>())
            .finish_non_exhaustive()
    }
}

impl<V: JudgeVerdict, C: Sync> InputGuardrail<C> for LlmJudge<V> {
    type Reason = JudgeReason<V>;

    fn name(&self) -> &str {
        &self.name
    }

    async fn check(&self, message: &str, _: &C) -> Verdict<String, JudgeReason<V>> {
        self.judge(message.to_string()).await
    }
}

/// The output as the judge reads it: a `String` as it is, anything else as its JSON.
impl<V: JudgeVerdict, O: Serialize + Sync, C: Sync> OutputGuardrail<O, C> for LlmJudge<V> {
    type Reason = JudgeReason<V>;

    fn name(&self) -> &str {
        &self.name
    }

    async fn check(&self, output: &O, _: &C) -> Verdict<O, JudgeReason<V>> {
        let text = match serde_json::to_value(output) {
            Ok(serde_json::Value::String(text)) => text,
            Ok(json) => json.to_string(),
            Err(error) => {
                return Verdict::Block(JudgeReason::Unavailable(format!(
                    "the output does not serialize: {error}"
                )));
            }
        };
        self.judge(text).await
    }
}
