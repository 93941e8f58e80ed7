//! The `otel` feature's one-call setup against a real OTLP/HTTP receiver: a small in-process
//! server decodes the protobuf export requests with the `opentelemetry-proto` types, and the
//! spans of a streamed agent run (two parallel tool calls, a re-ask) arrive with their names,
//! kinds, attributes and parents, and the GenAI metrics with them.

#[path = "telemetry/support.rs"]
mod support;

use std::sync::{Arc, Mutex};

use agentry::telemetry::otel::OtelConfig;
use agentry::testing::MockServer;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use futures::StreamExt;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value;
use opentelemetry_proto::tonic::trace::v1::{Span, span::SpanKind};
use prost::Message as _;
use support::*;
use tracing::instrument::WithSubscriber;
use tracing_subscriber::layer::SubscriberExt;

#[derive(Clone, Default)]
struct Received {
    traces: Arc<Mutex<Vec<ExportTraceServiceRequest>>>,
    metrics: Arc<Mutex<Vec<ExportMetricsServiceRequest>>>,
    content_types: Arc<Mutex<Vec<String>>>,
}

/// An OTLP/HTTP receiver on 127.0.0.1: `POST /v1/traces` and `/v1/metrics`, protobuf bodies.
async fn receiver() -> (String, Received) {
    let received = Received::default();
    let app = Router::new()
        .route(
            "/v1/traces",
            post(
                |State(r): State<Received>, headers: axum::http::HeaderMap, body: Bytes| async move {
                    if let Some(ct) = headers.get("content-type") {
                        r.content_types
                            .lock()
                            .unwrap()
                            .push(ct.to_str().unwrap_or_default().to_owned());
                    }
                    let request = ExportTraceServiceRequest::decode(body).expect("protobuf traces");
                    r.traces.lock().unwrap().push(request);
                    ""
                },
            ),
        )
        .route(
            "/v1/metrics",
            post(|State(r): State<Received>, body: Bytes| async move {
                let request =
                    ExportMetricsServiceRequest::decode(body).expect("protobuf metrics");
                r.metrics.lock().unwrap().push(request);
                ""
            }),
        )
        .with_state(received.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), received)
}

fn attr(span: &Span, key: &str) -> Option<any_value::Value> {
    span.attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.clone())
        .and_then(|v| v.value)
}

fn string(span: &Span, key: &str) -> String {
    match attr(span, key) {
        Some(any_value::Value::StringValue(s)) => s,
        other => panic!("span `{}`: `{key}` is {other:?}", span.name),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_and_metrics_reach_an_otlp_http_receiver() {
    let _turn = GLOBAL.lock().await;
    let (url, received) = receiver().await;
    let otel = OtelConfig::new("calculator-service")
        .endpoint(format!("{url}/"))
        .build()
        .unwrap();
    let subscriber = tracing_subscriber::registry().with(otel.layer());

    let server = MockServer::with_script(script()).await;
    let agent = Calculator::builder(server.openai_model("gpt-4o-mini")).build();
    async {
        let mut stream = agent.stream("What are 2 + 3 and 4 × 5?", ());
        while let Some(event) = stream.next().await {
            event.unwrap();
        }
        assert_eq!(stream.result().await.unwrap().output.total, 25);
    }
    .with_subscriber(subscriber)
    .await;
    otel.shutdown().await.unwrap();

    let traces = received.traces.lock().unwrap().clone();
    assert!(!traces.is_empty(), "no trace export arrived");
    assert!(
        received
            .content_types
            .lock()
            .unwrap()
            .iter()
            .all(|ct| ct == "application/x-protobuf")
    );
    let resource_spans: Vec<_> = traces.iter().flat_map(|t| &t.resource_spans).collect();
    let service = resource_spans[0]
        .resource
        .as_ref()
        .unwrap()
        .attributes
        .iter()
        .find(|kv| kv.key == "service.name")
        .and_then(|kv| kv.value.clone())
        .and_then(|v| v.value);
    assert_eq!(
        service,
        Some(any_value::Value::StringValue("calculator-service".into()))
    );
    // The crate's instrumentation scope, on spans and metrics alike.
    for ss in resource_spans.iter().flat_map(|rs| &rs.scope_spans) {
        let scope = ss.scope.as_ref().expect("a scope");
        assert_eq!(
            (
                scope.name.as_str(),
                scope.version.as_str(),
                ss.schema_url.as_str()
            ),
            (
                "agentry",
                env!("CARGO_PKG_VERSION"),
                "https://opentelemetry.io/schemas/1.38.0"
            )
        );
    }
    let spans: Vec<Span> = resource_spans
        .iter()
        .flat_map(|rs| &rs.scope_spans)
        .flat_map(|ss| ss.spans.clone())
        .collect();
    let find = |name: &str| -> Vec<&Span> { spans.iter().filter(|s| s.name == name).collect() };

    let run = find("invoke_agent Calculator");
    assert_eq!(run.len(), 1);
    let run = run[0];
    assert!(run.parent_span_id.is_empty(), "the run is the root");
    assert_eq!(run.kind, SpanKind::Internal as i32);
    assert_eq!(string(run, "gen_ai.agent.name"), "Calculator");
    assert_eq!(
        attr(run, "gen_ai.usage.input_tokens"),
        Some(any_value::Value::IntValue(420))
    );
    assert!(run.events.iter().any(|e| e.name == "re-ask"));

    let chats = find("chat gpt-4o-mini");
    assert_eq!(chats.len(), 3);
    for chat in &chats {
        assert_eq!(chat.kind, SpanKind::Client as i32);
        assert_eq!(chat.parent_span_id, run.span_id);
        assert_eq!(chat.trace_id, run.trace_id);
        assert_eq!(string(chat, "gen_ai.provider.name"), "openai");
        assert_eq!(string(chat, "gen_ai.response.id"), "chatcmpl-mock");
        let Some(any_value::Value::ArrayValue(reasons)) =
            attr(chat, "gen_ai.response.finish_reasons")
        else {
            panic!("finish reasons are not an array");
        };
        assert_eq!(reasons.values.len(), 1);
    }
    for (name, id) in [
        ("execute_tool add", "call_add"),
        ("execute_tool mul", "call_mul"),
    ] {
        let tool = find(name);
        assert_eq!(tool.len(), 1, "{name}");
        assert_eq!(tool[0].parent_span_id, run.span_id);
        assert_eq!(string(tool[0], "gen_ai.tool.call.id"), id);
    }

    // Shutting down exported the metrics.
    let metrics = received.metrics.lock().unwrap().clone();
    for sm in metrics
        .iter()
        .flat_map(|m| &m.resource_metrics)
        .flat_map(|rm| &rm.scope_metrics)
    {
        let scope = sm.scope.as_ref().expect("a scope");
        assert_eq!(
            (
                scope.name.as_str(),
                scope.version.as_str(),
                sm.schema_url.as_str()
            ),
            (
                "agentry",
                env!("CARGO_PKG_VERSION"),
                "https://opentelemetry.io/schemas/1.38.0"
            )
        );
    }
    let names: Vec<String> = metrics
        .iter()
        .flat_map(|m| &m.resource_metrics)
        .flat_map(|rm| &rm.scope_metrics)
        .flat_map(|sm| &sm.metrics)
        .map(|m| m.name.clone())
        .collect();
    assert!(
        names
            .iter()
            .any(|n| n == "gen_ai.client.operation.duration"),
        "{names:?}"
    );
    assert!(
        names.iter().any(|n| n == "gen_ai.client.token.usage"),
        "{names:?}"
    );
}

#[test]
fn building_outside_a_runtime_is_a_typed_error() {
    let err = OtelConfig::new("svc").build().unwrap_err();
    assert!(err.to_string().contains("tokio runtime"), "{err}");
}

#[test]
fn debug_hides_header_values() {
    let config = OtelConfig::new("svc").header("authorization", "Bearer collector-secret");
    let shown = format!("{config:?}");
    assert!(shown.contains("authorization"));
    assert!(!shown.contains("collector-secret"), "{shown}");
}
