//! `#[agent]` names the agent it builds (`type <Name>Agent`), so a helper function can return
//! one and a struct can hold one, for both the struct form and the impl form.

use std::sync::Mutex;

use agentry::model::SharedModel;
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use serde_json::json;

struct User {
    name: String,
}

/// Greet the user by name.
///
/// # Arguments
/// * `greeting` - How to greet, e.g. "Hello".
#[tool]
fn greet(greeting: String, user: Context<User>) -> String {
    format!("{greeting}, {}!", user.name)
}

/// A plan.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct Plan {
    /// How many days.
    days: u32,
}

/// You plan trips.
#[agent(tools(greet), context = User, output = Plan, max_turns = 5)]
struct Planner;

/// You answer in one word.
#[agent(tools())]
struct Echo;

struct Notes {
    lines: Mutex<Vec<String>>,
}

/// You keep notes.
#[agent(max_turns = 4)]
impl Notes {
    /// Add a note.
    ///
    /// # Arguments
    /// * `text` - The note.
    #[tool]
    fn add(&self, text: String) -> usize {
        let mut lines = self.lines.lock().unwrap();
        lines.push(text);
        lines.len()
    }
}

/// A helper returning a built struct-form agent, by name.
fn make_planner(model: SharedModel) -> PlannerAgent {
    Planner::builder(model).max_turns(3).build()
}

/// A helper returning a built impl-form agent, by name.
fn make_notes(model: SharedModel) -> NotesAgent {
    Notes {
        lines: Mutex::new(Vec::new()),
    }
    .into_builder(model)
    .build()
}

/// An application holding its agents in fields.
struct App {
    planner: PlannerAgent,
    echo: EchoAgent,
    notes: NotesAgent,
}

fn shared(turns: impl IntoIterator<Item = Turn>) -> SharedModel {
    std::sync::Arc::new(ScriptedModel::new(turns))
}

#[tokio::test]
async fn a_built_agent_is_returned_by_name_and_held_in_a_field() {
    let app = App {
        planner: make_planner(shared([
            Turn::tool_call("greet", json!({ "greeting": "Hello" })),
            Turn::text(r#"{"days": 3}"#),
        ])),
        echo: Echo::builder(shared([Turn::text("Paris.")])).build(),
        notes: make_notes(shared([
            Turn::tool_call("add", json!({ "text": "buy milk" })),
            Turn::text("Noted."),
        ])),
    };
    // The builder's settings survive the trip through the helper.
    assert_eq!(app.planner.policy().limits.max_turns, 3);

    let plan = app
        .planner
        .run("Plan three days", User { name: "Ada".into() })
        .await
        .unwrap();
    let days: u32 = plan.output.days;
    assert_eq!(days, 3);
    assert_eq!(plan.steps.len(), 1);

    let echo = app.echo.run("Capital of France?", ()).await.unwrap();
    let text: String = echo.output;
    assert_eq!(text, "Paris.");

    let notes = app.notes.run("Remember milk", ()).await.unwrap();
    assert_eq!(notes.output, "Noted.");
    assert_eq!(notes.steps.len(), 1);
}

#[test]
fn the_alias_is_the_agent_type_the_builder_returns() {
    fn same<T>(_: &T, _: &T) {}
    let built = Echo::builder(ScriptedModel::new([])).build();
    let named: EchoAgent = Echo::builder(ScriptedModel::new([])).build();
    same(&built, &named);
}
