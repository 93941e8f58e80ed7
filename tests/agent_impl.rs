//! `#[agent]` on an impl block: `&self` tool methods use the value's resources.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use agentry::agent::StopReason;
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use serde_json::json;

struct User {
    name: String,
}

/// A free tool, mixed in with `tools(...)`.
#[tool]
fn shout(text: String) -> String {
    text.to_uppercase()
}

/// Stands in for a database pool.
struct Inventory {
    stock: Mutex<HashMap<String, u32>>,
    queries: AtomicUsize,
}

/// You manage a shop's stock.
#[agent(tools(shout), context = User)]
impl Inventory {
    /// How many items of a product are in stock.
    ///
    /// # Arguments
    /// * `product` - The product name.
    #[tool]
    async fn count(&self, product: String) -> u32 {
        self.queries.fetch_add(1, Ordering::SeqCst);
        self.stock
            .lock()
            .unwrap()
            .get(&product)
            .copied()
            .unwrap_or(0)
    }

    /// Remove items from the stock.
    ///
    /// # Arguments
    /// * `product` - The product name.
    /// * `n` - How many.
    #[tool(sequential)]
    fn take(&self, product: String, n: u32, user: Context<User>) -> Result<String, String> {
        let mut stock = self.stock.lock().unwrap();
        let have = stock.entry(product.clone()).or_default();
        if *have < n {
            return Err(format!("only {have} {product} left"));
        }
        *have -= n;
        Ok(format!("{} took {n} {product}", user.name))
    }

    /// Not a tool: an ordinary method stays as it is.
    fn total(&self) -> u32 {
        self.stock.lock().unwrap().values().sum()
    }
}

#[tokio::test]
async fn tool_methods_share_the_agents_value() {
    let inventory = Arc::new(Inventory {
        stock: Mutex::new(HashMap::from([("apple".to_string(), 5)])),
        queries: AtomicUsize::new(0),
    });
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_calls([
            ToolCall::new("a", "count", r#"{"product":"apple"}"#),
            ToolCall::new("b", "take", r#"{"product":"apple","n":9}"#),
            ToolCall::new("c", "take", r#"{"product":"apple","n":2}"#),
            ToolCall::new("d", "shout", r#"{"text":"done"}"#),
        ]),
        Turn::text("Took two apples."),
    ]));
    let agent = Inventory::shared_builder(Arc::clone(&inventory), model.clone()).build();
    let names: Vec<&str> = agent
        .tool_definitions()
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    assert_eq!(names, ["count", "take", "shout"]);

    let run = agent
        .run("Take two apples", User { name: "Ada".into() })
        .await
        .unwrap();
    assert_eq!(run.output, "Took two apples.");
    assert_eq!(run.stop_reason, StopReason::FinalAnswer);
    let results: Vec<String> = run
        .steps
        .iter()
        .map(|s| match &s.result {
            Ok(out) => out.text_content(),
            Err(e) => e.to_string(),
        })
        .collect();
    assert_eq!(
        results,
        [
            "5",
            "tool `take` failed: only 5 apple left",
            "Ada took 2 apple",
            "DONE"
        ]
    );
    assert_eq!(inventory.total(), 3);
    assert_eq!(inventory.queries.load(Ordering::SeqCst), 1);
    assert_eq!(
        model.requests()[0].messages[0],
        Message::system("You manage a shop's stock.")
    );
}

#[tokio::test]
async fn into_builder_takes_the_value() {
    let model = ScriptedModel::new([
        Turn::tool_call("count", json!({ "product": "pear" })),
        Turn::text("None."),
    ]);
    let inventory = Inventory {
        stock: Mutex::new(HashMap::new()),
        queries: AtomicUsize::new(0),
    };
    let run = inventory
        .into_builder(model)
        .build()
        .run("Pears?", User { name: "Bo".into() })
        .await
        .unwrap();
    assert_eq!(run.steps[0].result.as_ref().unwrap().text_content(), "0");
}

/// `#[agent]` on an impl block in a submodule, with private tool methods of a private type:
/// the generated items must not be "more private than" each other (denied here, so a
/// regression is a compile error of this test).
#[deny(private_interfaces, private_bounds, warnings)]
mod private_tools {
    use agentry::prelude::*;

    struct Clerk {
        greeting: String,
    }

    #[agent]
    impl Clerk {
        /// Greet someone.
        ///
        /// # Arguments
        /// * `name` - Who.
        #[tool]
        fn greet(&self, name: String) -> String {
            format!("{} {name}", self.greeting)
        }
    }

    pub(super) async fn run() -> String {
        let model = agentry::testing::ScriptedModel::new([
            agentry::testing::Turn::tool_call("greet", serde_json::json!({ "name": "Ada" })),
            agentry::testing::Turn::text("done"),
        ]);
        let clerk = Clerk {
            greeting: "Hello".into(),
        };
        let run = clerk
            .into_builder(model)
            .build()
            .run("hi", ())
            .await
            .unwrap();
        run.steps[0].result.as_ref().unwrap().text_content()
    }
}

#[tokio::test]
async fn private_tool_methods_in_a_submodule_compile_without_warnings() {
    assert_eq!(private_tools::run().await, "Hello Ada");
}

/// A counter with `Default`: its agent is also built with `Tally::builder(model)`, on
/// `Tally::default()`, as a struct agent is.
#[derive(Default)]
struct Tally {
    calls: AtomicUsize,
}

/// You count.
#[agent]
impl Tally {
    /// Count one more.
    #[tool]
    fn bump(&self) -> usize {
        self.calls.fetch_add(1, Ordering::SeqCst) + 1
    }
}

#[tokio::test]
async fn builder_builds_on_the_default_value() {
    let model = ScriptedModel::new([
        Turn::tool_call("bump", json!({})),
        Turn::tool_call("bump", json!({})),
        Turn::text("Twice."),
    ]);
    let run = Tally::builder(model)
        .build()
        .run("Count twice", ())
        .await
        .unwrap();
    let results: Vec<String> = run
        .steps
        .iter()
        .map(|s| s.result.as_ref().unwrap().text_content())
        .collect();
    assert_eq!(results, ["1", "2"], "both calls share one default value");
    assert_eq!(run.output, "Twice.");
}
