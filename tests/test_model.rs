//! `TestModel` exercises an agent's wiring with zero scripting: every tool is called once with
//! arguments generated from its schema, then the output comes back valid.

use agentry::agent::StopReason;
use agentry::prelude::*;
use agentry::testing::TestModel;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Units {
    Celsius,
    Fahrenheit,
}

struct User {
    id: u64,
}

#[derive(Debug, Default)]
struct Trip {
    hotels: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Stay {
    /// Where.
    city: String,
    /// How many nights, 1 to 14.
    #[schemars(range(min = 1, max = 14))]
    nights: u32,
}

/// Look up the weather.
#[tool]
async fn get_weather(city: String, units: Option<Units>, user: Context<User>) -> String {
    format!("{city} {units:?} for {}", user.id)
}

/// Book hotels.
#[tool]
fn book_hotels(stays: Vec<Stay>, trip: State<Trip>) -> Result<String, String> {
    if stays.iter().any(|s| s.nights == 0) {
        return Err("nights must be at least 1".into());
    }
    let names: Vec<String> = stays.iter().map(|s| s.city.clone()).collect();
    trip.update(move |t| t.hotels.extend(names));
    Ok(format!("{} stays booked", stays.len()))
}

/// One day.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct DayPlan {
    /// What to do.
    activity: String,
}

/// A plan.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct TripPlan {
    /// The days.
    #[output(length(min = 1))]
    days: Vec<DayPlan>,
    /// The budget.
    #[output(range(min = 0, max = 10000))]
    budget_eur: f64,
}

/// You plan trips.
#[agent(tools(get_weather, book_hotels), output = TripPlan, context = User, state = Trip)]
struct Planner;

/// You chat.
#[agent(tools(get_weather), context = User)]
struct Chatter;

#[tokio::test]
async fn every_tool_is_called_once_and_the_output_is_valid() {
    let model = Arc::new(TestModel::new());
    let run = Planner::builder(model.clone())
        .build()
        .run("plan", User { id: 3 })
        .await
        .unwrap();
    let called: Vec<&str> = run.steps.iter().map(|s| s.call.name.as_str()).collect();
    assert_eq!(called, ["get_weather", "book_hotels"]);
    for step in &run.steps {
        assert!(step.result.is_ok(), "{:?}", step.result);
    }
    assert_eq!(
        run.steps[0].result.as_ref().unwrap().text_content(),
        "a Some(Celsius) for 3"
    );
    assert_eq!(run.state.hotels, ["a"]);
    let plan: TripPlan = run.output;
    assert!(!plan.days.is_empty());
    assert!((0.0..=10000.0).contains(&plan.budget_eur));
    assert_eq!(run.stop_reason, StopReason::FinalAnswer);
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn a_text_agent_gets_a_summary_of_the_tool_results() {
    let run = Chatter::builder(TestModel::new())
        .build()
        .run("hi", User { id: 9 })
        .await
        .unwrap();
    let output: String = run.output;
    let summary: serde_json::Value = serde_json::from_str(&output).unwrap();
    assert_eq!(summary["get_weather"], "a Some(Celsius) for 9");

    let run = Chatter::builder(TestModel::with_text("all good"))
        .build()
        .run("hi", User { id: 9 })
        .await
        .unwrap();
    assert_eq!(run.output, "all good");
}

/// `TestModel` answers valid values for every shape of output schema schemars emits: a
/// property over a set of output types — for each, in native and tool mode, the generated
/// answer deserializes and passes the type's validation on the first try.
#[allow(dead_code)] // the fields are only deserialized
mod every_schema_shape {
    use std::collections::{BTreeMap, HashMap};

    use agentry::output::{OutputMode, StructuredExt};
    use agentry::prelude::*;
    use agentry::testing::TestModel;

    /// A circle.
    #[derive(Debug, Deserialize, JsonSchema)]
    struct Circle {
        /// Radius.
        radius: f64,
    }

    /// A rectangle.
    #[derive(Debug, Deserialize, JsonSchema)]
    struct Rect {
        /// Width.
        width: f64,
        /// Height.
        height: f64,
    }

    /// Internally tagged, newtype variants: `$ref` with sibling `properties`/`required`.
    #[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
    #[serde(tag = "kind", rename_all = "lowercase")]
    enum Shape {
        Circle(Circle),
        Rect(Rect),
    }

    /// Internally tagged, struct and unit variants (`const` tags).
    #[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
    #[serde(tag = "type")]
    enum Event {
        Started { at: String },
        Stopped,
    }

    /// Adjacently tagged.
    #[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
    #[serde(tag = "t", content = "c")]
    enum Message2 {
        Text(String),
        Point { x: i32, y: i32 },
    }

    /// Untagged.
    #[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
    #[serde(untagged)]
    enum Amount {
        Exact { value: u32 },
        Range { low: u32, high: u32 },
    }

    /// Externally tagged with data.
    #[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
    enum Command {
        Move { x: i32 },
        Say(String),
        Quit,
    }

    /// A recursive tree.
    #[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
    struct Tree {
        /// The label.
        label: String,
        /// The children.
        children: Vec<Tree>,
        /// An optional parent note.
        note: Option<Box<Tree>>,
    }

    /// Maps.
    #[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
    struct Inventory {
        /// Counts by name.
        counts: HashMap<String, u32>,
        /// Prices by name.
        prices: BTreeMap<String, f64>,
    }

    /// Shared fields (flatten: `allOf` / siblings of a flattened enum).
    #[derive(Debug, Deserialize, JsonSchema)]
    struct Meta {
        /// Who.
        author: String,
    }

    /// A flattened struct and enum.
    #[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
    struct Post {
        /// The title.
        title: String,
        #[serde(flatten)]
        meta: Meta,
        #[serde(flatten)]
        shape: Shape,
    }

    /// Output constraints.
    #[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
    struct Invoice {
        /// A currency code.
        #[output(pattern = "^[A-Z]{3}$")]
        currency: String,
        /// A reference like `INV-2024-0001`.
        #[output(pattern = "^INV-\\d{4}-\\d{4}$")]
        reference: String,
        /// Between 10 and 20 exclusive of nothing.
        #[output(range(min = 10, max = 20))]
        total: f64,
        /// At least 3 and at most 5 lines.
        #[output(length(min = 3, max = 5))]
        lines: Vec<String>,
        /// A name of 4 to 8 characters.
        #[output(length(min = 4, max = 8))]
        name: String,
        /// A negative number.
        #[output(range(max = -1))]
        delta: i64,
    }

    /// A unit enum (`enum`).
    #[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
    #[serde(rename_all = "snake_case")]
    enum Mood {
        Happy,
        Sad,
    }

    async fn generated<T: StructuredOutput + std::fmt::Debug>(mode: OutputMode) {
        let model = TestModel::new();
        let result = model
            .structured::<T>()
            .mode(mode)
            .max_retries(0)
            .invoke(vec![Message::user("go")])
            .await;
        assert!(
            result.is_ok(),
            "{} in {mode:?} mode: {result:?}",
            std::any::type_name::<T>()
        );
    }

    async fn every_mode<T: StructuredOutput + std::fmt::Debug>() {
        generated::<T>(OutputMode::Native).await;
        generated::<T>(OutputMode::Tool).await;
    }

    #[tokio::test]
    async fn every_generated_value_deserializes_and_validates() {
        every_mode::<Shape>().await;
        every_mode::<Event>().await;
        every_mode::<Message2>().await;
        every_mode::<Amount>().await;
        every_mode::<Command>().await;
        every_mode::<Tree>().await;
        every_mode::<Inventory>().await;
        every_mode::<Post>().await;
        every_mode::<Invoice>().await;
        every_mode::<Mood>().await;
        every_mode::<Vec<Shape>>().await;
    }
}
