//! How tools reach the model: native function calling, or ReAct text.
//!
//! # The seam
//!
//! The agent loop asks its [`ToolProtocol`] two things each turn: how to put the tools into the
//! request, and how to read a tool call (or the final answer) out of the reply.
//!
//! - [`ToolProtocol::Native`] (today's behaviour): tool definitions go in the request's `tools`
//!   field; calls come back as structured tool calls.
//! - [`ToolProtocol::React`]: the request carries no `tools`; the tools are rendered into the
//!   prompt by [`react::ReactPrompt`], the request stops at [`react::STOP_SEQUENCE`], and the
//!   reply text is read by [`react::parse`] (or [`react::ReactStream`] while streaming). Each
//!   tool result goes back as an `Observation:`; a parse error's text goes back as the
//!   correction, within the retry budget.
//!
//! [`ToolProtocol::for_profile`] picks ReAct for a model whose profile says it has no native
//! tool calling ([`ModelProfile::tool_calling`](crate::model::ModelProfile::tool_calling)).
//!
//! # In the agent loop
//!
//! An agent's protocol is chosen with
//! [`AgentBuilder::protocol`](crate::agent::AgentBuilder::protocol) or `#[agent(protocol =
//! react)]`; without either, an agent with tools uses ReAct when its model's profile has no
//! native tool calling. A ReAct agent's model is wrapped in a [`react::ReactModel`]: the loop
//! keeps working on native tool calls (so typed dispatch, dynamic tools, limits, state,
//! middleware, human review, checkpoints and the run's steps are the same for both protocols),
//! and only the wrapper speaks text to the model. A malformed reply comes back marked (see
//! [`react::correction`]); the run turns it into a correction within its output
//! retry budget.

pub mod react;

use std::sync::Arc;

use crate::message::{AssistantMessage, Message};
use crate::model::{ModelProfile, SharedModel};
use crate::output::{OutputParse, OutputSpec};

/// Settings of the ReAct protocol.
///
/// ```
/// use agentry::protocol::{ReactConfig, ToolProtocol};
/// use agentry::protocol::react::ReactPrompt;
///
/// let template = "Tools:\n{tools}\n\n{format_instructions}\n\nBegin!{scratchpad}";
/// let protocol = ToolProtocol::React(ReactConfig {
///     prompt: ReactPrompt::with_template(template).unwrap(),
/// });
/// # let _ = protocol;
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReactConfig {
    /// The prompt template (the default one unless replaced).
    pub prompt: react::ReactPrompt,
}

/// How an agent's tools reach its model.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ToolProtocol {
    /// Native function calling: tools in the request, structured tool calls back.
    #[default]
    Native,
    /// The ReAct text protocol.
    React(ReactConfig),
}

impl ToolProtocol {
    /// Native when the model can call tools natively, ReAct (default settings) otherwise.
    ///
    /// ```
    /// use agentry::model::ModelProfile;
    /// use agentry::protocol::ToolProtocol;
    ///
    /// assert_eq!(ToolProtocol::for_profile(&ModelProfile::full()), ToolProtocol::Native);
    /// assert!(matches!(
    ///     ToolProtocol::for_profile(&ModelProfile::text_only()),
    ///     ToolProtocol::React(_)
    /// ));
    /// ```
    pub fn for_profile(profile: &ModelProfile) -> Self {
        if profile.tool_calling {
            ToolProtocol::Native
        } else {
            ToolProtocol::React(ReactConfig::default())
        }
    }
}

impl ToolProtocol {
    /// The ReAct protocol with default settings.
    pub fn react() -> Self {
        ToolProtocol::React(ReactConfig::default())
    }

    /// `model` as this protocol needs it: as is for native calling, wrapped in a
    /// [`react::ReactModel`] for ReAct.
    pub fn wrap(&self, model: SharedModel) -> SharedModel {
        match self {
            ToolProtocol::Native => model,
            ToolProtocol::React(config) => Arc::new(react::ReactModel::new(model, config.clone())),
        }
    }
}

/// How the loop reads an answer: a malformed ReAct reply is a correction (within the output
/// retry budget), anything else is for the output spec.
pub(crate) fn parse_answer<O: OutputSpec>(
    output: &O,
    message: &AssistantMessage,
    closed: bool,
) -> OutputParse<O::Output> {
    match react::correction(message) {
        Some(correction) => OutputParse::Retry {
            feedback: vec![Message::user(correction)],
            error: format!("the reply did not follow the ReAct format: {correction}"),
        },
        None => output.parse_closed(message, closed),
    }
}
