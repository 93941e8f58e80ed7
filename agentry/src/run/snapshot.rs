//! A run as a value: [`RunSnapshot`] — the transcript, typed state, usage and the machine's
//! counters — which serializes, so a run can stop in one process and go on in another.

use serde::{Deserialize, Serialize};

use super::counters::Counters;
use super::result::{RequestUsage, Step};
use crate::message::{ContentBlock, Message, ToolCall};
use crate::tool::{ToolCallError, ToolError, ToolOutput};
use crate::usage::Usage;

/// Everything a run needs to go on, at the start of a turn: the transcript, the typed state,
/// the usage, the steps taken and the decision machine's counters.
///
/// Serializes with serde when `S` does. Two things do not survive serialization: tool
/// artifacts (they are program values, never sent to the model) and the variant of a failed
/// step's error (it comes back as [`ToolCallError::Failed`] with the same model-facing text).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunSnapshot<S> {
    /// The transcript, system message first.
    pub messages: Vec<Message>,
    /// The typed state.
    pub state: S,
    /// Tokens and requests spent.
    pub usage: Usage,
    /// Usage of each request, in order.
    pub request_usage: Vec<RequestUsage>,
    /// Each tool call with its result, in order.
    #[serde(with = "saved_steps")]
    pub steps: Vec<Step>,
    /// The decision machine's counters.
    pub counters: Counters,
}

mod saved_steps {
    use super::*;

    #[derive(Serialize, Deserialize)]
    struct SavedStep {
        turn: u32,
        call: ToolCall,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<Vec<ContentBlock>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<SavedError>,
    }

    #[derive(Serialize, Deserialize)]
    struct SavedError {
        tool: String,
        message: String,
    }

    pub(super) fn serialize<Ser: serde::Serializer>(
        steps: &[Step],
        s: Ser,
    ) -> Result<Ser::Ok, Ser::Error> {
        s.collect_seq(steps.iter().map(|step| {
            let (content, error) = match &step.result {
                Ok(output) => (Some(output.content.clone()), None),
                Err(e) => (
                    None,
                    Some(SavedError {
                        tool: e.tool().to_string(),
                        message: error_text(e),
                    }),
                ),
            };
            SavedStep {
                turn: step.turn,
                call: step.call.clone(),
                content,
                error,
            }
        }))
    }

    pub(super) fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<Step>, D::Error> {
        let saved = Vec::<SavedStep>::deserialize(d)?;
        Ok(saved
            .into_iter()
            .map(|s| Step {
                turn: s.turn,
                call: s.call,
                result: match s.error {
                    Some(e) => Err(ToolCallError::Failed {
                        tool: e.tool,
                        source: ToolError::new(e.message),
                    }),
                    None => Ok(ToolOutput {
                        content: s.content.unwrap_or_default(),
                        artifact: None,
                    }),
                },
            })
            .collect())
    }

    /// The error's text without the `tool ... failed:` prefix a `Failed` adds again.
    fn error_text(e: &ToolCallError) -> String {
        match e {
            ToolCallError::Failed { source, .. } => source.message.clone(),
            other => other.to_string(),
        }
    }
}
