//! Structured output through every strategy, against scripted models: a struct, a unit enum,
//! a data enum and a `Vec` root each come back typed through native, tool and prompted mode.

use agentry::model::{ChatRequest, ModelProfile, ResponseFormat, ToolChoice};
use agentry::output::{OutputMode, OutputParse, OutputSpec, StructuredSpec};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use agentry::{AssistantMessage, Message};
use serde_json::{Value, json};

/// A film recommendation.
#[derive(Debug, PartialEq, Deserialize, JsonSchema, StructuredOutput)]
#[serde(rename_all = "camelCase")]
struct Movie {
    /// The film's title.
    #[output(length(min = 1, max = 100))]
    title: String,
    /// Year of release.
    #[output(range(min = 1888, max = 2100))]
    release_year: u16,
    /// Out of ten.
    #[output(range(min = 0, max = 10))]
    rating: f32,
}

/// A film genre.
#[derive(Debug, PartialEq, Deserialize, JsonSchema, StructuredOutput)]
#[serde(rename_all = "snake_case")]
enum Genre {
    Comedy,
    SciFi,
    Drama,
}

/// A shape to draw.
#[derive(Debug, PartialEq, Deserialize, JsonSchema, StructuredOutput)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Shape {
    Circle { radius: f64 },
    Rect { width: f64, height: f64 },
}

fn alien() -> Movie {
    Movie {
        title: "Alien".into(),
        release_year: 1979,
        rating: 8.5,
    }
}

fn alien_json() -> Value {
    json!({"title": "Alien", "releaseYear": 1979, "rating": 8.5})
}

/// How a model is scripted to answer in each mode, and what the request must look like.
#[derive(Clone, Copy, Debug)]
enum Case {
    Native,
    Tool,
    Prompted,
}

impl Case {
    fn mode(self) -> OutputMode {
        match self {
            Case::Native => OutputMode::Native,
            Case::Tool => OutputMode::Tool,
            Case::Prompted => OutputMode::Prompted,
        }
    }

    /// The model's answer carrying `bare` (the value itself), shaped as this mode asks.
    fn answer(self, name: &str, bare: &Value, wrapped: bool) -> Turn {
        let object = if wrapped {
            json!({ "value": bare })
        } else {
            bare.clone()
        };
        match self {
            Case::Native => Turn::text(object.to_string()),
            Case::Tool => Turn::tool_call(name, object),
            Case::Prompted => Turn::text(format!(
                "Sure, here is the answer:\n```json\n{}\n```\nAnything else?",
                serde_json::to_string_pretty(bare).unwrap()
            )),
        }
    }

    fn check_request(self, request: &ChatRequest, name: &str, wrapped: bool) {
        match self {
            Case::Native => {
                let Some(ResponseFormat::JsonSchema {
                    name: n, schema, ..
                }) = &request.response_format
                else {
                    panic!(
                        "no JSON-schema response format: {:?}",
                        request.response_format
                    );
                };
                assert_eq!(n, name);
                assert_eq!(schema["type"], "object", "providers need an object root");
                assert_eq!(schema["properties"].get("value").is_some(), wrapped);
                assert!(request.tools.is_empty());
            }
            Case::Tool => {
                assert!(request.response_format.is_none());
                let tool = request
                    .tools
                    .iter()
                    .find(|t| t.name == name)
                    .expect("output tool");
                assert_eq!(tool.parameters["type"], "object");
                assert_eq!(
                    request.tool_choice,
                    Some(ToolChoice::Tool(name.to_string()))
                );
            }
            Case::Prompted => {
                assert!(request.response_format.is_none());
                assert!(request.tools.is_empty());
                let Message::System { content } = &request.messages[0] else {
                    panic!("no instructions: {:?}", request.messages);
                };
                assert!(content.contains("JSON schema"), "{content}");
            }
        }
    }
}

const CASES: [Case; 3] = [Case::Native, Case::Tool, Case::Prompted];

async fn round_trip<T: StructuredOutput + std::fmt::Debug + PartialEq>(
    case: Case,
    bare: Value,
    expected: T,
) {
    let spec = StructuredSpec::<T>::new(case.mode());
    let (name, wrapped) = (spec.name().to_string(), spec.is_wrapped());
    let model = ScriptedModel::new([case.answer(&name, &bare, wrapped)]);
    let got = model
        .structured::<T>()
        .mode(case.mode())
        .invoke(vec![Message::user("go")])
        .await
        .unwrap_or_else(|e| panic!("{case:?} {name}: {e}"));
    assert_eq!(got, expected, "{case:?}");
    model.assert_complete();
    case.check_request(&model.requests()[0], &name, wrapped);
}

#[tokio::test]
async fn struct_through_every_strategy() {
    for case in CASES {
        round_trip(case, alien_json(), alien()).await;
    }
}

#[tokio::test]
async fn unit_enum_through_every_strategy() {
    for case in CASES {
        round_trip(case, json!("sci_fi"), Genre::SciFi).await;
    }
}

#[tokio::test]
async fn data_enum_through_every_strategy() {
    for case in CASES {
        round_trip(
            case,
            json!({"kind": "rect", "width": 2.0, "height": 3.5}),
            Shape::Rect {
                width: 2.0,
                height: 3.5,
            },
        )
        .await;
    }
}

#[tokio::test]
async fn vec_root_through_every_strategy() {
    for case in CASES {
        round_trip(
            case,
            json!([alien_json(), alien_json()]),
            vec![alien(), alien()],
        )
        .await;
    }
}

#[test]
fn schemas_follow_serde_and_carry_constraints() {
    let spec = StructuredSpec::<Movie>::default();
    let schema = spec.schema();
    assert!(!spec.is_wrapped());
    assert_eq!(schema["description"], "A film recommendation.");
    let year = &schema["properties"]["releaseYear"];
    assert_eq!(year["description"], "Year of release.");
    assert_eq!(year["minimum"], 1888);
    assert_eq!(year["maximum"], 2100);
    assert_eq!(schema["properties"]["title"]["maxLength"], 100);

    let genre = StructuredSpec::<Genre>::default();
    assert!(genre.is_wrapped());
    assert_eq!(genre.schema()["enum"], json!(["comedy", "sci_fi", "drama"]));
    assert_eq!(genre.object_schema()["required"], json!(["value"]));

    let list = StructuredSpec::<Vec<Movie>>::default();
    assert_eq!(list.name(), "Movie_list");
    assert_eq!(list.schema()["type"], "array");
    let items = &list.object_schema()["properties"]["value"]["items"];
    let def = items["$ref"]
        .as_str()
        .unwrap()
        .trim_start_matches("#/$defs/");
    // The element type's constraints are in its definition.
    assert_eq!(
        list.object_schema()["$defs"][def]["properties"]["rating"]["maximum"],
        10
    );
}

#[test]
fn auto_picks_from_the_profile_and_never_forces_native_with_pending_tools() {
    let spec = StructuredSpec::<Movie>::default();
    let full = ModelProfile::full();
    let conservative = ModelProfile::conservative();
    let tool_only = ModelProfile {
        native_structured_output: false,
        ..ModelProfile::full()
    };
    assert_eq!(spec.resolve(&full, false, false), OutputMode::Native);
    assert_eq!(spec.resolve(&full, true, true), OutputMode::Tool);
    assert_eq!(spec.resolve(&tool_only, false, false), OutputMode::Tool);
    assert_eq!(
        spec.resolve(&conservative, false, false),
        OutputMode::Prompted
    );
    assert_eq!(spec.resolve(&conservative, true, true), OutputMode::Tool);

    // A turn with tools pending: the final-answer tool joins the others, nothing is forced.
    let other = ToolDefinition::new("search", "Search.", json!({"type": "object"}), false);
    let mut request = ChatRequest::new(vec![Message::user("hi")]);
    request.tools.push(other.into());
    spec.prepare(&mut request, &full, true);
    assert!(request.response_format.is_none());
    assert_eq!(request.tools.len(), 2);
    assert_eq!(request.tool_choice, None);
    // Preparing the same request again changes nothing.
    spec.prepare(&mut request, &full, true);
    assert_eq!(request.tools.len(), 2);

    // Prompted instructions are added once.
    let prompted = spec.clone().with_mode(OutputMode::Prompted);
    let mut request = ChatRequest::new(vec![Message::system("Be brief."), Message::user("hi")]);
    prompted.prepare(&mut request, &full, false);
    prompted.prepare(&mut request, &full, false);
    assert_eq!(request.messages.len(), 3);
    assert_eq!(request.messages[0].text(), "Be brief.");
    assert!(request.messages[1].text().contains("\"releaseYear\""));
}

#[test]
fn ordinary_tool_calls_continue_the_run() {
    let spec = StructuredSpec::<Movie>::new(OutputMode::Tool);
    let message = AssistantMessage {
        tool_calls: vec![ToolCall::new("c1", "search", "{}")],
        ..AssistantMessage::default()
    };
    assert!(matches!(spec.parse(&message), OutputParse::Continue));
    assert!(spec.is_output_tool("Movie"));
    assert!(!spec.is_output_tool("search"));
}

#[test]
fn an_invalid_final_call_beside_other_calls_answers_every_call() {
    let spec = StructuredSpec::<Movie>::new(OutputMode::Tool);
    let message = AssistantMessage {
        tool_calls: vec![
            ToolCall::new("c1", "search", "{}"),
            ToolCall::new("c2", "Movie", r#"{"title": "Alien", "releaseYear": 1979}"#),
        ],
        ..AssistantMessage::default()
    };
    let OutputParse::Retry { feedback, error } = spec.parse(&message) else {
        panic!("expected a retry");
    };
    assert_eq!(error, "at `$`: missing field `rating`");
    let results: Vec<(String, String)> = feedback
        .iter()
        .map(|m| match m {
            Message::Tool(r) => (r.call_id.clone(), m.text()),
            other => panic!("not a tool result: {other:?}"),
        })
        .collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].0, "c1");
    assert!(results[0].1.starts_with("Not run"));
    assert_eq!(results[1].0, "c2");
    assert!(
        results[1].1.contains("missing field `rating`"),
        "{}",
        results[1].1
    );
}

#[test]
fn refusal_is_an_outcome() {
    let spec = StructuredSpec::<Movie>::default();
    let message = AssistantMessage {
        refusal: Some("I can't help with that.".into()),
        ..AssistantMessage::default()
    };
    assert!(
        matches!(spec.parse(&message), OutputParse::Refused(r) if r == "I can't help with that.")
    );
}

/// A quoted bound (`min = "1"`) is read as the number it holds: `#[output(..)]` is parsed by
/// darling, which reads an expression from a string literal (as serde's attributes do). A
/// decision, not an accident: the bound the model sees is the one written.
#[derive(Debug, PartialEq, Deserialize, JsonSchema, StructuredOutput)]
struct Stars {
    /// Out of five.
    #[output(range(min = "1", max = "5"))]
    stars: u8,
}

#[test]
fn a_quoted_range_bound_is_the_number_it_holds() {
    let spec = StructuredSpec::<Stars>::default();
    let stars = &spec.schema()["properties"]["stars"];
    assert_eq!(stars["minimum"], 1);
    assert_eq!(stars["maximum"], 5);
    assert!(agentry::output::parse_output::<Stars>(r#"{"stars": 6}"#, false).is_err());
    assert_eq!(
        agentry::output::parse_output::<Stars>(r#"{"stars": 5}"#, false).unwrap(),
        Stars { stars: 5 }
    );
}
