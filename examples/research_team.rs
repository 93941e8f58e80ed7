//! A research team: a planner delegates to a researcher (which searches) and a writer (which
//! answers with a typed report). Each sub-agent is an `#[agent]` struct listed in the
//! planner's `tools(...)`: the planner's model sees them as tools with typed inputs, their
//! usage rolls up into the planner's run, and their events stream nested under their names.
//! Then a two-agent team hands a follow-up question from a front desk to the writer.
//!
//! Offline by default (the built-in `MockServer` plays every agent's model); set
//! `OPENAI_API_KEY` (or another provider's key, see `examples/support/mod.rs`) to use a real
//! model for all of them.
//!
//! Run: `cargo run --example research_team`

mod support;

use agentry::agent::{AgentEvent, Input};
use agentry::multi::{AgentInput, HandoffInput, Team};
use agentry::prelude::*;
use agentry::testing::{MockResponse, RecordedRequest};
use futures::StreamExt;
use serde_json::{Value, json};

/// Search the team's offline library of notes.
///
/// # Arguments
/// * `query` - Keywords to look for.
#[tool]
fn search(query: String) -> String {
    const LIBRARY: [(&str, &str); 4] = [
        ("rust 1.0", "Rust 1.0 was released on 15 May 2015."),
        (
            "rust editions",
            "Rust editions (2015, 2018, 2021, 2024) let the language evolve without breaking old code.",
        ),
        (
            "borrow checker",
            "The borrow checker rejects data races at compile time.",
        ),
        (
            "cargo",
            "Cargo builds code, fetches dependencies and runs tests.",
        ),
    ];
    let query = query.to_lowercase();
    let hits: Vec<&str> = LIBRARY
        .iter()
        .filter(|(key, _)| query.split_whitespace().any(|word| key.contains(word)))
        .map(|(_, note)| *note)
        .collect();
    if hits.is_empty() {
        "no notes found".to_string()
    } else {
        hits.join("\n")
    }
}

/// What the researcher found.
#[derive(Debug, Serialize, Deserialize, JsonSchema, StructuredOutput)]
struct Findings {
    /// One verified fact per entry.
    facts: Vec<String>,
}

/// A finished report.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, StructuredOutput)]
struct Report {
    /// A short title.
    title: String,
    /// Two or three sentences.
    summary: String,
    /// The facts the report rests on.
    facts: Vec<String>,
}

/// What the planner gives the writer: a topic and the facts to use.
#[derive(Debug, Deserialize, JsonSchema)]
struct Brief {
    /// What the report is about.
    topic: String,
    /// The facts to build it on, as the researcher found them.
    facts: Vec<String>,
}

impl AgentInput for Brief {
    fn into_input(self) -> Input {
        Input::new(format!(
            "Write a report about {}. Use only these facts:\n- {}",
            self.topic,
            self.facts.join("\n- ")
        ))
    }
}

/// You research a topic: search the library, then answer with the facts you found, each
/// in one sentence. Never invent a fact.
#[agent(
    tools(search),
    output = Findings,
    max_turns = 4,
    as_tool(description = "Finds facts about a topic in the library.")
)]
struct Researcher;

/// You write short, precise reports from the facts you are given.
#[agent(
    tools(),
    output = Report,
    as_tool(description = "Writes a report from a topic and facts.", input = Brief)
)]
struct Writer;

/// You plan reports: ask the researcher for facts, then give them to the writer. Answer
/// with one sentence saying what was written.
#[agent(tools(Researcher, Writer), max_turns = 6)]
struct Planner;

/// You answer the front desk. Questions about a report go to the writer.
#[agent(tools(), output = Report)]
struct FrontDesk;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = support::backend(mock_model).await?;
    let planner = Planner::builder(backend.model.clone()).build();

    // 1. The planner delegates, streamed: the sub-agents' events arrive nested.
    println!("user: Write a report about Rust's history.\n");
    let mut stream = planner.stream("Write a report about Rust's history.", ());
    while let Some(event) = stream.next().await {
        match event? {
            AgentEvent::ToolResult(step) => println!("planner ← {}", step.call.name),
            AgentEvent::SubAgent(nested) => {
                let (path, event) = nested.path();
                if let AgentEvent::ToolResult(step) = event {
                    let result = match &step.result {
                        Ok(out) => out.text_content().replace('\n', " | "),
                        Err(error) => error.model_message(),
                    };
                    println!("  {} ← {}: {result}", path.join("/"), step.call.name);
                }
            }
            _ => {}
        }
    }
    // The stream ended with `Done`; it keeps the result.
    let run = stream.result().await?;
    println!("\nplanner: {}", run.output);

    // The writer's typed report, straight from the tool result's artifact.
    let report: &Report = run
        .steps
        .iter()
        .find_map(|step| step.result.as_ref().ok()?.artifact::<Report>())
        .ok_or("the writer did not answer")?;
    println!("\n# {}\n{}\n", report.title, report.summary);
    for fact in &report.facts {
        println!("- {fact}");
    }

    println!("\nusage: {}", run.usage);
    for (agent, usage) in run.usage_by_agent() {
        println!("  {:<10} {usage}", agent.unwrap_or("planner"));
    }

    // 2. A handoff: the front desk passes a follow-up to the writer, which answers with the
    //    same `Report` type (checked at compile time) and sees the conversation without the
    //    front desk's tool calls.
    let team = Team::<Report>::builder()
        .agent(
            "front_desk",
            "Greets and routes.",
            FrontDesk::builder(backend.model.clone()),
        )
        .agent(
            "writer",
            "Writes and revises reports.",
            Writer::builder(backend.model.clone()),
        )
        .handoff_with("front_desk", "writer", HandoffInput::without_tools())
        .build()?;
    let follow_up = format!(
        "Please shorten the report \"{}\" to its first fact.",
        report.title
    );
    println!("\nuser: {follow_up}");
    let answer = team
        .run(Input::with_history(run.messages.clone(), follow_up), ())
        .await?;
    println!(
        "{} answered (after {:?}): {} — {}",
        answer.agent, answer.handoffs, answer.output.title, answer.output.summary
    );
    Ok(())
}

/// The offline stand-in for every agent's model: it tells the agents apart by their
/// instructions and plays each part from what the request holds.
fn mock_model(request: &RecordedRequest) -> MockResponse {
    let system = request.body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let results = request.tool_results_since_last_user();
    if system.starts_with("You research") {
        if results.is_empty() {
            return MockResponse::tool_calls(vec![ToolCall::new(
                "call_search",
                "search",
                json!({ "query": "rust 1.0 editions cargo" }).to_string(),
            )]);
        }
        let facts: Vec<&str> = results.iter().flat_map(|(_, text)| text.lines()).collect();
        return MockResponse::final_answer(request, "Findings", json!({ "facts": facts }));
    }
    if system.starts_with("You write") {
        let asked = request.last_user_text();
        let facts: Vec<String> = asked
            .lines()
            .filter_map(|line| line.strip_prefix("- "))
            .map(str::to_string)
            .collect();
        let (title, facts) = if facts.is_empty() {
            // A revision handed over by the front desk.
            let first = "Rust 1.0 was released on 15 May 2015.".to_string();
            ("Rust in one fact".to_string(), vec![first])
        } else {
            ("A short history of Rust".to_string(), facts)
        };
        let summary = facts.join(" ");
        return MockResponse::final_answer(
            request,
            "Report",
            json!({ "title": title, "summary": summary, "facts": facts }),
        );
    }
    if system.starts_with("You answer the front desk") {
        return MockResponse::tool_calls(vec![ToolCall::new(
            "call_transfer",
            "transfer_to_writer",
            "{}",
        )]);
    }
    // The planner: research, then write, then say what was written.
    let researched = results.iter().find(|(id, _)| id == "call_research");
    let written = results.iter().find(|(id, _)| id == "call_write");
    match (researched, written) {
        (None, _) => MockResponse::tool_calls(vec![ToolCall::new(
            "call_research",
            "researcher",
            json!({ "prompt": "Find facts about Rust's history: its 1.0 release, editions and tooling." })
                .to_string(),
        )]),
        (Some((_, findings)), None) => {
            let facts = serde_json::from_str::<Value>(findings)
                .map(|v| v["facts"].clone())
                .unwrap_or(Value::Null);
            MockResponse::tool_calls(vec![ToolCall::new(
                "call_write",
                "writer",
                json!({ "topic": "Rust's history", "facts": facts }).to_string(),
            )])
        }
        (Some(_), Some((_, report))) => {
            let title = serde_json::from_str::<Value>(report)
                .ok()
                .and_then(|v| v["title"].as_str().map(str::to_string))
                .unwrap_or_default();
            MockResponse::text(format!("The writer wrote \"{title}\" from the researcher's facts."))
        }
    }
}
