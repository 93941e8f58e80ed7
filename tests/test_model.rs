//! `TestModel` exercises an agent's wiring with zero scripting: every tool is called once with
//! arguments generated from its schema, then the output comes back valid.

use agent_sdk::agent::StopReason;
use agent_sdk::prelude::*;
use agent_sdk::testing::TestModel;
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
