//! Quickstart: an agent with two tools (one reading an injected context), a typed output,
//! streamed to the terminal, with the usage at the end.
//!
//! Offline by default, against the SDK's built-in `MockServer`; against a real provider when
//! `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`, `OPENAI_BASE_URL` (any
//! OpenAI-compatible server, e.g. Ollama) or `AGENTRY_MODEL=provider:model` is set.
//!
//! Run: `cargo run --example quickstart`

mod support;

use std::io::Write;

use agentry::agent::AgentEvent;
use agentry::prelude::*;
use agentry::testing::{MockResponse, RecordedRequest};
use futures::StreamExt;
use serde_json::json;

/// Who is asking. Injected into tools by the runtime; the model never sees it.
struct Traveller {
    name: String,
    home_city: String,
}

/// Temperature unit.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Units {
    Celsius,
    Fahrenheit,
}

/// Look up the weather forecast for a city.
///
/// # Arguments
/// * `city` - City name, e.g. "Lisbon".
/// * `units` - Temperature unit; celsius when omitted.
#[tool]
async fn get_weather(city: String, units: Option<Units>, traveller: Context<Traveller>) -> String {
    // A real tool would call a weather API here.
    let celsius = 14 + (city.len() as i32 % 9);
    let temperature = match units.unwrap_or(Units::Celsius) {
        Units::Celsius => format!("{celsius}°C"),
        Units::Fahrenheit => format!("{}°F", celsius * 9 / 5 + 32),
    };
    let from = if city.eq_ignore_ascii_case(&traveller.home_city) {
        " (that is home)"
    } else {
        ""
    };
    format!("{city}: {temperature}, light wind, dry{from}")
}

/// Suggest things to do in a city.
///
/// # Arguments
/// * `city` - City name.
/// * `outdoor` - Whether to suggest outdoor activities.
#[tool]
fn find_activities(city: String, outdoor: bool) -> Vec<String> {
    let ideas: &[&str] = if outdoor {
        &[
            "a walk along the river",
            "the botanical garden",
            "a hill-top viewpoint",
        ]
    } else {
        &["the city museum", "a food market", "a concert hall"]
    };
    ideas
        .iter()
        .map(|idea| format!("{idea} in {city}"))
        .collect()
}

/// One day of the plan.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct DayPlan {
    /// What to do that day.
    activity: String,
    /// Whether it happens outdoors.
    outdoor: bool,
}

/// A short trip plan.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct TripPlan {
    /// The city visited.
    city: String,
    /// One entry per day, in order.
    #[output(length(min = 1, max = 7))]
    days: Vec<DayPlan>,
    /// One sentence on the weather.
    weather_note: String,
}

/// You plan short city trips. Check the weather and look for activities before planning;
/// prefer outdoor days when it is dry.
#[agent(tools(get_weather, find_activities), output = TripPlan, context = Traveller)]
struct Planner;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = support::backend(mock_model).await?;
    let planner = Planner::builder(backend.model).max_turns(6).build();
    let traveller = Traveller {
        name: "Ada".to_string(),
        home_city: "London".to_string(),
    };
    print_tools(planner.tool_definitions());
    println!("{} asks: Plan two days in Lisbon.\n", traveller.name);

    let mut events = planner.stream("Plan two days in Lisbon.", traveller);
    while let Some(event) = events.next().await {
        match event? {
            AgentEvent::TurnStart { turn } => println!("── model request {turn}"),
            AgentEvent::TextDelta { text } => {
                print!("{text}");
                std::io::stdout().flush()?;
            }
            AgentEvent::ToolCallStart { name, .. } if name == "TripPlan" => {
                println!("  → model answers through the `TripPlan` output tool")
            }
            AgentEvent::ToolCallStart { name, .. } => println!("  → model calls `{name}`"),
            AgentEvent::ToolResult(step) => match &step.result {
                Ok(out) => println!("  ← {}: {}", step.call.name, out.text_content()),
                Err(e) => println!("  ← {}: {}", step.call.name, e.model_message()),
            },
            _ => {}
        }
    }
    // The stream ended with `Done`; it keeps the result.
    let run = events.result().await?;
    let plan: TripPlan = run.output;
    println!("\n── typed output ({:?})", run.stop_reason);
    println!("{} — {}", plan.city, plan.weather_note);
    for (i, day) in plan.days.iter().enumerate() {
        let place = if day.outdoor { "outdoors" } else { "indoors" };
        println!("  day {}: {} ({place})", i + 1, day.activity);
    }
    println!("\nusage: {}", run.usage);
    Ok(())
}

/// What the model is shown: each tool's parameters (`?` marks optional ones; the injected
/// `Context<Traveller>` is not there) and whether its schema lowers into each provider's
/// dialect. `cargo run --example tool_schemas` prints the schemas themselves.
fn print_tools(definitions: &[agentry::tool::DefinitionRef]) {
    println!("tools offered to the model:");
    for def in definitions {
        let schema = &def.parameters;
        let required = schema["required"].as_array().cloned().unwrap_or_default();
        let params: Vec<String> = schema["properties"]
            .as_object()
            .map(|props| {
                props
                    .keys()
                    .map(|k| {
                        let optional = !required.iter().any(|r| r == k.as_str());
                        format!("{k}{}", if optional { "?" } else { "" })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let dialects: Vec<String> = Dialect::ALL
            .iter()
            .map(|d| {
                let ok = if def.parameters_for(*d).is_ok() {
                    "ok"
                } else {
                    "refused"
                };
                format!("{d} {ok}")
            })
            .collect();
        println!(
            "  {}({}) — {}",
            def.name,
            params.join(", "),
            dialects.join(", ")
        );
    }
    println!();
}

/// The offline stand-in for a model, answering in the OpenAI wire format: first it calls both
/// tools (in parallel), then it builds the plan from what the tools returned.
fn mock_model(request: &RecordedRequest) -> MockResponse {
    let results = request.tool_results();
    if results.is_empty() {
        return MockResponse::tool_calls(vec![
            ToolCall::new("call_weather", "get_weather", r#"{"city":"Lisbon"}"#),
            ToolCall::new(
                "call_activities",
                "find_activities",
                r#"{"city":"Lisbon","outdoor":true}"#,
            ),
        ]);
    }
    let result = |id: &str| {
        results
            .iter()
            .find(|(call, _)| call == id)
            .map(|(_, content)| content.clone())
            .unwrap_or_default()
    };
    let activities: Vec<String> =
        serde_json::from_str(&result("call_activities")).unwrap_or_default();
    let days: Vec<_> = activities
        .iter()
        .take(2)
        .map(|a| json!({ "activity": a, "outdoor": true }))
        .collect();
    let plan = json!({
        "city": "Lisbon",
        "days": days,
        "weather_note": format!("Forecast: {}.", result("call_weather")),
    });
    MockResponse::final_answer(request, "TripPlan", plan)
}
