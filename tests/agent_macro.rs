//! `#[agent]` end to end: the north-star agent against a scripted model, and each attribute.

use std::sync::Arc;

use agentry::agent::{Instructions, RunErrorKind, StopReason, Toolset};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use serde_json::json;

#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Units {
    Celsius,
    Fahrenheit,
}

#[derive(Debug)]
struct User {
    id: u64,
}

#[derive(Debug, Default, PartialEq)]
struct Trip {
    hotels: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("no weather station in {0}")]
struct WeatherError(String);

/// Look up the current weather for a city.
///
/// # Arguments
/// * `city` - City name, e.g. "Paris".
/// * `units` - Temperature unit; celsius when omitted.
#[tool]
async fn get_weather(
    city: String,
    units: Option<Units>,
    ctx: Context<User>,
) -> Result<String, WeatherError> {
    if city == "Atlantis" {
        return Err(WeatherError(city));
    }
    Ok(format!(
        "{city}: 21 degrees {:?}, sunny (user {})",
        units.unwrap_or(Units::Celsius),
        ctx.id
    ))
}

/// Book a hotel.
///
/// # Arguments
/// * `city` - Where.
/// * `nights` - How many nights.
#[tool]
fn book_hotel(city: String, nights: u32, trip: State<Trip>) -> String {
    let booked = format!("{city} x{nights}");
    trip.update(move |t| t.hotels.push(booked));
    format!("Booked {nights} nights in {city}")
}

/// One day of the plan.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct DayPlan {
    /// What to do.
    activity: String,
}

/// A day-by-day trip plan.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct TripPlan {
    /// One entry per day, in order.
    days: Vec<DayPlan>,
    /// Total budget in euros.
    #[output(range(min = 0))]
    budget_eur: f64,
}

/// You are a travel planner. Check the weather before planning outdoor days.
#[agent(tools(get_weather, book_hotel), output = TripPlan, context = User, state = Trip)]
struct Planner;

#[tokio::test]
async fn the_north_star_agent_runs_against_a_scripted_model() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_calls([
            ToolCall::new("w", "get_weather", r#"{"city":"Paris"}"#),
            ToolCall::new("h", "book_hotel", r#"{"city":"Paris","nights":2}"#),
        ]),
        // An invalid answer (negative budget) is sent back for correction...
        Turn::tool_call(
            "TripPlan",
            json!({ "days": [{ "activity": "Louvre" }], "budget_eur": -5 }),
        ),
        // ...and the corrected one is the output.
        Turn::tool_call(
            "TripPlan",
            json!({ "days": [{ "activity": "Louvre" }, { "activity": "Seine walk" }], "budget_eur": 420.0 }),
        ),
    ]));
    let run = Planner::builder(model.clone())
        .max_turns(8)
        .build()
        .run("Plan two days in Paris", User { id: 7 })
        .await
        .unwrap();
    let plan: TripPlan = run.output;
    assert_eq!(plan.days.len(), 2);
    assert_eq!(plan.budget_eur, 420.0);
    assert_eq!(
        run.state,
        Trip {
            hotels: vec!["Paris x2".into()]
        }
    );
    assert_eq!(run.stop_reason, StopReason::FinalAnswer);
    assert_eq!(run.usage.requests, 3);
    assert_eq!(run.steps.len(), 2);
    assert_eq!(
        run.steps[0].result.as_ref().unwrap().text_content(),
        "Paris: 21 degrees Celsius, sunny (user 7)"
    );
    model.assert_complete();

    let first = &model.requests()[0];
    assert_eq!(
        first.messages[0],
        Message::system(
            "You are a travel planner. Check the weather before planning outdoor days."
        )
    );
    let tools: Vec<&str> = first.tools.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(tools, ["get_weather", "book_hotel", "TripPlan"]);
}

#[test]
fn the_toolset_parses_calls_by_name_with_json_paths() {
    let call = Planner.parse(&ToolCall::new(
        "1",
        "get_weather",
        r#"{"city":"Oslo","units":"fahrenheit"}"#,
    ));
    match call {
        Some(Ok(PlannerToolCall::GetWeather(args))) => {
            assert_eq!(args.city, "Oslo");
            assert!(matches!(args.units, Some(Units::Fahrenheit)));
        }
        _ => panic!("expected a parsed get_weather call"),
    }
    let bad = Planner.parse(&ToolCall::new(
        "2",
        "book_hotel",
        r#"{"city":"Oslo","nights":"two"}"#,
    ));
    let Some(Err(err)) = bad else {
        panic!("expected an argument error")
    };
    assert!(err.to_string().contains("at `nights`"), "{err}");
    assert!(
        Planner
            .parse(&ToolCall::new("3", "get_wether", "{}"))
            .is_none()
    );
    let defs = <Planner as Toolset<User, Trip>>::definitions(&Planner);
    assert_eq!(defs.len(), 2);
}

/// Ignored: `instructions` wins over the doc comment.
#[agent(tools(), instructions = "Answer in French.", max_turns = 3)]
struct Translator;

#[tokio::test]
async fn instructions_and_max_turns_come_from_the_attribute() {
    let model = Arc::new(ScriptedModel::new([Turn::text("Bonjour.")]));
    let agent = Translator::builder(model.clone()).build();
    assert_eq!(agent.policy().limits.max_turns, 3);
    assert!(agent.tool_definitions().is_empty());
    let run = agent.run("Hello.", ()).await.unwrap();
    let output: String = run.output;
    assert_eq!(output, "Bonjour.");
    assert_eq!(
        model.requests()[0].messages[0],
        Message::system("Answer in French.")
    );
}

mod prompts {
    pub const SUPPORT_V2: &str = "Answer in one word.";
}

/// Ignored: the constant wins over the doc comment.
#[agent(tools(), instructions = prompts::SUPPORT_V2)]
struct OneWord;

#[tokio::test]
async fn instructions_from_a_constant_are_the_constant() {
    let model = Arc::new(ScriptedModel::new([Turn::text("Paris.")]));
    let agent = OneWord::builder(model.clone()).build();
    assert!(matches!(agent.instructions(), Instructions::Static(_)));
    agent.run("Capital of France?", ()).await.unwrap();
    assert_eq!(
        model.requests()[0].messages[0],
        Message::system(prompts::SUPPORT_V2)
    );
}

fn greeter_prompt(user: &User, trip: &Trip) -> String {
    format!(
        "Greet user {} ({} hotels booked).",
        user.id,
        trip.hotels.len()
    )
}

#[agent(tools(book_hotel), instructions = greeter_prompt, context = User, state = Trip, output = String)]
struct Greeter;

#[tokio::test]
async fn dynamic_instructions_from_a_function_see_each_turns_state() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("book_hotel", json!({ "city": "Rome", "nights": 1 })),
        Turn::text("Welcome!"),
    ]));
    let agent = Greeter::builder(model.clone()).build();
    assert!(matches!(agent.instructions(), Instructions::Dynamic(_)));
    agent.run("Hi", User { id: 3 }).await.unwrap();
    let prompts: Vec<String> = model
        .requests()
        .iter()
        .map(|r| r.messages[0].text())
        .collect();
    assert_eq!(
        prompts,
        [
            "Greet user 3 (0 hotels booked).",
            "Greet user 3 (1 hotels booked)."
        ]
    );
}

/// An agent that carries a value: built with `into_builder`.
#[agent(tools(get_weather), context = User)]
struct Forecaster {
    label: &'static str,
}

#[tokio::test]
async fn an_agent_with_fields_is_built_from_its_value() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("get_weather", json!({ "city": "Atlantis" })),
        Turn::text("No data."),
    ]));
    let forecaster = Forecaster { label: "f" };
    assert_eq!(forecaster.label, "f");
    let run = forecaster
        .into_builder(model)
        .build()
        .run("Weather?", User { id: 1 })
        .await
        .unwrap();
    assert_eq!(run.output, "No data.");
    let Err(err) = &run.steps[0].result else {
        panic!("expected the tool's error")
    };
    assert_eq!(
        err.to_string(),
        "tool `get_weather` failed: no weather station in Atlantis"
    );
}

#[tokio::test]
async fn a_run_error_converts_into_the_crate_error() {
    async fn go() -> agentry::Result<String> {
        let model = ScriptedModel::new([Turn::refusal("I cannot help with that.")]);
        let run = Translator::builder(model).build().run("Hi", ()).await?;
        Ok(run.output)
    }
    let err = go().await.unwrap_err();
    let agentry::Error::Agent(run_error) = &err else {
        panic!("{err:?}")
    };
    assert!(matches!(run_error.kind(), RunErrorKind::Refused(_)));
}
