//! A Restate run's spans joined to the caller's trace: a run invoked through a real
//! `restate-server`'s ingress with a known W3C `traceparent` header produces an
//! `invoke_agent` span in that trace, under the `restate_invocation` span whose parent is
//! the trace context the invocation carried. The service runs in this process, its spans
//! exported to the OpenTelemetry SDK's in-memory exporter.

#[path = "restate_support/server.rs"]
#[allow(dead_code)]
mod server;

use agentry::output::TextOutput;
use agentry::prelude::*;
use agentry::restate::RestateAgent;
use agentry::testing::{ScriptedModel, Turn};
use opentelemetry::trace::{SpanId, TraceId, TracerProvider as _};
use opentelemetry::{Key, Value};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use restate_sdk::prelude::{Endpoint, HttpServer};
use tracing_subscriber::layer::SubscriberExt;

/// You answer briefly.
#[agent(tools())]
struct Helper;

agentry::restate_object! {
    struct Traced(RestateAgent<Helper, TextOutput, (), ()>);
}

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT: &str = "00f067aa0ba902b7";

fn attr(span: &SpanData, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key == Key::from(key.to_owned()))
        .map(|kv| match &kv.value {
            Value::String(s) => s.to_string(),
            other => other.to_string(),
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_run_span_joins_the_invocations_trace() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("test"));
    // The handler runs on tasks the SDK's server spawns: the subscriber is the process's.
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))
        .expect("the only global subscriber of this test binary");

    let dir = tempfile::tempdir().unwrap();
    let server = server::Server::start(dir.path());
    let agent = Helper::builder(ScriptedModel::new([Turn::text("Hi.")])).build();
    let port = server::free_port();
    let endpoint = Endpoint::builder()
        .bind(Traced(RestateAgent::new(agent, ())))
        .build();
    let addr = format!("127.0.0.1:{port}").parse().unwrap();
    let listener = agentry::restate::listener(addr).unwrap();
    tokio::spawn(HttpServer::new(endpoint).serve(listener));
    server.register(&format!("http://127.0.0.1:{port}")).await;

    let traceparent = format!("00-{TRACE}-{PARENT}-01");
    let response = reqwest::Client::new()
        .post(format!("{}/Traced/c1/run", server.ingress_url()))
        .header("traceparent", &traceparent)
        .json(&"Hello")
        .send()
        .await
        .unwrap();
    let status = response.status();
    let body = response.text().await.unwrap();
    assert!(status.is_success(), "{status}: {body}");

    provider.force_flush().unwrap();
    let spans = exporter.get_finished_spans().unwrap();
    let invocation = spans
        .iter()
        .find(|s| s.name == "restate_invocation")
        .unwrap_or_else(|| {
            let names: Vec<_> = spans.iter().map(|s| s.name.to_string()).collect();
            panic!("no restate_invocation span among {names:?}")
        });
    let received = attr(invocation, "restate.traceparent");
    eprintln!("sent traceparent {traceparent}; the invocation carried {received:?}");
    let run = spans
        .iter()
        .find(|s| s.name.starts_with("invoke_agent"))
        .expect("an invoke_agent span");
    let trace = TraceId::from_hex(TRACE).unwrap();
    assert_eq!(run.span_context.trace_id(), trace, "the run's trace");
    assert_eq!(run.parent_span_id, invocation.span_context.span_id());
    assert_eq!(invocation.span_context.trace_id(), trace);
    // The invocation's parent: the caller's span itself when the engine forwards the header
    // as sent, else the engine's own span in the caller's trace.
    let received = received.expect("the invocation carried a traceparent");
    let parent = received.split('-').nth(2).expect("a traceparent's span id");
    assert_eq!(
        invocation.parent_span_id,
        SpanId::from_hex(parent).unwrap(),
        "the invocation span's parent is the trace context it carried"
    );
    eprintln!(
        "the engine forwarded the caller's span as the parent: {}",
        parent == PARENT
    );
}
