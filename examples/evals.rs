//! Evaluating an agent: the quickstart's trip planner on a dataset of a dozen requests
//! (`examples/data/trip_cases.yaml`), judged by six evaluators, with a report in the
//! terminal, as JSON, and as an HTML page under `target/evals/`.
//!
//! Offline by default: the planner runs against the SDK's `MockServer`, playing a model that
//! makes the mistakes a small model would (it plans at most three days, does not notice
//! that rain means indoors, ignores the unit asked for), and the judge is a
//! `FunctionModel` grading by rule. With `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`,
//! `GEMINI_API_KEY`, `OPENAI_BASE_URL` or `AGENTRY_MODEL` set, both are the real model.
//!
//! The first run saves its report as the baseline (`target/evals/baseline.json`); later runs
//! compare with it and mark what regressed. Delete the file to start again.
//!
//! Run: `cargo run --example evals`

mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use agentry::cost::{ModelPrice, PriceTable};
use agentry::eval::{
    Contains, Dataset, EvalContext, Experiment, Limits, LlmJudge, Observed, PathCheck, Report,
    Rubric, ToolTrajectory, Verdict, evaluator_fn,
};
use agentry::model::{ChatRequest, SharedModel};
use agentry::prelude::*;
use agentry::testing::{FunctionModel, MockResponse, RecordedRequest};
use serde_json::{Value, json};

// ── The quickstart's agent (the same code as examples/quickstart.rs) ────────────────────

/// Who is asking. Injected into tools by the runtime; the model never sees it.
struct Traveller {
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
#[derive(Debug, Serialize, Deserialize, JsonSchema, StructuredOutput)]
struct DayPlan {
    /// What to do that day.
    activity: String,
    /// Whether it happens outdoors.
    outdoor: bool,
}

/// A short trip plan.
#[derive(Debug, Serialize, Deserialize, JsonSchema, StructuredOutput)]
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

// ── The evaluation ───────────────────────────────────────────────────────────────────────

/// A case's input: the request, and the traveller's home city (the tools' context).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct TripRequest {
    request: String,
    #[serde(default = "default_home")]
    home_city: String,
}

fn default_home() -> String {
    "Oslo".into()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/trip_cases.yaml");
    // A case that does not fit `TripRequest` is an error naming the case and the field.
    let dataset: Dataset<TripRequest, TripPlan> = Dataset::from_file(&cases)?;

    let backend = support::backend(mock_planner).await?;
    let planner = Planner::builder(backend.model.clone()).max_turns(6).build();
    let judge_model: SharedModel = match backend.server {
        Some(_) => Arc::new(FunctionModel::new(mock_judge).with_name("rule-judge")),
        None => backend.model.clone(),
    };
    // What the mock's tokens cost (a real provider's come from your own table).
    let prices = PriceTable::new().with("mock-gpt", ModelPrice::new(0.15, 0.60));

    let report = Experiment::new("trip planner", &dataset)
        .evaluator_named("city", PathCheck::equals_metadata("$.city", "city")?)
        .evaluator(evaluator_fn(
            "days",
            |ctx: &EvalContext<'_, TripRequest, TripPlan>| {
                let asked = ctx.case.metadata.get("days").and_then(Value::as_u64);
                let planned = ctx.output().days.len() as u64;
                let asked_text = asked.map_or("no number of days".into(), |d| d.to_string());
                Verdict::from(asked == Some(planned))
                    .because(format!("{planned} days planned, {asked_text} asked"))
            },
        ))
        .evaluator_named("tools", ToolTrajectory::from_metadata("tools").max_calls(4))
        .evaluator_named(
            "mentions",
            Contains::from_metadata("must_mention").ignore_case(),
        )
        .evaluator(
            Limits::new()
                .max_turns(4)
                .max_tokens(20_000)
                .max_latency(Duration::from_secs(60)),
        )
        .evaluator(LlmJudge::new(
            judge_model,
            Rubric::new()
                .criterion(
                    "grounded",
                    "The weather note repeats the forecast the get_weather tool returned.",
                )
                .criterion(
                    "fits the request",
                    "Indoor activities when the traveller asks for indoors, rain or museums; \
                     outdoor ones when they ask for walks or the outdoors.",
                )
                .pass_score(0.75),
        ))
        .concurrency(4)
        .run(async |input: &TripRequest| {
            let traveller = Traveller {
                home_city: input.home_city.clone(),
            };
            let run = planner.run(input.request.as_str(), traveller).await?;
            Ok::<_, RunError>(Observed::priced(run, &prices))
        })
        .await;

    println!("{report}");
    let out = target_dir().join("evals");
    report.save_json(out.join("report.json"))?;
    let baseline_path = out.join("baseline.json");
    if baseline_path.exists() {
        let baseline = Report::load_json(&baseline_path)?;
        let comparison = report.compare_within(&baseline, 0.05);
        println!(
            "\nagainst the baseline ({}):\n{comparison}",
            baseline_path.display()
        );
        report.write_html_against(out.join("report.html"), &comparison)?;
    } else {
        report.save_json(&baseline_path)?;
        report.write_html(out.join("report.html"))?;
        println!(
            "\nsaved as the baseline of the next runs: {}",
            baseline_path.display()
        );
    }
    println!("open {}", out.join("report.html").display());
    Ok(())
}

/// Cargo's target folder (where `CACHEDIR.TAG` is, above this executable), else `target/`.
fn target_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.ancestors()
                .find(|dir| dir.join("CACHEDIR.TAG").is_file())
                .map(Path::to_path_buf)
        })
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
}

// ── The offline stand-ins ────────────────────────────────────────────────────────────────

/// The number a request asks for: "one" to "seven", "a day", "a weekend".
fn days_asked(request: &str) -> usize {
    let lower = request.to_lowercase();
    let words = ["one", "two", "three", "four", "five", "six", "seven"];
    if lower.contains("weekend") {
        return 2;
    }
    words
        .iter()
        .position(|w| lower.split(|c: char| !c.is_alphanumeric()).any(|x| x == *w))
        .map_or(1, |i| i + 1)
}

/// The capitalised word after " in ".
fn city_asked(request: &str) -> String {
    request
        .split(" in ")
        .skip(1)
        .flat_map(|rest| rest.split(|c: char| !c.is_alphanumeric()).next())
        .find(|w| w.chars().next().is_some_and(char::is_uppercase))
        .unwrap_or("Lisbon")
        .to_string()
}

/// The planner's stand-in model (OpenAI wire format, behind `MockServer`): it calls both
/// tools, then plans from what they returned. Its mistakes are on purpose, so the report
/// has something to show: at most three days, "rain" not taken as indoors, the unit asked
/// for ignored.
fn mock_planner(request: &RecordedRequest) -> MockResponse {
    let asked = request.last_user_text();
    let city = city_asked(&asked);
    let results = request.tool_results();
    if results.is_empty() {
        let lower = asked.to_lowercase();
        let outdoor = !["indoor", "museum"].iter().any(|w| lower.contains(w));
        return MockResponse::tool_calls(vec![
            ToolCall::new(
                "call_weather",
                "get_weather",
                json!({ "city": city }).to_string(),
            ),
            ToolCall::new(
                "call_activities",
                "find_activities",
                json!({ "city": city, "outdoor": outdoor }).to_string(),
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
    let outdoor = !activities.iter().any(|a| a.contains("museum"));
    let days: Vec<Value> = activities
        .iter()
        .cycle()
        .take(days_asked(&asked).min(3))
        .map(|a| json!({ "activity": a, "outdoor": outdoor }))
        .collect();
    let plan = json!({
        "city": city,
        "days": days,
        "weather_note": format!("Forecast: {}.", result("call_weather")),
    });
    MockResponse::final_answer(request, "TripPlan", plan)
}

/// The judge's stand-in: grades by rule what a model would grade by reading, and answers
/// with a `JudgeVerdict` the way the request asks for it.
fn mock_judge(request: &ChatRequest) -> agentry::model::ChatResponse {
    let prompt = request
        .messages
        .last()
        .map(Message::text)
        .unwrap_or_default();
    let case: Value = prompt
        .split_once("\n\n")
        .and_then(|(_, json)| serde_json::from_str(json).ok())
        .unwrap_or_default();
    let asked = case["input"]["request"]
        .as_str()
        .unwrap_or_default()
        .to_lowercase();
    let plan = &case["output"];
    let grounded = plan["weather_note"]
        .as_str()
        .is_some_and(|n| n.starts_with("Forecast:"));
    let wants_indoor = ["indoor", "rain", "museum"]
        .iter()
        .any(|w| asked.contains(w));
    let wants_outdoor = ["walk", "outdoor"].iter().any(|w| asked.contains(w));
    let days = plan["days"].as_array().cloned().unwrap_or_default();
    let outdoor = days.iter().filter(|d| d["outdoor"] == true).count();
    let fits = if wants_indoor && outdoor > 0 {
        (
            0.2,
            "plans outdoor days for a traveller who wants to stay in",
        )
    } else if wants_outdoor && outdoor < days.len() {
        (
            0.3,
            "plans indoor days for a traveller who wants the outdoors",
        )
    } else {
        (1.0, "matches what was asked")
    };
    let verdict = json!({
        "scores": [
            {
                "criterion": "grounded",
                "score": if grounded { 1.0 } else { 0.2 },
                "reason": if grounded { "repeats the forecast" } else { "no forecast" },
            },
            { "criterion": "fits the request", "score": fits.0, "reason": fits.1 },
        ],
        "reasoning": "Graded by rule (offline).",
    });
    match request.tools.iter().next() {
        Some(tool) if request.response_format.is_none() => {
            FunctionModel::tool_call(&tool.name, verdict)
        }
        _ => FunctionModel::text(verdict.to_string()),
    }
}
