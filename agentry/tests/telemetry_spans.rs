//! GenAI spans and metrics, exported through `tracing-opentelemetry` to the OpenTelemetry
//! SDK's in-memory exporters: names, kinds, attributes and the parent/child structure of a
//! streamed run with two parallel tool calls and a re-ask; content only when opted in; the
//! API key never; errors and retries; the two client histograms.

#[path = "telemetry/support.rs"]
mod support;

use agentry::cost::{Cost, ModelPrice, PriceTable};
use agentry::model::{ChatModel, ChatRequest, ModelError};
use agentry::prelude::*;
use agentry::telemetry;
use agentry::testing::{MockResponse, MockServer};
use futures::StreamExt;
use opentelemetry::trace::{SpanKind, Status, TracerProvider as _};
use opentelemetry::{Array, Key, Value};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use support::*;
use tracing::instrument::WithSubscriber;
use tracing_subscriber::layer::SubscriberExt;

fn attr<'a>(span: &'a SpanData, key: &str) -> Option<&'a Value> {
    span.attributes
        .iter()
        .find(|kv| kv.key == Key::from(key.to_owned()))
        .map(|kv| &kv.value)
}

fn str_attr(span: &SpanData, key: &str) -> String {
    match attr(span, key) {
        Some(v) => v.as_str().into_owned(),
        None => panic!("span `{}` has no attribute `{key}`", span.name),
    }
}

fn int_attr(span: &SpanData, key: &str) -> i64 {
    match attr(span, key) {
        Some(Value::I64(n)) => *n,
        other => panic!("span `{}`: `{key}` is {other:?}, not an integer", span.name),
    }
}

fn named<'a>(spans: &'a [SpanData], name: &str) -> Vec<&'a SpanData> {
    spans.iter().filter(|s| s.name == name).collect()
}

/// A subscriber exporting to memory, the provider to flush and the exporter to read.
fn exporter() -> (
    InMemorySpanExporter,
    SdkTracerProvider,
    impl tracing::Subscriber + Send + Sync,
) {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("test"));
    let subscriber = tracing_subscriber::registry().with(layer);
    (exporter, provider, subscriber)
}

fn finished(exporter: &InMemorySpanExporter, provider: &SdkTracerProvider) -> Vec<SpanData> {
    provider.force_flush().unwrap();
    exporter.get_finished_spans().unwrap()
}

/// Streams the calculator's run against `server` under `subscriber`.
async fn streamed_run(server: &MockServer, subscriber: impl tracing::Subscriber + Send + Sync) {
    let agent = Calculator::builder(server.openai_model("gpt-4o-mini"))
        .temperature(0.2)
        .max_tokens(300)
        .build();
    async {
        let mut stream = agent.stream("What are 2 + 3 and 4 × 5?", ());
        let mut events = 0;
        while let Some(event) = stream.next().await {
            events += 1;
            event.unwrap();
        }
        assert_eq!(stream.result().await.unwrap().output.total, 25);
        assert!(events > 0);
    }
    .with_subscriber(subscriber)
    .await;
}

#[tokio::test]
async fn span_tree_of_a_streamed_run_with_parallel_calls_and_a_reask() {
    let _turn = GLOBAL.lock().await;
    let server = MockServer::with_script(script()).await;
    let (exporter, provider, subscriber) = exporter();
    streamed_run(&server, subscriber).await;
    let spans = finished(&exporter, &provider);

    // One run span, the root.
    let runs = named(&spans, "invoke_agent Calculator");
    assert_eq!(
        runs.len(),
        1,
        "{:#?}",
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    let run = runs[0];
    assert_eq!(run.span_kind, SpanKind::Internal);
    assert_eq!(run.parent_span_id, opentelemetry::trace::SpanId::INVALID);
    assert_eq!(str_attr(run, "gen_ai.operation.name"), "invoke_agent");
    assert_eq!(str_attr(run, "gen_ai.agent.name"), "Calculator");
    assert_eq!(str_attr(run, "gen_ai.provider.name"), "openai");
    assert_eq!(str_attr(run, "gen_ai.request.model"), "gpt-4o-mini");
    assert_eq!(int_attr(run, "gen_ai.usage.input_tokens"), 420);
    assert_eq!(int_attr(run, "gen_ai.usage.output_tokens"), 32);
    assert!(attr(run, "error.type").is_none());
    assert!(attr(run, "gen_ai.conversation.id").is_none());
    // The re-ask is an event of the run's span.
    let reasks: Vec<_> = run.events.iter().filter(|e| e.name == "re-ask").collect();
    assert_eq!(reasks.len(), 1, "{:?}", run.events.events);

    // Three streamed requests, children of the run.
    let chats = named(&spans, "chat gpt-4o-mini");
    assert_eq!(chats.len(), 3);
    for chat in &chats {
        assert_eq!(chat.span_kind, SpanKind::Client);
        assert_eq!(chat.parent_span_id, run.span_context.span_id());
        assert_eq!(chat.span_context.trace_id(), run.span_context.trace_id());
        assert_eq!(str_attr(chat, "gen_ai.operation.name"), "chat");
        assert_eq!(str_attr(chat, "gen_ai.provider.name"), "openai");
        assert_eq!(str_attr(chat, "gen_ai.request.model"), "gpt-4o-mini");
        assert_eq!(str_attr(chat, "gen_ai.response.model"), "gpt-4o-mini");
        assert_eq!(str_attr(chat, "gen_ai.response.id"), "chatcmpl-mock");
        assert_eq!(
            attr(chat, "gen_ai.request.temperature"),
            Some(&Value::F64(0.2))
        );
        assert_eq!(int_attr(chat, "gen_ai.request.max_tokens"), 300);
        assert_eq!(str_attr(chat, "server.address"), "127.0.0.1");
        assert_eq!(
            int_attr(chat, "server.port"),
            i64::from(server.addr().port())
        );
        // Content is off by default.
        assert!(attr(chat, "gen_ai.input.messages").is_none());
        assert!(attr(chat, "gen_ai.output.messages").is_none());
    }
    let mut by_start = chats.clone();
    by_start.sort_by_key(|s| s.start_time);
    assert_eq!(int_attr(by_start[0], "gen_ai.usage.input_tokens"), 100);
    assert_eq!(int_attr(by_start[0], "gen_ai.usage.output_tokens"), 20);
    assert_eq!(
        attr(by_start[0], "gen_ai.response.finish_reasons"),
        Some(&Value::Array(Array::String(vec!["tool_calls".into()])))
    );
    assert_eq!(
        attr(by_start[2], "gen_ai.response.finish_reasons"),
        Some(&Value::Array(Array::String(vec!["stop".into()])))
    );

    // Two tool calls, children of the run, running at the same time.
    let add = named(&spans, "execute_tool add");
    let mul = named(&spans, "execute_tool mul");
    assert_eq!((add.len(), mul.len()), (1, 1));
    let (add, mul) = (add[0], mul[0]);
    for (tool, name, id) in [(add, "add", "call_add"), (mul, "mul", "call_mul")] {
        assert_eq!(tool.span_kind, SpanKind::Internal);
        assert_eq!(tool.parent_span_id, run.span_context.span_id());
        assert_eq!(str_attr(tool, "gen_ai.operation.name"), "execute_tool");
        assert_eq!(str_attr(tool, "gen_ai.tool.name"), name);
        assert_eq!(str_attr(tool, "gen_ai.tool.call.id"), id);
        assert_eq!(str_attr(tool, "gen_ai.tool.type"), "function");
        assert!(attr(tool, "gen_ai.tool.call.arguments").is_none());
        assert_eq!(tool.status, Status::Unset);
    }
    assert!(
        add.start_time < mul.end_time && mul.start_time < add.end_time,
        "the two calls of one answer overlap"
    );
    // The tool calls happen between the first and the second request.
    assert!(by_start[0].end_time <= add.start_time && add.end_time <= by_start[1].start_time);
}

#[tokio::test]
async fn content_is_recorded_only_when_opted_in() {
    let _turn = GLOBAL.lock().await;
    telemetry::set_capture_content(true);
    let server = MockServer::with_script(script()).await;
    let (exporter, provider, subscriber) = exporter();
    streamed_run(&server, subscriber).await;
    telemetry::set_capture_content(false);
    let spans = finished(&exporter, &provider);

    let mut chats = named(&spans, "chat gpt-4o-mini");
    chats.sort_by_key(|s| s.start_time);
    let input: serde_json::Value =
        serde_json::from_str(&str_attr(chats[0], "gen_ai.input.messages")).unwrap();
    assert_eq!(input[0]["role"], "system");
    assert_eq!(input[1]["role"], "user");
    assert_eq!(input[1]["parts"][0]["content"], "What are 2 + 3 and 4 × 5?");
    let output: serde_json::Value =
        serde_json::from_str(&str_attr(chats[0], "gen_ai.output.messages")).unwrap();
    assert_eq!(output[0]["parts"][0]["type"], "tool_call");
    assert_eq!(output[0]["parts"][0]["arguments"]["a"], 2);
    assert_eq!(output[0]["finish_reason"], "tool_calls");
    let add = named(&spans, "execute_tool add")[0];
    assert_eq!(
        str_attr(add, "gen_ai.tool.call.arguments"),
        r#"{"a": 2, "b": 3}"#
    );
    assert_eq!(str_attr(add, "gen_ai.tool.call.result"), "5");
}

/// Everything a span says, as text.
fn all_text(spans: &[SpanData]) -> String {
    let mut out = String::new();
    for span in spans {
        out.push_str(&span.name);
        for kv in &span.attributes {
            out.push_str(&format!(" {}={}", kv.key, kv.value));
        }
        for event in span.events.iter() {
            out.push_str(&format!(" event {}", event.name));
            for kv in &event.attributes {
                out.push_str(&format!(" {}={}", kv.key, kv.value));
            }
        }
        out.push_str(&format!(" {:?}\n", span.status));
    }
    out
}

#[tokio::test]
async fn retries_are_events_errors_are_typed_and_the_key_never_appears() {
    let _turn = GLOBAL.lock().await;
    // Content capture on: even then the key stays out.
    telemetry::set_capture_content(true);
    let server = MockServer::with_script([
        MockResponse::error(
            503,
            "overloaded (key sk-mock-key-0000)",
            "server_error",
            None,
            None,
        ),
        MockResponse::text("fine"),
        MockResponse::error(
            401,
            "Incorrect API key provided: sk-mock-key-0000",
            "invalid_request_error",
            None,
            Some("invalid_api_key"),
        ),
    ])
    .await;
    let model = server.openai_model("gpt-4o-mini");
    let (exporter, provider, subscriber) = exporter();
    async {
        let ok = model
            .invoke(ChatRequest::new(vec![agentry::Message::user("hi")]))
            .await
            .unwrap();
        assert_eq!(ok.message.text(), "fine");
        let err = model
            .invoke(ChatRequest::new(vec![agentry::Message::user("hi")]))
            .await
            .unwrap_err();
        assert!(matches!(err, ModelError::Authentication { .. }), "{err}");
    }
    .with_subscriber(subscriber)
    .await;
    telemetry::set_capture_content(false);
    let spans = finished(&exporter, &provider);
    let mut chats = named(&spans, "chat gpt-4o-mini");
    assert_eq!(chats.len(), 2);
    chats.sort_by_key(|s| s.start_time);
    let retried = chats[0];
    assert_eq!(
        retried
            .events
            .iter()
            .filter(|e| e.name == "retrying")
            .count(),
        1,
        "{:?}",
        retried.events.events
    );
    assert!(attr(retried, "error.type").is_none());
    let failed = chats[1];
    assert_eq!(str_attr(failed, "error.type"), "authentication");
    assert!(
        matches!(failed.status, Status::Error { .. }),
        "{:?}",
        failed.status
    );
    let text = all_text(&spans);
    assert!(text.contains("retrying"), "{text}");
    assert!(
        !text.contains("sk-mock-key"),
        "the key reached a span: {text}"
    );
}

#[tokio::test]
async fn failed_runs_and_tool_errors_carry_error_type() {
    let _turn = GLOBAL.lock().await;
    // The model calls a tool that does not exist, then the run hits its turn limit.
    let server = MockServer::with_handler(|_| {
        MockResponse::tool_calls(vec![agentry::ToolCall::new("c1", "divide", "{}")])
    })
    .await;
    let agent = Calculator::builder(server.openai_model("gpt-4o-mini"))
        .max_turns(2)
        .build();
    let (exporter, provider, subscriber) = exporter();
    let err = telemetry::in_conversation("thread-42", agent.run("1 / 0?", ()))
        .with_subscriber(subscriber)
        .await
        .unwrap_err();
    assert!(
        matches!(err.kind(), RunErrorKind::LimitExceeded(_)),
        "{err}"
    );
    let spans = finished(&exporter, &provider);
    let run = named(&spans, "invoke_agent Calculator")[0];
    assert_eq!(str_attr(run, "error.type"), "limit_exceeded");
    assert_eq!(str_attr(run, "gen_ai.conversation.id"), "thread-42");
    for chat in named(&spans, "chat gpt-4o-mini") {
        assert_eq!(str_attr(chat, "gen_ai.conversation.id"), "thread-42");
    }
    assert!(matches!(run.status, Status::Error { .. }));
    let tools = named(&spans, "execute_tool divide");
    assert_eq!(tools.len(), 2);
    for tool in tools {
        assert_eq!(str_attr(tool, "error.type"), "unknown_tool");
        assert_eq!(tool.parent_span_id, run.span_context.span_id());
    }
}

#[tokio::test]
async fn client_metrics_are_the_conventions_histograms() {
    let _turn = GLOBAL.lock().await;
    let exporter = InMemoryMetricExporter::default();
    let provider = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(exporter.clone()).build())
        .build();
    use opentelemetry::metrics::MeterProvider as _;
    telemetry::otel::install_meter(&provider.meter("test"));
    let server = MockServer::with_script(script()).await;
    let agent = Calculator::builder(server.openai_model("gpt-4o-mini")).build();
    agent.run("2 + 3 and 4 × 5?", ()).await.unwrap();
    telemetry::otel::uninstall_meter();
    provider.force_flush().unwrap();
    let metrics = exporter.get_finished_metrics().unwrap();
    let all: Vec<_> = metrics
        .iter()
        .flat_map(|rm| rm.scope_metrics())
        .flat_map(|sm| sm.metrics())
        .collect();
    let duration = all
        .iter()
        .find(|m| m.name() == "gen_ai.client.operation.duration")
        .expect("a duration histogram");
    assert_eq!(duration.unit(), "s");
    let AggregatedMetrics::F64(MetricData::Histogram(h)) = duration.data() else {
        panic!("duration is not an f64 histogram: {:?}", duration.data());
    };
    let points: Vec<_> = h.data_points().collect();
    assert_eq!(points.iter().map(|p| p.count()).sum::<u64>(), 3);
    assert_eq!(points[0].bounds().next(), Some(0.01));
    let tokens = all
        .iter()
        .find(|m| m.name() == "gen_ai.client.token.usage")
        .expect("a token histogram");
    assert_eq!(tokens.unit(), "{token}");
    let AggregatedMetrics::U64(MetricData::Histogram(h)) = tokens.data() else {
        panic!("token usage is not a u64 histogram");
    };
    let mut sums = std::collections::BTreeMap::new();
    for p in h.data_points() {
        let kind = p
            .attributes()
            .find(|kv| kv.key.as_str() == "gen_ai.token.type")
            .map(|kv| kv.value.as_str().into_owned())
            .unwrap();
        let model = p
            .attributes()
            .find(|kv| kv.key.as_str() == "gen_ai.request.model")
            .map(|kv| kv.value.as_str().into_owned())
            .unwrap();
        assert_eq!(model, "gpt-4o-mini");
        *sums.entry(kind).or_insert(0) += p.sum();
    }
    assert_eq!(sums["input"], 420);
    assert_eq!(sums["output"], 32);
}

#[tokio::test]
async fn a_run_reports_its_cost_and_a_cost_limit_stops_it() {
    let _turn = GLOBAL.lock().await;
    let prices = PriceTable::new().with("gpt-4o-mini", ModelPrice::new(1000.0, 4000.0));
    // Each request: 100 input tokens × $1000/M = $0.10, 20 output × $4000/M = $0.08.
    let server = MockServer::with_handler(|req| {
        let n = req.body["messages"].as_array().map_or(0, Vec::len);
        if n > 3 {
            MockResponse::text(r#"{"total": 5}"#).usage(usage(100, 20))
        } else {
            MockResponse::tool_calls(vec![agentry::ToolCall::new(
                format!("c{n}"),
                "add",
                r#"{"a": 2, "b": 3}"#,
            )])
            .usage(usage(100, 20))
        }
    })
    .await;
    let agent = Calculator::builder(server.openai_model("gpt-4o-mini")).build();
    let run = agent.run("2 + 3?", ()).await.unwrap();
    assert_eq!(run.cost(&prices), Ok(Cost::from_usd(0.36)));

    // A limit of $0.30 on a model that never stops calling tools: the second request
    // crosses it ($0.36), so no third request is made.
    let looping = MockServer::with_handler(|_| {
        MockResponse::tool_calls(vec![agentry::ToolCall::new(
            "c",
            "add",
            r#"{"a": 1, "b": 1}"#,
        )])
        .usage(usage(100, 20))
    })
    .await;
    let limited = Calculator::builder(looping.openai_model("gpt-4o-mini"))
        .max_cost(Cost::from_usd(0.30), prices.clone())
        .build();
    let err = limited.run("loop", ()).await.unwrap_err();
    match err.kind() {
        RunErrorKind::LimitExceeded(agentry::agent::Limit::Cost { max, used }) => {
            assert_eq!(*max, Cost::from_usd(0.30));
            assert_eq!(*used, Cost::from_usd(0.36));
        }
        other => panic!("expected the cost limit, got {other}"),
    }
    assert_eq!(looping.request_count(), 2);
    assert_eq!(err.partial().cost(&prices), Ok(Cost::from_usd(0.36)));
    assert!(
        err.to_string()
            .contains("cost budget ($0.360000 of $0.300000 spent)"),
        "{err}"
    );

    // A model the table does not price: a cost limit cannot hold, so the run stops.
    let unpriced = Calculator::builder(looping.openai_model("gpt-4o-mini"))
        .max_cost(Cost::from_usd(1.0), PriceTable::new())
        .build();
    let err = unpriced.run("loop", ()).await.unwrap_err();
    assert!(matches!(err.kind(), RunErrorKind::Cost(_)), "{err}");
    assert!(err.to_string().contains("gpt-4o-mini"), "{err}");
    assert_eq!(
        looping.request_count(),
        3,
        "the unpriced run stopped after its first answer"
    );
}
