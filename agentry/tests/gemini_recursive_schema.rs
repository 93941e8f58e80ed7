//! Gemini and recursive tool schemas: `functionDeclarations[].parameters` (an OpenAPI subset)
//! has no `$ref`, so a recursive type is sent as `parametersJsonSchema` (JSON Schema, with
//! `$defs` and `$ref`) instead of being refused; other schemas keep `parameters`.

#[path = "conformance/server.rs"]
mod server;

use agentry::Message;
use agentry::model::{ChatModel, ChatRequest, ModelError};
use agentry::providers::gemini::GeminiModel;
use agentry::schema::canonical_schema_for;
use agentry::tool::ToolDefinition;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use server::{Reply, Server};

/// A recursive root (`$ref: "#"`).
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct TreeNode {
    name: String,
    children: Vec<TreeNode>,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Dir {
    name: String,
    sub: Vec<Dir>,
    parent: Option<Box<Dir>>,
}

/// A recursive definition (`$ref: "#/$defs/Dir"`).
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct FileSystem {
    root: Dir,
}

fn answer() -> Value {
    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}]})
}

async fn sent(parameters: Value) -> Result<Value, ModelError> {
    let server = Server::start(vec![Reply::json(200, &answer())]).await;
    let model = GeminiModel::builder("gemini-2.5-flash")
        .base_url(server.url())
        .api_key("AIza-wire-test-0123456789")
        .build()
        .unwrap();
    let mut request = ChatRequest::new(vec![Message::user("Go")]);
    let tool: agentry::tool::DefinitionRef =
        ToolDefinition::new("save", "Save it.", parameters, false).into();
    request.tools = vec![tool].into();
    model.invoke(request).await?;
    Ok(server.request().body["tools"][0]["functionDeclarations"][0].clone())
}

#[tokio::test]
async fn a_recursive_root_is_sent_as_a_json_schema() {
    let declaration = sent(canonical_schema_for::<TreeNode>()).await.unwrap();
    assert!(declaration.get("parameters").is_none(), "{declaration}");
    let schema = &declaration["parametersJsonSchema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["children"]["items"]["$ref"], "#");
    assert_eq!(schema["required"], json!(["name", "children"]));
}

#[tokio::test]
async fn a_recursive_definition_keeps_its_defs() {
    let declaration = sent(canonical_schema_for::<FileSystem>()).await.unwrap();
    assert!(declaration.get("parameters").is_none(), "{declaration}");
    let schema = &declaration["parametersJsonSchema"];
    let dir = &schema["$defs"]["Dir"];
    assert_eq!(dir["type"], "object");
    assert_eq!(dir["properties"]["sub"]["items"]["$ref"], "#/$defs/Dir");
    // `Option<Box<Dir>>`: the reference or null, in JSON Schema terms.
    let parent = &dir["properties"]["parent"];
    assert_eq!(
        parent["anyOf"],
        json!([{ "$ref": "#/$defs/Dir" }, { "type": "null" }]),
        "{parent}"
    );
    // Every reference resolves: the root's own use of `Dir` is inlined or a `$ref`.
    let root = &schema["properties"]["root"];
    assert!(
        root["$ref"] == "#/$defs/Dir" || root["type"] == "object",
        "{root}"
    );
    assert!(!schema.to_string().contains("nullable"), "{schema}");
}

#[tokio::test]
async fn a_plain_schema_keeps_the_openapi_parameters() {
    let declaration = sent(json!({
        "type": "object",
        "properties": { "city": { "type": "string" } },
        "required": ["city"]
    }))
    .await
    .unwrap();
    assert!(declaration.get("parametersJsonSchema").is_none());
    assert_eq!(
        declaration["parameters"]["properties"]["city"]["type"],
        "string"
    );
}

#[tokio::test]
async fn what_gemini_cannot_express_is_still_refused_before_sending() {
    // Recursive, and also a map with arbitrary keys: refused for the map.
    let error = sent(json!({
        "type": "object",
        "properties": {
            "node": { "$ref": "#/$defs/Node" },
            "tags": { "type": "object", "additionalProperties": { "type": "string" } }
        },
        "$defs": {
            "Node": { "type": "object", "properties": { "next": { "$ref": "#/$defs/Node" } } }
        }
    }))
    .await
    .unwrap_err();
    assert!(error.to_string().contains("map"), "{error}");
}
