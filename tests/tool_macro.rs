//! `#[tool]` end to end: definitions from docs, injected parameters, calls from model JSON.

use std::collections::HashMap;

use agentry::prelude::*;
use agentry::tool::{invoke, parse_arguments};
use agentry::{ToolCallError, WithArtifact};
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Units {
    Celsius,
    Fahrenheit,
}

struct User {
    name: String,
}

#[derive(Debug, Default, Clone, PartialEq)]
struct Trip {
    cities: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("no weather station in {0}")]
struct WeatherError(String);

/// Look up the current weather for a city.
///
/// Uses the nearest station.
///
/// # Arguments
/// * `city` - City name, e.g. "Paris".
/// * `units` - Temperature unit; celsius when omitted.
#[tool]
async fn get_weather(
    city: String,
    units: Option<Units>,
    user: Context<User>,
    trip: State<Trip>,
    call_id: ToolCallId,
) -> Result<String, WeatherError> {
    if city == "Atlantis" {
        return Err(WeatherError(city));
    }
    let city_for_state = city.clone();
    trip.update(move |t| t.cities.push(city_for_state));
    let units = units.unwrap_or(Units::Celsius);
    Ok(format!(
        "{city}: 18 degrees {units:?} (for {}, call {call_id}, {} cities so far)",
        user.name,
        trip.cities.len()
    ))
}

#[derive(Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
struct Room {
    /// Number of beds.
    beds: u8,
    #[serde(default)]
    sea_view: bool,
}

#[derive(Debug, Serialize, PartialEq)]
struct Booking {
    reference: String,
    nights: u32,
}

/// Book a hotel room.
#[tool(name = "book-hotel", strict = true, return_direct, sequential)]
fn book_hotel(
    /// The hotel's name.
    hotel: String,
    #[arg(rename = "nightCount", description = "How many nights to stay.")] nights: u32,
    room: Room,
    tags: Vec<String>,
    prices: HashMap<String, f64>,
) -> Booking {
    let _ = (room, tags, prices);
    Booking {
        reference: format!("{hotel}-{nights}"),
        nights,
    }
}

/// Count rows matching a query.
#[tool(description = "Search the archive and report how many rows matched.")]
fn search_rows(query: String) -> WithArtifact<String, Vec<u32>> {
    let rows: Vec<u32> = (0..query.len() as u32).collect();
    WithArtifact::new(format!("{} rows", rows.len()), rows)
}

/// Remember a fact about the user.
#[tool]
async fn remember(fact: String, store: Store, writer: StreamWriter) -> Result<String, String> {
    writer.write(json!({ "saving": fact }));
    store
        .put(&["facts"], &fact, json!(true))
        .await
        .map_err(|e| e.to_string())?;
    Ok("saved".to_string())
}

struct Db(&'static str);

impl<S> agentry::Inject<User, S> for Db {
    fn inject(rt: &ToolRuntime<User, S>) -> Result<Self, agentry::InjectError> {
        Ok(Db(if rt.context().name == "ada" {
            "db-ada"
        } else {
            "db-other"
        }))
    }
}

/// Which database serves the user.
#[tool]
fn which_db(#[inject] db: Db) -> &'static str {
    db.0
}

/// Greet the user.
///
/// `#[inject]` on a type the runtime injects anyway (`Context`, `State`, ...) is allowed and
/// changes nothing: a decision, pinned by `inject_on_an_sdk_extractor_changes_nothing`.
#[tool]
fn greet_user(#[inject] user: Context<User>) -> String {
    format!("hello {}", user.name)
}

fn runtime() -> ToolRuntime<User, Trip> {
    ToolRuntime::new()
        .with_call_id("call_42")
        .with_context(User {
            name: "ada".to_string(),
        })
        .with_state(Trip {
            cities: vec!["Rome".to_string()],
        })
}

fn call(name: &str, args: &str) -> ToolCall {
    ToolCall::new("call_42", name, args)
}

#[test]
fn description_comes_from_the_first_doc_paragraph() {
    let def = <get_weather as Tool>::definition();
    assert_eq!(def.name, "get_weather");
    assert_eq!(def.description, "Look up the current weather for a city.");
    assert!(!def.strict);
}

#[test]
fn parameter_descriptions_come_from_the_arguments_section() {
    let params = &<get_weather as Tool>::definition().parameters;
    assert_eq!(
        params["properties"]["city"]["description"],
        "City name, e.g. \"Paris\"."
    );
    assert_eq!(
        params["properties"]["units"]["description"],
        "Temperature unit; celsius when omitted."
    );
    assert_eq!(params["required"], json!(["city"]));
}

#[test]
fn injected_parameters_never_reach_the_schema() {
    let params = &<get_weather as Tool>::definition().parameters;
    let props: Vec<&String> = params["properties"].as_object().unwrap().keys().collect();
    assert_eq!(props, ["city", "units"]);
    let text = params.to_string();
    for hidden in ["user", "trip", "call_id", "Context", "State", "ToolCallId"] {
        assert!(!text.contains(hidden), "{hidden} leaked into {text}");
    }
    let remember = &<remember as Tool>::definition().parameters;
    assert_eq!(
        remember["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["fact"]
    );
    let which_db = &<which_db as Tool>::definition().parameters;
    assert_eq!(which_db["properties"], json!({}));
}

#[test]
fn attributes_override_docs_and_names() {
    let def = <book_hotel as Tool>::definition();
    assert_eq!(def.name, "book-hotel");
    assert_eq!(<book_hotel as Tool>::NAME, "book-hotel");
    assert!(def.strict);
    const { assert!(<book_hotel as Tool>::RETURN_DIRECT) };
    const { assert!(<book_hotel as Tool>::SEQUENTIAL) };
    const { assert!(!<get_weather as Tool>::RETURN_DIRECT) };
    let props = &def.parameters["properties"];
    assert_eq!(props["hotel"]["description"], "The hotel's name.");
    assert_eq!(
        props["nightCount"]["description"],
        "How many nights to stay."
    );
    assert!(props.get("nights").is_none());
    assert_eq!(props["tags"]["type"], "array");
    assert_eq!(props["prices"]["type"], "object");
    assert_eq!(
        <search_rows as Tool>::definition().description,
        "Search the archive and report how many rows matched."
    );
}

#[test]
fn definitions_are_built_once() {
    let a: *const ToolDefinition = <get_weather as Tool>::definition();
    let b: *const ToolDefinition = <get_weather as Tool>::definition();
    assert_eq!(a, b);
}

#[test]
fn the_function_stays_a_plain_function() {
    let booking = book_hotel(
        "Ritz".into(),
        2,
        Room {
            beds: 1,
            sea_view: false,
        },
        vec![],
        HashMap::new(),
    );
    assert_eq!(booking.reference, "Ritz-2");
}

#[tokio::test]
async fn a_call_gets_its_injected_values() {
    let rt = runtime();
    let out = invoke(
        &get_weather {},
        &call("get_weather", r#"{"city":"Paris","units":"fahrenheit"}"#),
        &rt,
    )
    .await
    .unwrap();
    assert_eq!(
        out.text_content(),
        "Paris: 18 degrees Fahrenheit (for ada, call call_42, 1 cities so far)"
    );
    // The update was queued, not applied to the snapshot...
    assert_eq!(rt.state().cities, ["Rome"]);
    // ...and applies when the runtime says so.
    let mut next = rt.state().clone();
    assert_eq!(rt.apply_state_updates(&mut next), 1);
    assert_eq!(next.cities, ["Rome", "Paris"]);
}

#[tokio::test]
async fn a_tool_error_becomes_a_model_facing_message() {
    let err = invoke(
        &get_weather {},
        &call("get_weather", r#"{"city":"Atlantis"}"#),
        &runtime(),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, ToolCallError::Failed { .. }));
    assert_eq!(
        err.model_message(),
        "Error: tool `get_weather` failed: no weather station in Atlantis"
    );
}

#[tokio::test]
async fn bad_arguments_name_the_field() {
    let rt = runtime();
    let err = invoke(
        &get_weather {},
        &call("get_weather", r#"{"city":"Paris","units":"kelvin"}"#),
        &rt,
    )
    .await
    .unwrap_err();
    let ToolCallError::InvalidArguments {
        tool,
        path,
        message,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!((tool.as_str(), path.as_str()), ("get_weather", "units"));
    assert!(message.contains("unknown variant `kelvin`"), "{message}");
    assert!(message.contains("celsius"), "{message}");

    let err = invoke(
        &get_weather {},
        &call("get_weather", r#"{"units":"celsius"}"#),
        &rt,
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("missing field `city`"), "{err}");

    let err = invoke(
        &get_weather {},
        &call("get_weather", r#"{"city": "Par"#),
        &rt,
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("not valid JSON"), "{err}");

    let err = invoke(
        &get_weather {},
        &call("get_weather", r#"{"city":"Paris","unit":"celsius"}"#),
        &rt,
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("unknown field `unit`"), "{err}");
}

#[test]
fn nested_paths_are_reported() {
    let Err(err) = parse_arguments::<<book_hotel as Tool>::Args>(
        "book-hotel",
        r#"{"hotel":"Ritz","nightCount":2,"room":{"beds":"two"},"tags":[],"prices":{}}"#,
        false,
    ) else {
        panic!("a string for a u8 must not parse")
    };
    let ToolCallError::InvalidArguments { path, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(path, "room.beds");
}

#[tokio::test]
async fn null_and_empty_arguments_mean_an_empty_object() {
    let rt = ToolRuntime::new().with_context(User {
        name: "bob".to_string(),
    });
    for args in ["", "  ", "null", "{}"] {
        let out = invoke(&which_db {}, &call("which_db", args), &rt)
            .await
            .unwrap();
        assert_eq!(out.text_content(), "db-other", "arguments {args:?}");
    }
}

#[tokio::test]
async fn strict_nulls_mean_absent() {
    #[derive(Deserialize)]
    struct Args {
        #[serde(default)]
        sea_view: bool,
        beds: Option<u8>,
    }
    let args: Args = parse_arguments("t", r#"{"sea_view":null,"beds":null}"#, true).unwrap();
    assert!(!args.sea_view);
    assert_eq!(args.beds, None);
    assert!(parse_arguments::<Args>("t", r#"{"sea_view":null}"#, false).is_err());
}

#[tokio::test]
async fn structured_results_are_sent_as_json() {
    let out = invoke(
        &book_hotel {},
        &call(
            "book-hotel",
            r#"{"hotel":"Ritz","nightCount":3,"room":{"beds":2},"tags":["spa"],"prices":{"eur":99.5}}"#,
        ),
        &runtime(),
    )
    .await
    .unwrap();
    let value: Value = serde_json::from_str(&out.text_content()).unwrap();
    assert_eq!(value, json!({ "reference": "Ritz-3", "nights": 3 }));
}

#[tokio::test]
async fn artifacts_stay_with_the_program() {
    let out = invoke(
        &search_rows {},
        &call("search_rows", r#"{"query":"abc"}"#),
        &runtime(),
    )
    .await
    .unwrap();
    assert_eq!(out.text_content(), "3 rows");
    assert_eq!(out.artifact::<Vec<u32>>(), Some(&vec![0, 1, 2]));
}

#[tokio::test]
async fn store_and_stream_writer_are_injected() {
    let store = agentry::Store::in_memory();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let rt = ToolRuntime::new()
        .with_call_id("c7")
        .with_store(store.clone())
        .with_event_sender(tx);
    let out = invoke(
        &remember {},
        &call("remember", r#"{"fact":"likes tea"}"#),
        &rt,
    )
    .await
    .unwrap();
    assert_eq!(out.text_content(), "saved");
    assert_eq!(
        store.get(&["facts"], "likes tea").await.unwrap(),
        Some(json!(true))
    );
    let event = rx.try_recv().unwrap();
    assert_eq!(event.call_id, "c7");
    assert_eq!(event.data, json!({ "saving": "likes tea" }));
}

#[tokio::test]
async fn a_missing_store_is_an_injection_error() {
    let err = invoke(
        &remember {},
        &call("remember", r#"{"fact":"x"}"#),
        &ToolRuntime::new(),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, ToolCallError::Inject { .. }), "{err:?}");
    assert!(err.to_string().contains("no store"), "{err}");
}

#[tokio::test]
async fn inject_on_an_sdk_extractor_changes_nothing() {
    let parameters = &<greet_user as Tool>::definition().parameters;
    assert_eq!(parameters["properties"], json!({}));
    let out = invoke(&greet_user {}, &call("greet_user", "{}"), &runtime())
        .await
        .unwrap();
    assert_eq!(out.text_content(), "hello ada");
}

#[tokio::test]
async fn custom_injection_reads_the_context() {
    let out = invoke(&which_db {}, &call("which_db", "{}"), &runtime())
        .await
        .unwrap();
    assert_eq!(out.text_content(), "db-ada");
}

/// Double a number.
///
/// # Arguments
/// * `n` - The number.
/// * `factor` - An optional factor (2 when left out).
#[tool(strict = false, sequential = true)]
fn double(n: i64, factor: Option<i64>) -> i64 {
    match factor {
        Some(f) => n * f,
        None => n * 2,
    }
}

// Switches take `= bool` as well as the bare key, and an
// optional argument the model leaves out is `None` (the where clauses on `Args` keep serde's
// handling of missing `Option` fields).
#[tokio::test]
async fn switch_values_and_missing_options() {
    const { assert!(<double as Tool>::SEQUENTIAL) };
    assert!(!<double as Tool>::definition().strict);
    let out = invoke(
        &double {},
        &call("double", r#"{"n":21}"#),
        &ToolRuntime::new(),
    )
    .await
    .unwrap();
    assert_eq!(out.text_content(), "42");
}
