//! What a paused run asks a reviewer ([`ReviewRequest`]) and what the reviewer may answer
//! ([`Decision`], [`DecisionKind`], [`Allowed`]). The middleware that asks is
//! [`HumanInTheLoop`](crate::middleware::HumanInTheLoop).

use std::fmt;

use serde::{Deserialize, Serialize};

/// One decision a reviewer may take on a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    /// Run the call as the model wrote it.
    Approve,
    /// Run the call with other arguments.
    Edit,
    /// Do not run it; tell the model why.
    Reject,
    /// Do not run it; answer in the tool's place.
    Respond,
    /// Answer the question the call stopped at (an [`Interrupt`](crate::Interrupt) or an
    /// external tool). Never allowed on a review.
    Answer,
}

impl DecisionKind {
    const ALL: [DecisionKind; 5] = [
        DecisionKind::Approve,
        DecisionKind::Edit,
        DecisionKind::Reject,
        DecisionKind::Respond,
        DecisionKind::Answer,
    ];

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for DecisionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DecisionKind::Approve => "approve",
            DecisionKind::Edit => "edit",
            DecisionKind::Reject => "reject",
            DecisionKind::Respond => "respond",
            DecisionKind::Answer => "answer",
        })
    }
}

/// The decisions allowed on a reviewed tool: never empty.
///
/// There is no empty constructor: a set is made from one [`DecisionKind`] and grown with `|`,
/// so a review policy without any allowed decision cannot be written.
///
/// ```
/// use agentry::middleware::{Allowed, DecisionKind::*};
///
/// let allowed = Approve | Reject;
/// assert!(allowed.contains(Reject));
/// assert!(!allowed.contains(Edit));
/// assert_eq!(Allowed::ALL.kinds().count(), 4);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Allowed(u8);

impl Allowed {
    /// Every decision on a review (approve, edit, reject, respond; an answer is only for a
    /// question).
    pub const ALL: Allowed = Allowed(0b1111);

    /// Whether `kind` is allowed.
    pub fn contains(self, kind: DecisionKind) -> bool {
        self.0 & kind.bit() != 0
    }

    /// The allowed decisions, in the order approve, edit, reject, respond.
    pub fn kinds(self) -> impl Iterator<Item = DecisionKind> {
        DecisionKind::ALL
            .into_iter()
            .filter(move |k| self.contains(*k))
    }
}

impl From<DecisionKind> for Allowed {
    fn from(kind: DecisionKind) -> Self {
        Allowed(kind.bit())
    }
}

impl std::ops::BitOr for DecisionKind {
    type Output = Allowed;
    fn bitor(self, rhs: DecisionKind) -> Allowed {
        Allowed(self.bit() | rhs.bit())
    }
}

impl std::ops::BitOr<DecisionKind> for Allowed {
    type Output = Allowed;
    fn bitor(self, rhs: DecisionKind) -> Allowed {
        Allowed(self.0 | rhs.bit())
    }
}

impl fmt::Debug for Allowed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.kinds()).finish()
    }
}

impl fmt::Display for Allowed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.kinds().map(|k| k.to_string()).collect();
        f.write_str(&names.join(", "))
    }
}

impl Serialize for Allowed {
    fn serialize<Ser: serde::Serializer>(&self, s: Ser) -> Result<Ser::Ok, Ser::Error> {
        s.collect_seq(self.kinds())
    }
}

impl<'de> Deserialize<'de> for Allowed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let kinds = Vec::<DecisionKind>::deserialize(d)?;
        let bits = kinds.iter().fold(0, |acc, k| acc | k.bit());
        if bits == 0 {
            return Err(serde::de::Error::custom(
                "a review allows at least one decision",
            ));
        }
        Ok(Allowed(bits))
    }
}

/// What a reviewer decided about one call.
///
/// As JSON (what a review page sends back), a decision is an object tagged by `"decision"`:
/// `approve` alone; `edit` with the new `arguments` (JSON, checked against the
/// tool's arguments on resume); `reject` with a `message` and `respond` with a `content`,
/// both sent to the model as the call's result. Unknown tags and missing fields do not
/// deserialize.
///
/// ```
/// use agentry::middleware::Decision;
/// use serde_json::json;
///
/// let decisions: Vec<Decision> = serde_json::from_value(json!([
///     { "decision": "approve" },
///     { "decision": "edit", "arguments": { "to": "carol@example.com", "body": "hi" } },
///     { "decision": "reject", "message": "Do not email bob." },
///     { "decision": "respond", "content": "Sent by hand." },
/// ]))
/// .unwrap();
/// assert_eq!(decisions[0], Decision::Approve);
/// assert_eq!(
///     serde_json::to_value(&decisions[2]).unwrap(),
///     json!({ "decision": "reject", "message": "Do not email bob." })
/// );
/// assert!(serde_json::from_value::<Decision>(json!({ "decision": "reject" })).is_err());
/// assert!(serde_json::from_value::<Decision>(json!({ "decision": "run_twice" })).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Run the call as the model wrote it.
    Approve,
    /// Run the call with these arguments (checked against the tool's argument type; a bad
    /// edit is an error for the caller of `resume`).
    Edit {
        /// The new arguments.
        arguments: serde_json::Value,
    },
    /// Do not run the call; the model receives `message` as its result.
    Reject {
        /// Why, for the model.
        message: String,
    },
    /// Do not run the call; the model receives `content` as the tool's result.
    Respond {
        /// The result.
        content: String,
    },
    /// The answer to the question the call stopped at ([`Pause::questions`](super::Pause::questions)):
    /// the call runs again from its start, and its `ask` returns `answer` (for an external
    /// tool, `answer` is its result). Checked against the tool's answer type on resume.
    Answer {
        /// The answer, as JSON.
        answer: serde_json::Value,
    },
}

impl Decision {
    /// The kind of this decision.
    pub fn kind(&self) -> DecisionKind {
        match self {
            Decision::Approve => DecisionKind::Approve,
            Decision::Edit { .. } => DecisionKind::Edit,
            Decision::Reject { .. } => DecisionKind::Reject,
            Decision::Respond { .. } => DecisionKind::Respond,
            Decision::Answer { .. } => DecisionKind::Answer,
        }
    }

    /// A [`Decision::Answer`] of `answer`, serialized.
    ///
    /// ```
    /// use agentry::middleware::Decision;
    ///
    /// let decision = Decision::answer(true).unwrap();
    /// assert_eq!(decision, Decision::Answer { answer: serde_json::json!(true) });
    /// ```
    pub fn answer(answer: impl Serialize) -> Result<Decision, serde_json::Error> {
        Ok(Decision::Answer {
            answer: serde_json::to_value(answer)?,
        })
    }
}

/// A call waiting for a reviewer: which one, what to show, what may be decided.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReviewRequest {
    /// The id of the call in the model's answer.
    pub call_id: String,
    /// The tool.
    pub tool: String,
    /// A description for the reviewer.
    pub description: String,
    /// The decisions allowed.
    pub allowed: Allowed,
}
