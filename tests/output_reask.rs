//! Validation and re-asking: every kind of invalid answer goes back to the model as a precise
//! correction, within a retry budget; usage of failed attempts is counted.

use agentry::message::ToolResultMessage;
use agentry::model::ModelError;
use agentry::output::{AnswerError, OutputMode, ParseFailure, StructuredError};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use agentry::{Message, Usage};

/// A review.
#[derive(Debug, PartialEq, Deserialize, JsonSchema, StructuredOutput)]
#[output(validate = consistent)]
struct Review {
    /// Out of ten.
    #[output(range(min = 0, max = 10))]
    score: u8,
    /// ISO currency code of the ticket price.
    #[output(pattern = "^[A-Z]{3}$")]
    currency: String,
    /// Key points.
    #[output(length(min = 1, max = 3), validate = no_blank_points)]
    points: Vec<String>,
    /// A verdict that agrees with the score.
    verdict: String,
}

fn consistent(review: &Review) -> Result<(), String> {
    if review.score >= 5 && review.verdict == "bad" {
        Err(format!(
            "a score of {} contradicts the verdict \"bad\"",
            review.score
        ))
    } else {
        Ok(())
    }
}

#[allow(clippy::ptr_arg)] // a field validator takes `&FieldType`
fn no_blank_points(points: &[String]) -> Result<(), String> {
    match points.iter().position(|p| p.trim().is_empty()) {
        Some(i) => Err(format!("point {i} is blank")),
        None => Ok(()),
    }
}

const GOOD: &str = r#"{"score": 8, "currency": "EUR", "points": ["tense"], "verdict": "good"}"#;

fn usage(input: u64, output: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        ..Usage::default()
    }
}

/// The text of the correction sent after the first answer.
fn correction(model: &ScriptedModel) -> String {
    let second = &model.requests()[1];
    second.messages.last().unwrap().text()
}

#[tokio::test]
async fn recovers_from_a_wrong_first_answer() {
    let model = ScriptedModel::new([
        Turn::text(r#"{"score": 11, "currency": "eur", "points": [], "verdict": "good"}"#)
            .with_usage(usage(100, 20)),
        Turn::text(GOOD).with_usage(usage(150, 22)),
    ]);
    let outcome = model
        .structured::<Review>()
        .mode(OutputMode::Native)
        .invoke_with_raw(vec![Message::user("Review Alien.")])
        .await
        .unwrap();
    let review = outcome.parsed.unwrap();
    assert_eq!(review.score, 8);
    assert_eq!(outcome.usage.input_tokens, 250);
    assert_eq!(outcome.usage.output_tokens, 42);
    assert_eq!(outcome.usage.requests, 2);
    assert_eq!(outcome.attempts.len(), 1);
    assert_eq!(outcome.raw.message.text(), GOOD);

    // The second request carries the wrong answer and a correction naming every problem.
    let second = &model.requests()[1];
    assert!(
        matches!(&second.messages[1], Message::Assistant(a) if a.text().contains("\"score\": 11"))
    );
    let text = correction(&model);
    for expected in [
        "at `$.score`: 11 is greater than the maximum 10",
        "at `$.currency`: \"eur\" does not match the pattern `^[A-Z]{3}$`",
        "at `$.points`: has 0 items, fewer than the minimum 1",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

#[tokio::test]
async fn syntax_errors_are_located() {
    let model = ScriptedModel::new([
        Turn::text("{\"score\": 8,\n \"currency\": \"EUR\" \"points\": []}"),
        Turn::text(GOOD),
    ]);
    // A plain prompt is the conversation's one user message.
    model.structured::<Review>().invoke("go").await.unwrap();
    let first = &model.requests()[0];
    assert_eq!(
        first.messages.last().map(Message::text).as_deref(),
        Some("go")
    );
    assert!(matches!(first.messages.last(), Some(Message::User(_))));
    let text = correction(&model);
    assert!(
        text.contains("not valid JSON: invalid JSON at line 2, column 20: expected `,` or `}`"),
        "{text}"
    );
}

#[tokio::test]
async fn schema_violations_name_the_path() {
    let model = ScriptedModel::new([
        Turn::text(r#"{"score": "high", "currency": "EUR", "points": ["x"], "verdict": "good"}"#),
        Turn::text(GOOD),
    ]);
    model
        .structured::<Review>()
        .invoke(vec![Message::user("go")])
        .await
        .unwrap();
    let text = correction(&model);
    assert!(
        text.contains("at `$.score`: invalid type: string \"high\", expected u8"),
        "{text}"
    );
}

#[tokio::test]
async fn custom_validators_speak_to_the_model() {
    let model = ScriptedModel::new([
        Turn::text(r#"{"score": 9, "currency": "EUR", "points": ["ok", " "], "verdict": "bad"}"#),
        Turn::text(GOOD),
    ]);
    model
        .structured::<Review>()
        .invoke(vec![Message::user("go")])
        .await
        .unwrap();
    let text = correction(&model);
    assert!(text.contains("at `$.points`: point 1 is blank"), "{text}");
    assert!(
        text.contains("at `$`: a score of 9 contradicts the verdict \"bad\""),
        "{text}"
    );
}

#[tokio::test]
async fn tool_mode_corrections_are_tool_results() {
    let model = ScriptedModel::new([
        Turn::tool_call("Review", serde_json::json!({"score": 3})),
        Turn::tool_call(
            "Review",
            serde_json::from_str::<serde_json::Value>(GOOD).unwrap(),
        ),
    ]);
    model
        .structured::<Review>()
        .mode(OutputMode::Tool)
        .invoke(vec![Message::user("go")])
        .await
        .unwrap();
    let second = &model.requests()[1];
    let Some(Message::Tool(ToolResultMessage {
        call_id, is_error, ..
    })) = second.messages.last()
    else {
        panic!("expected a tool result: {:?}", second.messages);
    };
    assert_eq!(call_id, "call_Review");
    assert!(is_error);
    assert!(correction(&model).contains("missing field `currency`"));
}

#[tokio::test]
async fn exhausting_the_budget_returns_every_attempt() {
    let bad = [
        "no json at all",
        r#"{"score": 1}"#,
        r#"{"score": 12, "currency": "EUR", "points": ["x"], "verdict": "ok"}"#,
    ];
    let model = ScriptedModel::new(bad.map(|b| Turn::text(b).with_usage(usage(10, 1))));
    let err = model
        .structured::<Review>()
        .invoke(vec![Message::user("go")])
        .await
        .unwrap_err();
    let StructuredError::RetriesExhausted { attempts, usage } = err else {
        panic!("unexpected {err:?}");
    };
    model.assert_complete();
    assert_eq!(usage.requests, 3);
    assert_eq!(usage.input_tokens, 30);
    let raws: Vec<&str> = attempts.iter().map(|a| a.raw.as_str()).collect();
    assert_eq!(raws, bad);
    assert_eq!(attempts[0].error, AnswerError::NoJson);
    assert!(matches!(&attempts[1].error, AnswerError::Schema { path, .. } if path == "$"));
    assert!(matches!(&attempts[2].error, AnswerError::Invalid(_)));
}

#[tokio::test]
async fn the_budget_is_configurable() {
    let model = ScriptedModel::new([Turn::text("{}"), Turn::text(GOOD)]);
    let err = model
        .structured::<Review>()
        .max_retries(0)
        .invoke(vec![Message::user("go")])
        .await
        .unwrap_err();
    assert!(
        matches!(err, StructuredError::RetriesExhausted { ref attempts, .. } if attempts.len() == 1)
    );
    assert_eq!(model.remaining(), 1);
}

#[tokio::test]
async fn refusals_are_typed() {
    let model = ScriptedModel::new([Turn::refusal("I can't review that.").with_usage(usage(5, 2))]);
    let err = model
        .structured::<Review>()
        .invoke(vec![Message::user("go")])
        .await
        .unwrap_err();
    assert!(
        matches!(err, StructuredError::Refused { ref refusal, usage } if refusal == "I can't review that." && usage.output_tokens == 2)
    );

    let model = ScriptedModel::new([Turn::refusal("No.")]);
    let raw = model
        .structured::<Review>()
        .invoke_with_raw(vec![Message::user("go")])
        .await
        .unwrap();
    assert_eq!(raw.parsed, Err(ParseFailure::Refused("No.".into())));
    assert_eq!(raw.raw.message.refusal.as_deref(), Some("No."));
}

#[tokio::test]
async fn include_raw_reports_the_last_error_beside_the_answer() {
    let model = ScriptedModel::new([
        Turn::text("nope"),
        Turn::text("still nope"),
        Turn::text("{"),
    ]);
    let raw = model
        .structured::<Review>()
        .invoke_with_raw(vec![Message::user("go")])
        .await
        .unwrap();
    assert_eq!(raw.raw.message.text(), "{");
    assert_eq!(raw.attempts.len(), 3);
    assert!(matches!(
        raw.parsed,
        Err(ParseFailure::Invalid(AnswerError::Syntax { line: 1, .. }))
    ));
}

#[tokio::test]
async fn model_errors_pass_through() {
    let model = ScriptedModel::new([Turn::error(ModelError::Timeout(
        std::time::Duration::from_secs(3),
    ))]);
    let err = model
        .structured::<Review>()
        .invoke(vec![Message::user("go")])
        .await
        .unwrap_err();
    assert!(matches!(
        err,
        StructuredError::Model(ModelError::Timeout(_))
    ));
}

/// A grade.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct Grade {
    /// A to F.
    #[output(pattern = "^[A-F]$")]
    letter: char,
}

#[test]
fn a_char_field_takes_a_pattern() {
    assert!(Grade { letter: 'B' }.validate().is_ok());
    let err = Grade { letter: 'G' }.validate().unwrap_err();
    assert_eq!(
        err.violations()[0].to_string(),
        "at `$.letter`: \"G\" does not match the pattern `^[A-F]$`"
    );
    let schema = agentry::output::output_schema::<Grade>().to_string();
    assert!(schema.contains(r#""pattern":"^[A-F]$""#), "{schema}");
}
