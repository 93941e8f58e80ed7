//! Programs a misuse survey expected to be rejected that compile on purpose (issue 35): each is
//! a documented decision, pinned here so a change that starts rejecting one is seen.

use agentry::prelude::*;
use agentry::schemars::{Schema, SchemaGenerator, json_schema};

/// A data enum with tuple variants is a structured output: schemars describes each variant
/// (`{"Rect": [w, h]}`) and serde reads it back, so the model can answer in that shape.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
enum Shape {
    Rect(u32, u32),
    Circle(u32),
}

/// You draw.
#[agent(tools(), output = Shape)]
struct Drawer;

/// Events ask only `Send + 'static` where they are declared; `Serialize` is asked where they
/// are sent as JSON (a served stream), not by every agent.
#[derive(Clone, Debug)]
#[allow(dead_code)]
struct Progress {
    done: u32,
}

/// You import.
#[agent(tools(), events = Progress)]
struct Importer;

/// An `Option` return is `null` or the value for the model; a `Result<_, String>` error is
/// a tool error the model reads.
#[tool]
async fn lookup(key: String) -> Option<String> {
    Some(key)
}

/// Looks up, strictly.
#[tool]
async fn lookup_strict(key: String) -> Result<String, String> {
    Ok(key)
}

/// `impl Serialize` is a return type like any `Serialize` one.
#[tool]
fn primes() -> impl Serialize {
    vec![2, 3, 5, 7]
}

fn search_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "object", "properties": { "q": { "type": "string" } }, "required": ["q"] })
}

/// A schema function named by a string path, as serde's and schemars' own attributes take
/// one.
#[tool(schema = "search_schema")]
fn search(q: String) -> String {
    q
}

#[derive(Deserialize)]
struct Minutes(String);

fn minutes_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "pattern": "^[0-9]+m$" })
}

/// Set a timer.
///
/// # Arguments
/// * `length` - How long, e.g. "5m".
#[tool]
fn set_timer(#[arg(schema_with = "minutes_schema")] length: Minutes) -> String {
    length.0
}

struct User {
    name: String,
}

/// `#[inject]` on a type the runtime injects anyway says what it already does.
#[tool]
fn whoami(#[inject] user: Context<User>) -> String {
    user.name.clone()
}

/// You look things up.
#[agent(tools(lookup, lookup_strict, primes, search, set_timer, whoami), context = User)]
struct Assistant;

/// A task.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct Task {
    /// What to do.
    title: String,
}

/// A list, or a box, of structured outputs is one (the list wrapped in an object for
/// providers whose root must be one).
#[agent(tools(), output = Vec<Task>)]
struct Planner;

/// You plan one task.
#[agent(tools(), output = Box<Task>)]
struct BoxedPlanner;

struct Clock {
    zone: String,
}

/// A tool method without `self` in an impl-block agent is a tool of the agent that needs
/// none of its fields.
#[agent]
impl Clock {
    /// The current hour.
    #[tool]
    fn hour() -> u32 {
        12
    }
}

fn main() {
    let model = agentry::testing::TestModel::new;
    drop(Drawer::builder(model()).build().run("draw", ()));
    drop(Importer::builder(model()).build().run("import", ()));
    let assistant = Assistant::builder(model()).build();
    drop(assistant.run("who am I?", User { name: "Ada".into() }));
    drop(Planner::builder(model()).build().run("plan my day", ()));
    drop(BoxedPlanner::builder(model()).build().run("plan", ()));
    let clock = Clock { zone: "UTC".into() };
    let _ = &clock.zone;
    drop(
        clock
            .into_builder(model())
            .build()
            .run("what time is it?", ()),
    );
    // A `#[tool]` function is still a function: tests call it directly.
    drop(lookup("x".to_string()));
}
