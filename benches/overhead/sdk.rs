//! The SDK client: the `#[agent]` with the `#[tool]`, over the OpenAI Chat Completions provider.

use std::sync::Arc;

use agent_sdk::Error;
use agent_sdk::agent::Agent;
use agent_sdk::providers::openai::OpenAiModel;

use crate::job::{self, Forecaster};

/// The built agent, shared by all runs (one model, so one connection pool).
pub struct Sdk {
    agent: AgentOf,
}

type AgentOf = Agent<Forecaster, agent_sdk::output::TextOutput, (), ()>;

impl Sdk {
    /// An agent whose model talks to the server at `base_url`.
    pub fn new(base_url: &str) -> Result<Sdk, Error> {
        let model = OpenAiModel::builder(job::MODEL)
            .base_url(base_url)
            .api_key(job::API_KEY)
            .build()?;
        Ok(Sdk {
            agent: Forecaster::builder(model).build(),
        })
    }

    /// One run of the agent; its final answer.
    pub async fn run(self: Arc<Self>, question: &str) -> Result<String, Error> {
        Ok(self.agent.run(question, ()).await?.output)
    }
}
