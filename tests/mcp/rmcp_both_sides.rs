//! rmcp on both sides: our server over streamable HTTP on loopback (a context per request, an
//! agent served as one tool, its own tools) and over stdio; a hostile schema at listing.

use super::*;

/// Says hello.
#[tool]
fn hello(name: String) -> String {
    format!("hello {name}")
}

#[tokio::test]
async fn streamable_http_on_loopback_with_a_context_per_request() {
    let calls = Arc::new(AtomicUsize::new(0));
    let server = McpServer::builder("shouter")
        .context(|req| Caller {
            transport: if req.http().is_some() {
                "http"
            } else {
                "other"
            },
        })
        .tool(shout(calls.clone()))
        .tool(Typed(hello {}))
        .build();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let http = server.serve_http(listener).await.unwrap();

    let client = McpClient::http("shouter", http.url())
        .connect()
        .await
        .unwrap();
    let tools = McpToolset::builder(&client)
        .prefix("remote")
        .load()
        .await
        .unwrap();
    let model = ScriptedModel::new([
        Turn::tool_calls([
            ToolCall::new("c1", "remote_shout", r#"{"text":"hi"}"#),
            ToolCall::new("c2", "remote_hello", r#"{"name":"Ada"}"#),
            ToolCall::new(
                "c3",
                "remote_shout",
                r#"{"text":"this text is far too long"}"#,
            ),
        ]),
        Turn::text("ok"),
    ]);
    let agent = AgentBuilder::<_, _, (), ()>::new(model, NoTools)
        .mcp_tools(&tools)
        .unwrap()
        .build();
    let run = agent.run("go", ()).await.unwrap();
    assert_eq!(
        text_of(run.steps[0].result.as_ref().unwrap()),
        "HI (via http)"
    );
    assert_eq!(text_of(run.steps[1].result.as_ref().unwrap()), "hello Ada");
    // Refused by our client against the schema our server listed: never sent.
    assert!(matches!(
        run.steps[2].result,
        Err(ToolCallError::InvalidArguments { .. })
    ));
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    // Our server checks too, for clients that do not.
    let direct = client
        .call_tool("shout", json!({ "text": "this text is far too long" }))
        .await
        .unwrap();
    assert_eq!(direct.is_error, Some(true));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    // An unknown tool is a protocol error naming the tools.
    let err = client.call_tool("nope", json!({})).await.unwrap_err();
    assert!(
        matches!(&err, McpError::Protocol { message, .. } if message.contains("shout")),
        "{err}"
    );
    http.shutdown().await;
}

/// A capital city.
#[derive(Debug, Serialize, Deserialize, JsonSchema, StructuredOutput)]
struct Capital {
    /// The city.
    city: String,
    /// Its country.
    country: String,
}

#[tokio::test]
async fn an_agent_served_as_one_tool_returns_its_typed_output_as_structured_content() {
    let inner = AgentBuilder::<_, _, Caller, ()>::new(
        ScriptedModel::new([Turn::tool_call(
            "Capital",
            json!({ "city": "Paris", "country": "France" }),
        )]),
        NoTools,
    )
    .output(agentry::output::StructuredSpec::<Capital>::default())
    .build();
    let server = McpServer::builder("geo")
        .context(|_| Caller { transport: "http" })
        .tool(AgentTool::new(
            "ask_geographer",
            "Answer a geography question.",
            Arc::new(inner),
        ))
        .build();
    let http = server
        .serve_http(tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap())
        .await
        .unwrap();
    let client = McpClient::http("geo", http.url()).connect().await.unwrap();
    let result = client
        .call_tool("ask_geographer", json!({ "prompt": "Capital of France?" }))
        .await
        .unwrap();
    assert_eq!(
        result.structured_content,
        Some(json!({ "city": "Paris", "country": "France" }))
    );
    http.shutdown().await;
}

#[tokio::test]
async fn our_stdio_server_for_our_client() {
    let client = McpClient::stdio("trip-tools", example_server())
        .connect()
        .await
        .unwrap();
    let tools = McpToolset::new(&client).await.unwrap();
    let mut names: Vec<&str> = tools.names().collect();
    names.sort();
    assert_eq!(names, ["find_activities", "get_weather"]);
    let weather = client
        .call_tool("get_weather", json!({ "city": "Rome" }))
        .await
        .unwrap();
    assert_eq!(
        weather.content[0].as_text().unwrap().text,
        "Rome: 18°C, light wind, dry"
    );
}

#[tokio::test]
async fn a_hostile_schema_is_a_typed_error_at_listing() {
    let mut deep = json!({ "type": "string" });
    // 40 levels of `properties.a`: about 80 levels of JSON, over the 64-level cap (and under
    // serde_json's own recursion limit, past which rmcp drops the whole answer).
    for _ in 0..40 {
        deep = json!({ "type": "object", "properties": { "a": deep } });
    }
    let server = McpServer::builder("hostile")
        .tool(FnTool::new(
            ToolDefinition::new("deep", "Too deep.", deep, false),
            |_args: Value, _rt: &ToolRuntime| async { Ok(ToolOutput::text("")) },
        ))
        .build();
    let http = server
        .serve_http(tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap())
        .await
        .unwrap();
    let client = McpClient::http("hostile", http.url())
        .connect()
        .await
        .unwrap();
    let err = McpToolset::new(&client).await.unwrap_err();
    assert!(
        matches!(&err, McpError::Schema { tool, source } if tool == "deep" && source.reason.contains("nested deeper")),
        "{err}"
    );
    http.shutdown().await;
}

#[tokio::test]
async fn an_agent_s_own_tools_are_served_through_its_toolset() {
    #[agent(tools(hello))]
    struct Greeter;

    let agent = Arc::new(Greeter::builder(ScriptedModel::new([])).build());
    let server = McpServer::builder("greeter").agent_tools(agent).build();
    assert_eq!(server.tool_names().collect::<Vec<_>>(), ["hello"]);
    let http = server
        .serve_http(tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap())
        .await
        .unwrap();
    let client = McpClient::http("greeter", http.url())
        .connect()
        .await
        .unwrap();
    let listed = client.list_tools().await.unwrap();
    assert_eq!(
        Value::Object((*listed[0].input_schema).clone()),
        hello::definition().parameters,
        "the schema served is the one a model sees"
    );
    let result = client
        .call_tool("hello", json!({ "name": "Grace" }))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "hello Grace");
    http.shutdown().await;
}
