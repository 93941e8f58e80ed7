//! MCP interop: our client against the official Python SDK's servers (the reference
//! `mcp-server-time` and a test server on the SDK's `MCPServer`), the Python SDK's client
//! against our stdio server (`examples/mcp_server.rs`), and rmcp on both sides (streamable
//! HTTP on loopback, and stdio).
//!
//! The Python parts need a virtual environment with the pinned packages of
//! `tests/mcp/requirements.txt`: the first test to need it creates it under `target/mcp-venv`
//! (`examples/support/python_env.rs`; `AGENTRY_MCP_VENV` points at another). Without
//! `python3` or the Python package registry these tests fail saying which is missing.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agentry::agent::{AgentBuilder, FnTool, NoTools, Typed};
use agentry::mcp::{
    AgentTool, McpClient, McpError, McpHttpServer, McpServer, McpToolset, Reconnect,
    StructuredContent,
};
use agentry::message::{ContentBlock, ImageSource};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use agentry::{AudioFormat, Dialect, FileSource, PartKind, ToolDefinition, ToolOutput};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------
// Where the Python environment and our example server are.

#[allow(dead_code)] // shared with the examples, which use other parts of it
#[path = "../examples/support/python_env.rs"]
mod python_env;

/// The Python environment, made on first use (once for all test binaries, under a file lock).
fn venv() -> python_env::PythonEnv {
    python_env::ensure()
        .unwrap_or_else(|e| panic!("the MCP interop tests need the official Python MCP SDK: {e}"))
}

fn python() -> PathBuf {
    venv().python()
}

fn script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp")
        .join(name)
        .display()
        .to_string()
}

/// The `mcp_server` example's binary, built by `cargo test` beside this test binary.
fn example_server() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let path = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps")
        .join("examples/mcp_server");
    assert!(
        path.exists(),
        "{} is missing: `cargo test --workspace` builds it; for this test alone run `cargo build --example mcp_server` first",
        path.display()
    );
    path
}

async fn everything() -> McpClient {
    McpClient::stdio("everything-py", python())
        .arg(script("everything_server.py"))
        .call_timeout(Duration::from_secs(20))
        .connect()
        .await
        .expect("the Python test server starts")
}

fn text_of(output: &ToolOutput) -> String {
    output.text_content()
}

#[path = "mcp/errors.rs"]
mod errors;
#[path = "mcp/filters.rs"]
mod filters;
#[path = "mcp/names.rs"]
mod names;
#[path = "mcp/rmcp_both_sides.rs"]
mod rmcp_both_sides;
#[path = "mcp/stderr.rs"]
mod stderr;

// ---------------------------------------------------------------------------------------
// Our client against the Python SDK's reference time server.

#[tokio::test]
async fn the_python_time_server_s_tools_run_in_an_agent() {
    let time = McpClient::stdio("time", venv().bin("mcp-server-time"))
        .args(["--local-timezone", "UTC"])
        .connect()
        .await
        .expect("mcp-server-time starts");
    let tools = McpToolset::builder(&time)
        .prefix("time")
        .dialect(Dialect::OpenAiStrict)
        .dialect(Dialect::Gemini)
        .load()
        .await
        .expect("its schemas lower into every dialect asked");
    let mut names: Vec<&str> = tools.names().collect();
    names.sort();
    assert_eq!(names, ["time_convert_time", "time_get_current_time"]);

    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("time_get_current_time", json!({ "timezone": "Asia/Tokyo" })),
        Turn::text("It is morning in Tokyo."),
    ]));
    let agent = AgentBuilder::<_, _, (), ()>::new(model.clone(), NoTools)
        .mcp_tools(&tools)
        .expect("no clash")
        .build();
    let run = agent.run("What time is it in Tokyo?", ()).await.unwrap();
    let step = &run.steps[0];
    let output = step.result.as_ref().expect("the time tool answers");
    let structured = output
        .artifact::<StructuredContent>()
        .expect("mcp-server-time returns structuredContent");
    assert_eq!(structured.0["timezone"], "Asia/Tokyo", "{structured:?}");
    assert!(
        text_of(output).contains("Asia/Tokyo"),
        "{}",
        text_of(output)
    );
    // The model was offered the server's tools, prefixed.
    let offered: Vec<String> = model.requests()[0]
        .tools
        .iter()
        .map(|d| d.name.clone())
        .collect();
    assert!(
        offered.contains(&"time_convert_time".to_string()),
        "{offered:?}"
    );
}

#[tokio::test]
async fn arguments_that_break_the_server_s_schema_never_reach_it() {
    let time = McpClient::stdio("time", venv().bin("mcp-server-time"))
        .connect()
        .await
        .unwrap();
    let tools = McpToolset::new(&time).await.unwrap();
    let model = ScriptedModel::new([
        Turn::tool_call("get_current_time", json!({ "timezone": 7 })),
        Turn::text("sorry"),
    ]);
    let agent = AgentBuilder::<_, _, (), ()>::new(model, NoTools)
        .mcp_tools(&tools)
        .unwrap()
        .build();
    let run = agent.run("time?", ()).await.unwrap();
    let err = run.steps[0].result.as_ref().unwrap_err();
    let ToolCallError::InvalidArguments { path, .. } = err else {
        panic!("expected an argument error, got {err:?}");
    };
    assert_eq!(path, "timezone");
}

#[tokio::test]
async fn a_static_tool_of_the_same_name_is_a_typed_clash() {
    /// Says the local time.
    #[tool]
    fn get_current_time(timezone: String) -> String {
        timezone
    }
    #[agent(tools(get_current_time))]
    struct Clock;

    let time = McpClient::stdio("time", venv().bin("mcp-server-time"))
        .connect()
        .await
        .unwrap();
    let tools = McpToolset::new(&time).await.unwrap();
    let err = Clock::builder(ScriptedModel::new([]))
        .mcp_tools(&tools)
        .err()
        .expect("the clash is refused");
    assert!(
        matches!(&err, McpError::NameClash { name, other } if name == "get_current_time" && other == "a static tool"),
        "{err}"
    );
    // A prefix resolves it.
    let prefixed = McpToolset::builder(&time)
        .prefix("mcp")
        .load()
        .await
        .unwrap();
    assert!(
        Clock::builder(ScriptedModel::new([]))
            .mcp_tools(&prefixed)
            .is_ok()
    );
}

// ---------------------------------------------------------------------------------------
// Our client against a server on the Python SDK's `MCPServer`: every kind of result.

#[tokio::test]
async fn python_results_map_to_tool_outputs() {
    let client = everything().await;
    let tools = McpToolset::new(&client).await.unwrap();
    let tool = |name: &str| {
        tools
            .tools()
            .iter()
            .find(|t| t.remote_name() == name)
            .unwrap()
            .clone()
    };

    let echo = tool("echo").invoke(json!({ "text": "hi" })).await.unwrap();
    assert_eq!(text_of(&echo), "hi");

    let image = tool("image").invoke(json!({})).await.unwrap();
    assert!(
        matches!(&image.content[0], ContentBlock::Image { source: ImageSource::Base64 { media_type, data } }
            if media_type == "image/png" && data == "iVBORw0KGgo="),
        "{:?}",
        image.content
    );

    let resource = tool("resource").invoke(json!({})).await.unwrap();
    assert_eq!(text_of(&resource), "[resource file:///notes.txt]\nalpha");

    // Audio and binary resources are media blocks, one per MCP block, not text.
    let media = tool("media").invoke(json!({})).await.unwrap();
    let wav = "UklGRiQAAABXQVZF"; // base64 of b"RIFF$\0\0\0WAVE"
    match media.content.as_slice() {
        [
            ContentBlock::Audio { format, data },
            ContentBlock::File {
                source:
                    FileSource::Base64 {
                        media_type,
                        data: pdf,
                    },
                filename,
            },
            ContentBlock::Image {
                source:
                    ImageSource::Base64 {
                        media_type: png_type,
                        data: png,
                    },
            },
            ContentBlock::File {
                source:
                    FileSource::Base64 {
                        media_type: opus,
                        data: opus_data,
                    },
                filename: None,
            },
        ] => {
            assert_eq!((*format, data.as_str()), (AudioFormat::Wav, wav));
            assert_eq!(
                (media_type.as_str(), pdf.as_str(), filename.as_deref()),
                ("application/pdf", "JVBERi0xLjcK", Some("q3.pdf"))
            );
            assert_eq!(
                (png_type.as_str(), png.as_str()),
                ("image/png", "iVBORw0KGgo=")
            );
            assert_eq!((opus.as_str(), opus_data.as_str()), ("audio/opus", wav));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(PartKind::of(&media.content[1]), Some(PartKind::Pdf));
    assert_eq!(PartKind::of(&media.content[3]), Some(PartKind::Audio));

    let weather = tool("weather")
        .invoke(json!({ "city": "Oslo" }))
        .await
        .unwrap();
    assert_eq!(
        weather.artifact::<StructuredContent>(),
        Some(&StructuredContent(json!({ "city": "Oslo", "celsius": 21 })))
    );

    let failed = tool("fail")
        .invoke(json!({ "reason": "no luck" }))
        .await
        .unwrap_err();
    let ToolCallError::Failed { source, .. } = &failed else {
        panic!("{failed:?}");
    };
    assert!(source.message.contains("no luck"), "{failed}");
}

#[tokio::test]
async fn a_slow_call_times_out_and_the_connection_stays_usable() {
    let client = McpClient::stdio("everything-py", python())
        .arg(script("everything_server.py"))
        .call_timeout(Duration::from_millis(300))
        .connect()
        .await
        .unwrap();
    let err = client
        .call_tool("slow", json!({ "seconds": 5 }))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, McpError::Timeout { tool, after, .. } if tool == "slow" && *after == Duration::from_millis(300)),
        "{err}"
    );
    let echo = client
        .call_tool("echo", json!({ "text": "still here" }))
        .await
        .unwrap();
    assert_eq!(echo.content[0].as_text().unwrap().text, "still here");
}

#[tokio::test]
async fn a_server_that_dies_is_a_typed_error_and_the_next_call_reconnects() {
    let client = McpClient::stdio("everything-py", python())
        .arg(script("everything_server.py"))
        .reconnect(Reconnect::OnNextCall {
            max_attempts: 2,
            backoff: Duration::from_millis(50),
        })
        .connect()
        .await
        .unwrap();
    let err = client.call_tool("crash", json!({})).await.unwrap_err();
    let McpError::ServerGone {
        message,
        will_reconnect,
        ..
    } = &err
    else {
        panic!("expected ServerGone, got {err}");
    };
    assert!(will_reconnect);
    assert!(
        message.contains("crashing on purpose"),
        "the server's stderr is kept: {message}"
    );
    let echo = client
        .call_tool("echo", json!({ "text": "back" }))
        .await
        .unwrap();
    assert_eq!(echo.content[0].as_text().unwrap().text, "back");
}

#[tokio::test]
async fn without_reconnect_a_dead_server_stays_an_error() {
    let client = McpClient::stdio("everything-py", python())
        .arg(script("everything_server.py"))
        .reconnect(Reconnect::Never)
        .connect()
        .await
        .unwrap();
    assert!(matches!(
        client.call_tool("crash", json!({})).await,
        Err(McpError::ServerGone {
            will_reconnect: false,
            ..
        })
    ));
    let err = client
        .call_tool("echo", json!({ "text": "x" }))
        .await
        .unwrap_err();
    assert!(matches!(err, McpError::ServerGone { .. }), "{err}");
}

#[tokio::test]
async fn tools_list_changed_refreshes_the_set() {
    let client = everything().await;
    let tools = McpToolset::new(&client).await.unwrap();
    assert!(!tools.names().any(|n| n == "late_tool"));
    let mut changes = client.list_changes();
    client.call_tool("add_tool", json!({})).await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), changes.changed())
        .await
        .expect("tools/list_changed arrives")
        .unwrap();
    let fresh = tools.refreshed().await.unwrap();
    assert!(fresh.names().any(|n| n == "late_tool"), "{fresh:?}");
    let late = fresh
        .tools()
        .iter()
        .find(|t| t.remote_name() == "late_tool")
        .unwrap();
    assert_eq!(
        text_of(&late.invoke(json!({ "x": 21 })).await.unwrap()),
        "42"
    );
}

// ---------------------------------------------------------------------------------------
// The Python SDK's client against our stdio server (the mcp_server example).

#[tokio::test]
async fn the_python_client_uses_our_stdio_server() {
    let out = tokio::process::Command::new(python())
        .arg(script("client.py"))
        .arg(example_server())
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "the Python client failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stdout));
    });
    assert_eq!(report["server"], "trip-tools");
    // The same schema a model sees: the injected context is not in it.
    let weather_schema = &report["tools"]["get_weather"];
    assert_eq!(
        weather_schema["required"],
        json!(["city"]),
        "{weather_schema}"
    );
    assert!(weather_schema["properties"].get("traveller").is_none());
    // The context came from the request's `_meta`.
    assert_eq!(
        report["weather"]["text"],
        json!(["Lisbon: 68°F, light wind, dry (that is home)"])
    );
    assert_eq!(
        report["activities"]["text"][0],
        r#"["a walk along the river in Porto","the botanical garden in Porto"]"#
    );
    assert_eq!(report["bad"]["is_error"], true);
    let bad = report["bad"]["text"][0].as_str().unwrap();
    assert!(bad.contains("at `city`"), "{bad}");
}

// ---------------------------------------------------------------------------------------
// rmcp on both sides (the cases are in `mcp/rmcp_both_sides.rs`): what they share with the
// error cases.

/// Counts calls; shouts its input.
fn shout(calls: Arc<AtomicUsize>) -> impl agentry::agent::DynTool<Caller, ()> {
    FnTool::new(
        ToolDefinition::new(
            "shout",
            "Upper-case the text.",
            json!({ "type": "object", "properties": { "text": { "type": "string", "maxLength": 20 } }, "required": ["text"] }),
            false,
        ),
        move |args: Value, rt: &ToolRuntime<Caller>| {
            calls.fetch_add(1, Ordering::SeqCst);
            let text = format!(
                "{} (via {})",
                args["text"].as_str().unwrap_or_default().to_uppercase(),
                rt.context().transport
            );
            async move { Ok(ToolOutput::text(text)) }
        },
    )
}

#[derive(Clone)]
struct Caller {
    transport: &'static str,
}
