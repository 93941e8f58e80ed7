//! The mail agent the pause tests share: a reviewed `send_email`, an unreviewed `search`.

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agentry::agent::{Agent, AgentBuilder, Outcome, Pause};
use agentry::middleware::{DecisionKind::*, HumanInTheLoop};
use agentry::output::TextOutput;
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use serde_json::json;

#[derive(Debug, Default)]
pub struct Mailer {
    pub sent: AtomicUsize,
    pub to: std::sync::Mutex<Vec<String>>,
}

impl Mailer {
    pub fn sent(&self) -> usize {
        self.sent.load(Ordering::SeqCst)
    }

    pub fn recipients(&self) -> Vec<String> {
        self.to.lock().unwrap().clone()
    }
}

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outbox {
    pub sent: Vec<String>,
    pub searches: u32,
}

/// Send an email.
///
/// # Arguments
/// * `to` - The recipient's address.
/// * `body` - The text.
#[tool]
pub fn send_email(to: String, body: String, mailer: Context<Mailer>) -> String {
    let _ = body;
    mailer.sent.fetch_add(1, Ordering::SeqCst);
    mailer.to.lock().unwrap().push(to.clone());
    format!("sent to {to}")
}

/// Search the archive.
///
/// # Arguments
/// * `query` - What to look for.
#[tool]
pub fn search(query: String, outbox: State<Outbox>) -> String {
    outbox.update(|o| o.searches += 1);
    format!("3 results for {query}")
}

/// You send emails.
#[agent(tools(send_email, search), context = Mailer, state = Outbox)]
pub struct Assistant;

pub type Mail = Agent<Assistant, TextOutput, Mailer, Outbox>;
pub type MailBuilder = AgentBuilder<Assistant, TextOutput, Mailer, Outbox>;

/// A search, an email to bob (reviewed), then "All done.".
pub fn model() -> ScriptedModel {
    ScriptedModel::new([
        Turn::tool_calls([
            ToolCall::new("s1", "search", r#"{"query":"invoices"}"#),
            ToolCall::new(
                "e1",
                "send_email",
                json!({"to": "bob@example.com", "body": "hello"}).to_string(),
            ),
        ]),
        Turn::text("All done."),
    ])
}

/// Only the answer after the pause.
pub fn rest() -> ScriptedModel {
    ScriptedModel::new([Turn::text("All done.")])
}

/// The builder with `send_email` reviewed, allowing `allowed`.
pub fn builder(
    model: impl agentry::agent::IntoSharedModel,
    allowed: agentry::middleware::Allowed,
) -> MailBuilder {
    Assistant::builder(model).middleware(HumanInTheLoop::new().review_tool::<send_email>(allowed))
}

pub fn agent(model: impl agentry::agent::IntoSharedModel) -> Mail {
    builder(model, Approve | Edit | Reject | Respond).build()
}

pub async fn pause_of(agent: &Mail) -> Pause<Outbox> {
    match agent
        .run_or_pause("Email bob", Mailer::default())
        .await
        .unwrap()
    {
        Outcome::Paused(pause) => *pause,
        Outcome::Finished(run) => panic!("expected a pause, got {:?}", run.output),
    }
}

/// A pause of [`agent`], as JSON.
pub async fn paused_json() -> serde_json::Value {
    serde_json::to_value(pause_of(&agent(model())).await).unwrap()
}

pub fn mailer() -> Arc<Mailer> {
    Arc::new(Mailer::default())
}
