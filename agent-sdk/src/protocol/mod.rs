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
//! The agent loop does not consult this yet: the integration (the `.protocol(..)` builder
//! option, the loop's use of the parser, streaming into `AgentEvent`s, intermediate steps) is a
//! separate step; this module is the sans-IO core it will call.

pub mod react;

use crate::model::ModelProfile;

/// Settings of the ReAct protocol.
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
    /// use agent_sdk::model::ModelProfile;
    /// use agent_sdk::protocol::ToolProtocol;
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
