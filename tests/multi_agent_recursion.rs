//! An agent that lists itself in `tools(...)` compiles and runs: a planner that hands parts of
//! a task to copies of itself. Each copy is a run of its own, nested no deeper than the top
//! agent's `max_sub_agent_depth`; a call past it is a tool error its model reads.

use std::collections::BTreeMap;
use std::sync::Arc;

use agentry::agent::RunResult;
use agentry::multi::DEFAULT_MAX_SUB_AGENT_DEPTH;
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use serde_json::json;

/// You split a task and hand each part to a planner like you.
#[agent(tools(Planner))]
struct Planner;

/// Runs a `Planner` whose model plays every level with `turns`, under `cap` when given (the
/// default otherwise). Returns the run and the model, whose script it checks was used whole.
async fn plan(turns: Vec<Turn>, cap: Option<u32>) -> (RunResult<String>, Arc<ScriptedModel>) {
    let model = Arc::new(ScriptedModel::new(turns));
    let mut builder = Planner::builder(model.clone());
    if let Some(cap) = cap {
        builder = builder.max_sub_agent_depth(cap);
    }
    let run = builder.build().run("Plan the release.", ()).await.unwrap();
    model.assert_complete();
    (run, model)
}

/// The last message of the model's `index`th request: where a refused call's error is read.
fn last_message(model: &ScriptedModel, index: usize) -> String {
    model.requests()[index].messages.last().unwrap().text()
}

#[tokio::test]
async fn an_agent_that_lists_itself_nests_up_to_the_cap() {
    // One model plays every level: each level asks a copy of itself; the copy at the cap is
    // refused and answers; then each level above it answers in turn.
    let (run, model) = plan(
        vec![
            Turn::tool_call("planner", json!({ "prompt": "part 1" })), // level 0
            Turn::tool_call("planner", json!({ "prompt": "part 1.1" })), // level 1
            Turn::tool_call("planner", json!({ "prompt": "part 1.1.1" })), // level 2: refused
            Turn::text("level 2 done"),
            Turn::text("level 1 done"),
            Turn::text("level 0 done"),
        ],
        Some(2),
    )
    .await;
    assert_eq!(run.output, "level 0 done");

    // Level 2's second request carries the refusal as its last message.
    let refusal = last_message(&model, 3);
    assert!(
        refusal.contains(
            "the `planner` agent was not run: agents are already nested 2 deep here, the most this run allows"
        ),
        "{refusal}"
    );
    // Two requests per level, each tagged with its path.
    let mut by_agent = BTreeMap::new();
    for request in &run.request_usage {
        *by_agent.entry(request.agent.clone()).or_insert(0) += 1;
    }
    assert_eq!(
        by_agent,
        BTreeMap::from([
            (None, 2),
            (Some("planner".to_string()), 2),
            (Some("planner/planner".to_string()), 2),
        ])
    );
}

#[tokio::test]
async fn a_cap_of_zero_runs_no_sub_agent() {
    let (run, model) = plan(
        vec![
            Turn::tool_call("planner", json!({ "prompt": "part 1" })),
            Turn::text("done alone"),
        ],
        Some(0),
    )
    .await;
    assert_eq!(run.output, "done alone");
    let refusal = last_message(&model, 1);
    assert!(refusal.contains("nested 0 deep"), "{refusal}");
}

#[tokio::test]
async fn without_a_cap_of_its_own_a_recursive_agent_stops_at_the_default() {
    // Every level asks a copy of itself; only the level at the default cap is refused.
    let depth = DEFAULT_MAX_SUB_AGENT_DEPTH as usize;
    let mut turns: Vec<Turn> = (0..=depth)
        .map(|level| Turn::tool_call("planner", json!({ "prompt": format!("level {level}") })))
        .collect();
    turns.extend(
        (0..=depth)
            .rev()
            .map(|level| Turn::text(format!("level {level} done"))),
    );
    let (run, model) = plan(turns, None).await;
    assert_eq!(run.output, "level 0 done");
    let refusal = last_message(&model, depth + 1);
    assert!(
        refusal.contains(&format!("nested {depth} deep")),
        "{refusal}"
    );
}
