//! Schema overrides: `#[arg(schema_with = ..)]` on a parameter and `#[tool(schema = ..)]` on a
//! tool, end to end (the definition the model sees, the arguments it sends, an agent run), and
//! the test helpers that check an override against deserialization.

use std::time::Duration;

use agentry::prelude::*;
use agentry::schemars::{Schema, SchemaGenerator, json_schema};
use agentry::testing::{
    SampleOrigin, SchemaOverrideError, TestModel, check_schema_override, check_tool_schema,
};
use agentry::tool::{ToolRuntime, invoke};
use serde_json::json;

/// A timeout as people write it: `"500ms"`, `"5s"`, `"2m"`. Its serde form is a string, and it
/// has no `JsonSchema` (stands in for a type of another crate).
#[derive(Debug, PartialEq)]
struct Timeout(Duration);

impl<'de> Deserialize<'de> for Timeout {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let split = text
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len());
        let (number, unit) = text.split_at(split);
        let number: u64 = number
            .parse()
            .map_err(|_| serde::de::Error::custom(format!("`{text}` is not a duration")))?;
        let millis = match unit {
            "ms" => number,
            "s" => number * 1_000,
            "m" => number * 60_000,
            _ => return Err(serde::de::Error::custom(format!("`{unit}` is not a unit"))),
        };
        Ok(Timeout(Duration::from_millis(millis)))
    }
}

/// The schema the model is shown for a [`Timeout`].
fn timeout_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "pattern": "^[0-9]{1,6}(ms|s|m)$" })
}

/// Wait for a job to finish.
///
/// # Arguments
/// * `job` - The job's id.
#[tool]
fn wait_for(
    job: String,
    #[arg(
        schema_with = timeout_schema,
        description = "How long to wait: a number and `ms`, `s` or `m`, e.g. \"5s\"."
    )]
    timeout: Timeout,
) -> String {
    format!("waited {:?} for {job}", timeout.0)
}

/// The whole arguments schema of [`search`], written by hand.
fn search_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "properties": {
            "query": { "type": "string", "minLength": 1, "description": "What to look for." },
            "limit": {
                "type": ["integer", "null"],
                "minimum": 1,
                "maximum": 50,
                "description": "At most this many results."
            }
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

/// Search the catalog.
#[tool(schema = search_schema)]
fn search(query: String, limit: Option<u32>) -> String {
    format!("{} results for {query}", limit.unwrap_or(10))
}

/// A whole schema that does not match the parameters: it calls the query `q`.
fn stale_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "properties": { "q": { "type": "string" } },
        "required": ["q"]
    })
}

/// Search the archive.
#[tool(schema = stale_schema)]
fn search_archive(query: String) -> String {
    query
}

/// You wait and search.
#[agent(tools(wait_for, search))]
struct Clerk;

/// Wait for a job to finish.
///
/// `schema_with = "timeout_schema"`, a path in a string as serde's and schemars' own
/// attributes write it, is accepted and means `schema_with = timeout_schema`: a decision,
/// pinned by `a_path_in_a_string_is_the_same_override`.
///
/// # Arguments
/// * `job` - The job's id.
#[tool]
fn wait_for_quoted(
    job: String,
    #[arg(
        schema_with = "timeout_schema",
        description = "How long to wait: a number and `ms`, `s` or `m`, e.g. \"5s\"."
    )]
    timeout: Timeout,
) -> String {
    format!("waited {:?} for {job}", timeout.0)
}

fn call(name: &str, arguments: serde_json::Value) -> ToolCall {
    ToolCall::new("call_1", name, arguments.to_string())
}

#[test]
fn the_parameter_schema_is_the_override_with_its_description() {
    let parameters = &<wait_for as Tool>::definition().parameters;
    assert_eq!(
        parameters["properties"]["timeout"],
        json!({
            "type": "string",
            "pattern": "^[0-9]{1,6}(ms|s|m)$",
            "description": "How long to wait: a number and `ms`, `s` or `m`, e.g. \"5s\"."
        })
    );
    // The other parameter is derived as usual; both are required.
    assert_eq!(
        parameters["properties"]["job"],
        json!({ "type": "string", "description": "The job's id." })
    );
    assert_eq!(parameters["required"], json!(["job", "timeout"]));
}

#[test]
fn a_path_in_a_string_is_the_same_override() {
    assert_eq!(
        <wait_for_quoted as Tool>::definition().parameters,
        <wait_for as Tool>::definition().parameters
    );
}

#[tokio::test]
async fn the_models_arguments_parse_through_the_parameters_own_deserialize() {
    let runtime = ToolRuntime::new();
    let out = invoke(
        &wait_for {},
        &call("wait_for", json!({ "job": "j7", "timeout": "2m" })),
        &runtime,
    )
    .await
    .unwrap();
    assert_eq!(out.text_content(), "waited 120s for j7");

    let error = invoke(
        &wait_for {},
        &call("wait_for", json!({ "job": "j7", "timeout": "soon" })),
        &runtime,
    )
    .await
    .unwrap_err();
    assert!(error.to_string().contains("timeout"), "{error}");
}

#[test]
fn the_whole_schema_is_the_tools_parameters() {
    let definition = <search as Tool>::definition();
    let expected = search_schema(&mut SchemaGenerator::default()).to_value();
    assert_eq!(definition.parameters, expected);
}

#[tokio::test]
async fn a_whole_schema_tool_parses_its_arguments_as_usual() {
    let runtime = ToolRuntime::new();
    let out = invoke(
        &search {},
        &call("search", json!({ "query": "lamps", "limit": 3 })),
        &runtime,
    )
    .await
    .unwrap();
    assert_eq!(out.text_content(), "3 results for lamps");
}

#[test]
fn the_overrides_fit_their_types() {
    let checked = check_schema_override::<Timeout>(
        timeout_schema,
        &[json!("500ms"), json!("5s"), json!("90m")],
    )
    .unwrap();
    // The three given and the one generated from the pattern.
    assert_eq!(checked.len(), 4, "{checked:?}");
    check_tool_schema::<wait_for>(&[json!({ "job": "a", "timeout": "1s" })]).unwrap();
    let checked = check_tool_schema::<search>(&[json!({ "query": "x", "limit": null })]).unwrap();
    // The sample, the full example (with `limit`) and the minimal one (without).
    assert!(
        checked.contains(&json!({ "query": "a", "limit": 1 })),
        "{checked:?}"
    );
    assert!(checked.contains(&json!({ "query": "a" })), "{checked:?}");
}

#[test]
fn an_override_that_allows_what_the_type_refuses_is_caught() {
    fn any_string(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string" })
    }
    let error = check_schema_override::<Timeout>(any_string, &[json!("soon")]).unwrap_err();
    match error {
        SchemaOverrideError::Rejected {
            origin, message, ..
        } => {
            assert_eq!(origin, SampleOrigin::Given(0));
            assert!(message.contains("`soon` is not a duration"), "{message}");
        }
        other => panic!("expected a rejected sample, got {other}"),
    }
    // Without samples, the generated ones catch it too ("a" is a string, not a duration).
    assert!(matches!(
        check_schema_override::<Timeout>(any_string, &[]),
        Err(SchemaOverrideError::Rejected {
            origin: SampleOrigin::Generated,
            ..
        })
    ));
}

#[test]
fn a_stale_whole_schema_is_caught() {
    let error = check_tool_schema::<search_archive>(&[]).unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("unknown field `q`") || text.contains("missing field `query`"),
        "{text}"
    );
}

#[test]
fn a_sample_the_override_refuses_is_reported_as_the_samples_fault() {
    let error = check_schema_override::<Timeout>(timeout_schema, &[json!("5 hours")]).unwrap_err();
    assert!(
        matches!(
            error,
            SchemaOverrideError::SampleOutsideSchema {
                origin: SampleOrigin::Given(0),
                ..
            }
        ),
        "{error}"
    );
}

#[tokio::test]
async fn an_agent_runs_tools_with_overridden_schemas() {
    // `TestModel` calls every tool once with arguments generated from the schema it is shown:
    // `"0ms"` from the timeout's pattern, `{"query": "a", "limit": 1}` from the whole schema.
    let run = Clerk::builder(TestModel::new())
        .build()
        .run("go", ())
        .await
        .unwrap();
    let results: Vec<String> = run
        .steps
        .iter()
        .map(|step| step.result.as_ref().unwrap().text_content())
        .collect();
    assert_eq!(results, ["waited 0ns for a", "1 results for a"]);
}

mod methods {
    use super::*;

    /// A job queue.
    pub struct Queue {
        pub name: String,
    }

    /// You run the queue.
    #[agent]
    impl Queue {
        /// Pause the queue for a while.
        #[tool]
        fn pause(&self, #[arg(schema_with = timeout_schema)] timeout: Timeout) -> String {
            format!("{} paused for {:?}", self.name, timeout.0)
        }
    }

    #[test]
    fn a_tool_method_takes_a_schema_override_too() {
        let parameters = &<QueuePauseTool as Tool>::definition().parameters;
        assert_eq!(
            parameters["properties"]["timeout"],
            json!({ "type": "string", "pattern": "^[0-9]{1,6}(ms|s|m)$" })
        );
        check_tool_schema::<QueuePauseTool>(&[json!({ "timeout": "3s" })]).unwrap();
    }
}
