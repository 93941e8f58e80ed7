//! The SDK client: the `#[agent]` with the `#[tool]`, over the OpenAI Chat Completions provider.

use std::sync::Arc;

use agentry::Error;
use agentry::agent::Agent;
use agentry::providers::openai::OpenAiModel;
use futures::StreamExt;

use crate::job::{self, Forecaster};

/// The built agent, shared by all runs (one model, so one connection pool).
pub struct Sdk {
    agent: AgentOf,
}

/// The agent type of the bench.
pub type AgentOf = Agent<Forecaster, agentry::output::TextOutput, (), ()>;

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

    /// The agent.
    pub fn agent(&self) -> &AgentOf {
        &self.agent
    }

    /// One run of the agent; its final answer.
    pub async fn run(self: Arc<Self>, question: &str) -> Result<String, Error> {
        Ok(self.agent.run(question, ()).await?.output)
    }

    /// One streamed run, every event consumed; then the final answer the stream holds.
    pub async fn run_stream(self: Arc<Self>, question: &str) -> Result<String, Error> {
        let mut events = self.agent.stream(question, ());
        while let Some(event) = events.next().await {
            event?;
        }
        Ok(events.result().await?.output)
    }
}
