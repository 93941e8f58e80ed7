//! Strict structured output holds the answer to the closed schema it sent: with
//! `additionalProperties: false` sent to the provider, an answer with an extra field is a
//! validation error that is re-asked.

use std::sync::Arc;

use agentry::agent::AgentBuilder;
use agentry::agent::NoTools;
use agentry::model::ModelProfile;
use agentry::output::{OutputMode, StructuredSpec};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use serde_json::json;

/// A forecast.
#[derive(Debug, PartialEq, Deserialize, JsonSchema, StructuredOutput)]
struct Forecast {
    /// The city.
    city: String,
    /// Degrees.
    celsius: i32,
}

fn last_correction(model: &ScriptedModel) -> String {
    let requests = model.requests();
    requests.last().unwrap().messages.last().unwrap().text()
}

#[tokio::test]
async fn a_native_strict_answer_with_an_extra_field_is_re_asked() {
    let model = ScriptedModel::new([
        Turn::text(r#"{"city":"Oslo","celsius":4,"mood":"grey"}"#),
        Turn::text(r#"{"city":"Oslo","celsius":4}"#),
    ]);
    let value = model
        .structured::<Forecast>()
        .mode(OutputMode::Native)
        .invoke(vec![Message::user("Oslo?")])
        .await
        .unwrap();
    assert_eq!(value.celsius, 4);
    assert_eq!(model.request_count(), 2);
    let correction = last_correction(&model);
    assert!(correction.contains("unknown field `mood`"), "{correction}");
}

#[tokio::test]
async fn an_extra_field_nested_deeper_than_the_parser_goes_is_re_asked() {
    // serde_json skips an unknown field without its recursion limit, so this field once
    // passed the closed-schema check unseen.
    let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
    let model = ScriptedModel::new([
        Turn::text(format!(r#"{{"city":"Oslo","celsius":4,"mood":{deep}}}"#)),
        Turn::text(r#"{"city":"Oslo","celsius":4}"#),
    ]);
    let value = model
        .structured::<Forecast>()
        .mode(OutputMode::Native)
        .invoke(vec![Message::user("Oslo?")])
        .await
        .unwrap();
    assert_eq!(value.celsius, 4);
    assert_eq!(model.request_count(), 2);
    let correction = last_correction(&model);
    assert!(correction.contains("levels deep"), "{correction}");
}

#[tokio::test]
async fn an_agents_strict_output_tool_answer_with_an_extra_field_is_re_asked() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call(
            "Forecast",
            json!({ "city": "Oslo", "celsius": 4, "extra": 1 }),
        ),
        Turn::tool_call("Forecast", json!({ "city": "Oslo", "celsius": 4 })),
    ]));
    let run = AgentBuilder::<_, _, (), ()>::new(model.clone(), NoTools)
        .output(StructuredSpec::<Forecast>::new(OutputMode::Tool))
        .build()
        .run("Oslo?", ())
        .await
        .unwrap();
    assert_eq!(run.output.city, "Oslo");
    assert_eq!(model.request_count(), 2);
    assert!(model.requests()[0].tools.iter().all(|t| t.strict));
    let correction = last_correction(&model);
    assert!(correction.contains("unknown field `extra`"), "{correction}");
}

#[tokio::test]
async fn without_a_closed_schema_sent_an_extra_field_is_tolerated() {
    // A provider without strict mode was sent the open schema: the extra field is ignored.
    let model = ScriptedModel::new([Turn::tool_call(
        "Forecast",
        json!({ "city": "Oslo", "celsius": 4, "extra": 1 }),
    )])
    .with_profile(ModelProfile::conservative());
    let value = model
        .structured::<Forecast>()
        .mode(OutputMode::Tool)
        .invoke(vec![Message::user("Oslo?")])
        .await
        .unwrap();
    assert_eq!(value.city, "Oslo");
}
