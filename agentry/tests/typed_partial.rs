//! Typed partial output: `#[derive(StructuredOutput)]`'s `Partial<T>` mirror from the model-
//! level and the agent-level streams, the constraints of complete fields checked as soon as
//! they complete, and untyped partials for outputs without a mirror.

use agentry::agent::{AgentEvent, NoTools};
use agentry::model::StreamEvent;
use agentry::output::{
    HasPartial, OutputMode, Partial, PartialJson, PartialOutput, StructuredEvent, StructuredSpec,
};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use futures::StreamExt;
use serde_json::{Value, json};

/// A stop.
#[derive(Debug, PartialEq, Deserialize, JsonSchema, StructuredOutput)]
struct Stop {
    /// The place.
    #[output(length(min = 2))]
    name: String,
    /// Minutes there.
    minutes: u32,
}

/// A route.
#[derive(Debug, PartialEq, Deserialize, JsonSchema, StructuredOutput)]
#[serde(rename_all = "camelCase")]
struct Route {
    /// The title.
    title: String,
    /// Budget.
    #[output(range(min = 0, max = 100))]
    budget_eur: f64,
    /// The stops.
    stops: Vec<Stop>,
    /// A note.
    note: Option<String>,
    /// Anything else.
    extra: Value,
}

/// An enum output: its partial is the JSON so far.
#[derive(Debug, PartialEq, Deserialize, JsonSchema, StructuredOutput)]
#[serde(rename_all = "snake_case")]
enum Mood {
    Happy,
    Sad,
}

/// A unit without the derive.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
enum Units {
    Celsius,
}

/// A reading whose unit keeps its JSON in the mirror.
#[derive(Debug, PartialEq, Deserialize, JsonSchema, StructuredOutput)]
struct Reading {
    /// Degrees.
    #[output(range(max = 60))]
    degrees: f64,
    /// The unit.
    #[output(partial_json)]
    units: Units,
}

/// The same switch written with a value, as `#[tool(strict = true)]` may be.
#[derive(Debug, PartialEq, Deserialize, JsonSchema, StructuredOutput)]
struct ReadingWritten {
    /// Degrees.
    degrees: f64,
    /// The unit.
    #[output(partial_json = true)]
    units: Units,
}

#[test]
fn partial_json_written_with_true_is_the_same_switch() {
    // The field's partial is its JSON: a `Value`, not a typed partial of `Units`.
    let partial = ReadingWritten::partial(&json!({"degrees": 70, "units": "Cel"})).unwrap();
    assert_eq!(partial.units, Some(json!("Cel")));
}

#[test]
fn a_partial_json_field_keeps_its_json_and_its_checks() {
    let partial = Reading::partial(&json!({"degrees": 70, "units": "Cel"})).unwrap();
    assert_eq!(partial.degrees, Some(70.0));
    assert_eq!(partial.units, Some(json!("Cel")));
    let mut parser = PartialJson::new();
    parser.push(r#"{"degrees": 70, "units": "Cel"#).unwrap();
    let open = parser.open_path().unwrap();
    let mut v = agentry::output::Validation::new();
    Reading::check_partial(parser.value().unwrap(), Some(&open), &mut v);
    assert_eq!(
        v.finish().unwrap_err().to_string(),
        "at `$.degrees`: 70 is greater than the maximum 60"
    );
}

/// A recursive output.
#[derive(Debug, PartialEq, Deserialize, JsonSchema, StructuredOutput)]
struct Node {
    /// Its name.
    name: String,
    /// Below it.
    children: Vec<Node>,
    /// After it.
    next: Option<Box<Node>>,
}

#[test]
fn a_recursive_output_has_a_recursive_mirror() {
    let value =
        json!({"name": "a", "children": [{"name": "b", "children": []}], "next": {"na": 1}});
    let partial: Partial<Node> = Node::partial(&value).unwrap();
    let children = partial.children.unwrap();
    assert_eq!(children[0].name.as_deref(), Some("b"));
    assert_eq!(partial.next.unwrap().name, None);
}

const ROUTE: &str = r#"{"title": "Old town", "budgetEur": 150, "stops": [{"name": "X", "minutes": 10}, {"name": "Castle", "minutes": 30}], "note": null, "extra": {"k": 1}}"#;

/// A model streaming each answer `size` characters at a time as text.
fn streaming(answers: &[&str], size: usize) -> ScriptedModel {
    ScriptedModel::new(answers.iter().map(|text| {
        let chars: Vec<char> = text.chars().collect();
        let events: Vec<Result<StreamEvent, agentry::model::ModelError>> = chars
            .chunks(size)
            .map(|c| {
                Ok(StreamEvent::TextDelta {
                    text: c.iter().collect(),
                })
            })
            .collect();
        Turn::chunks(events)
    }))
}

/// What the checks of each partial say, in order.
fn verdicts(partials: &[PartialOutput<Route>]) -> Vec<String> {
    partials
        .iter()
        .map(|p| match p.check() {
            Ok(()) => String::new(),
            Err(error) => error.to_string(),
        })
        .collect()
}

#[test]
fn the_mirror_holds_what_is_known_so_far() {
    let value = json!({"title": "Old to", "budgetEur": 12.5, "stops": [{"name": "Ca"}]});
    let partial: Partial<Route> = Route::partial(&value).unwrap();
    assert_eq!(partial.title.as_deref(), Some("Old to"));
    assert_eq!(partial.budget_eur, Some(12.5));
    let stops = partial.stops.unwrap();
    assert_eq!(stops[0].name.as_deref(), Some("Ca"));
    assert_eq!(stops[0].minutes, None);
    assert_eq!(partial.note, None);
    assert_eq!(partial.extra, None);
    assert_eq!(Mood::partial(&json!("sa")), Some(json!("sa")));
    assert_eq!(Route::partial(&json!([1])), None);
}

const FIXED: &str = r#"{"title": "Old town", "budgetEur": 50, "stops": [{"name": "Castle", "minutes": 30}], "note": "bring water", "extra": null}"#;

#[tokio::test]
async fn the_model_stream_reports_a_violation_once_its_field_is_complete() {
    let model = streaming(&[ROUTE, FIXED], 1);
    let structured = model.structured::<Route>().mode(OutputMode::Native);
    let mut stream = structured.stream(vec![Message::user("Plan")]);
    let mut first: Vec<PartialOutput<Route>> = Vec::new();
    let mut retried = false;
    let mut done = None;
    while let Some(event) = stream.next().await {
        match event.unwrap() {
            StructuredEvent::Partial(partial) if !retried => first.push(partial),
            StructuredEvent::Partial(_) => {}
            StructuredEvent::Retry(_) => retried = true,
            StructuredEvent::Done { value, .. } => done = Some(value),
        }
    }
    // The final value is validated whole and re-asked as before.
    assert!(retried, "the invalid answer is re-asked");
    assert_eq!(done.unwrap().budget_eur, 50.0);

    let verdicts = verdicts(&first);
    let budget = "at `$.budgetEur`: 150 is greater than the maximum 100";
    let at = verdicts.iter().position(|v| !v.is_empty()).unwrap();
    assert_eq!(verdicts[at], budget);
    // Reported by the first partial in which the budget is complete: nothing of the stops yet.
    let typed = first[at].typed().unwrap();
    assert_eq!((typed.budget_eur, typed.stops), (Some(150.0), None));
    assert!(verdicts[..at].iter().all(String::is_empty));

    // The one-letter stop name is not a violation while it is being received...
    let open_x = first
        .iter()
        .position(|p| {
            p.typed().and_then(|t| t.stops).is_some_and(|stops| {
                stops.first().and_then(|s| s.name.as_deref()) == Some("X")
                    && stops[0].minutes.is_none()
            })
        })
        .unwrap();
    assert_eq!(verdicts[open_x], budget);
    // ...and is reported once it is complete, beside the budget.
    let name = verdicts
        .iter()
        .position(|v| v.contains("`$.stops[0].name`"))
        .unwrap();
    assert!(name > open_x);
    assert!(verdicts[name].contains(budget), "{}", verdicts[name]);
}

#[tokio::test]
async fn the_agent_stream_yields_the_typed_partial() {
    let agent = AgentBuilder::<_, _, (), ()>::new(streaming(&[FIXED], 3), NoTools)
        .output(StructuredSpec::<Route>::new(OutputMode::Native))
        .build();
    let mut events = agent.stream("Plan", ());
    let mut titles: Vec<String> = Vec::new();
    let mut last = None;
    while let Some(event) = events.next().await {
        if let AgentEvent::PartialOutput { partial, .. } = event.unwrap() {
            assert_eq!(partial.check(), Ok(()));
            let typed: Partial<Route> = partial.typed().unwrap();
            titles.extend(typed.title.clone());
            last = Some(typed);
        }
    }
    // The title grows as it streams.
    assert!(titles.len() > 2 && titles.windows(2).all(|w| w[1].starts_with(&w[0])));
    let last = last.unwrap();
    assert_eq!(last.note.as_deref(), Some("bring water"));
    assert_eq!(last.stops.unwrap()[0].minutes, Some(30));
    assert_eq!(events.result().await.unwrap().output.title, "Old town");
}

#[tokio::test]
async fn a_wrapped_output_is_typed_and_checked_under_its_wrapper() {
    let stops = r#"{"value": [{"name": "Y", "minutes": 5}, {"name": "Museum", "minutes": 60}]}"#;
    let fixed = r#"{"value": [{"name": "Museum", "minutes": 60}]}"#;
    let model = streaming(&[stops, fixed], 2);
    let structured = model.structured::<Vec<Stop>>().mode(OutputMode::Native);
    let mut stream = structured.stream(vec![Message::user("Stops")]);
    let mut seen: Vec<(Vec<Partial<Stop>>, String)> = Vec::new();
    while let Some(event) = stream.next().await {
        if let StructuredEvent::Partial(partial) = event.unwrap() {
            let verdict = partial
                .check()
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            seen.push((partial.typed().unwrap_or_default(), verdict));
        }
    }
    let flagged = seen.iter().position(|(_, v)| !v.is_empty()).unwrap();
    let verdict = &seen[flagged].1;
    assert!(
        verdict.starts_with("at `$[0].name`: has 1 ")
            && verdict.ends_with("fewer than the minimum 2"),
        "{verdict}"
    );
    assert_eq!(seen[flagged].0[0].name.as_deref(), Some("Y"));
}

#[test]
fn an_untyped_partial_keeps_its_json() {
    let mut parser = PartialJson::new();
    parser.push(r#"{"title": "Dun"#).unwrap();
    let partial = PartialOutput::new(parser.shared().unwrap());
    assert_eq!(partial["title"], "Dun");
    // Built by hand, nothing is known complete: nothing is checked.
    assert_eq!(partial.check(), Ok(()));
    assert_eq!(partial.typed(), Some(json!({"title": "Dun"})));
}

/// A film.
#[derive(Debug, PartialEq, Deserialize, JsonSchema, StructuredOutput)]
struct Film {
    /// The title.
    title: String,
    /// The year.
    year: u16,
}

/// The errors of the invalid answers of a streamed `Film`, and the film.
async fn streamed_film(answers: &[&str]) -> (Vec<String>, Film) {
    let model = streaming(answers, 4);
    let mut stream = model
        .structured::<Film>()
        .mode(OutputMode::Native)
        .stream(vec![Message::user("A film")]);
    let (mut errors, mut film) = (Vec::new(), None);
    while let Some(event) = stream.next().await {
        match event.unwrap() {
            StructuredEvent::Retry(attempt) => errors.push(attempt.error.to_string()),
            StructuredEvent::Done { value, .. } => film = Some(value),
            StructuredEvent::Partial(_) => {}
        }
    }
    (errors, film.unwrap())
}

/// A streamed answer that is one whole JSON value is checked against the closed schema from
/// the value parsed as it arrived; one with prose around it is parsed again from its text.
/// Both give the same verdicts, and the typed parse still reads the text (a duplicate field,
/// which a parsed value cannot show, is reported).
#[tokio::test]
async fn a_streamed_answer_is_held_to_the_closed_schema_and_to_serde_whole_or_in_prose() {
    let valid = r#"{"title": "Heat", "year": 1995}"#;
    let film = Film {
        title: "Heat".into(),
        year: 1995,
    };
    let mut verdicts = Vec::new();
    for (before, after) in [
        ("", ""),
        ("\n ", " \n"),
        ("Here it is: ", ""),
        ("", " Enjoy!"),
    ] {
        let extra = format!(r#"{before}{{"title": "Heat", "year": 1995, "mood": "tense"}}{after}"#);
        let twice =
            format!(r#"{before}{{"title": "Heat", "title": "Ronin", "year": 1998}}{after}"#);
        let (errors, got) = streamed_film(&[&extra, &twice, valid]).await;
        assert_eq!(got, film);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors[0].contains("unknown field `mood`"),
            "{before:?}: {errors:?}"
        );
        assert!(
            errors[1].contains("duplicate field `title`"),
            "{before:?}: {errors:?}"
        );
        verdicts.push(errors);
    }
    assert!(verdicts.windows(2).all(|w| w[0] == w[1]), "{verdicts:?}");
}
