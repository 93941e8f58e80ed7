//! A program that installs its own global OpenTelemetry tracer and meter providers, without
//! the `otel` feature's setup, gets the GenAI spans (through `telemetry::otel::layer`) and
//! metrics with this crate's instrumentation scope: name `agentry`, the crate's version, the
//! conventions' schema URL.

#[path = "telemetry/support.rs"]
mod support;

use agentry::telemetry::{self, otel};
use agentry::testing::MockServer;
use opentelemetry::InstrumentationScope;
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use support::*;
use tracing::instrument::WithSubscriber;
use tracing_subscriber::layer::SubscriberExt;

fn assert_agentry_scope(scope: &InstrumentationScope, what: &str) {
    assert_eq!(scope.name(), "agentry", "{what}");
    assert_eq!(scope.version(), Some(env!("CARGO_PKG_VERSION")), "{what}");
    assert_eq!(
        scope.schema_url(),
        Some("https://opentelemetry.io/schemas/1.38.0"),
        "{what}"
    );
}

#[test]
fn the_schema_url_is_that_of_the_conventions_followed() {
    assert_eq!(
        telemetry::SCHEMA_URL,
        format!("https://opentelemetry.io/schemas/{}", telemetry::SEMCONV)
    );
    assert_agentry_scope(&otel::scope(), "otel::scope()");
}

#[tokio::test]
async fn spans_and_metrics_go_to_the_global_providers_with_the_crates_scope() {
    let _turn = GLOBAL.lock().await;
    let spans = InMemorySpanExporter::default();
    let tracer_provider = SdkTracerProvider::builder()
        .with_simple_exporter(spans.clone())
        .build();
    let metrics = InMemoryMetricExporter::default();
    let meter_provider = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(metrics.clone()).build())
        .build();
    // The program's own setup: global providers, and the SDK's layer in its subscriber.
    opentelemetry::global::set_tracer_provider(tracer_provider.clone());
    opentelemetry::global::set_meter_provider(meter_provider.clone());
    let subscriber = tracing_subscriber::registry().with(otel::layer());

    let server = MockServer::with_script(script()).await;
    let agent = Calculator::builder(server.openai_model("gpt-4o-mini")).build();
    agent
        .run("2 + 3 and 4 × 5?", ())
        .with_subscriber(subscriber)
        .await
        .unwrap();

    tracer_provider.force_flush().unwrap();
    let finished = spans.get_finished_spans().unwrap();
    for name in [
        "invoke_agent Calculator",
        "chat gpt-4o-mini",
        "execute_tool add",
    ] {
        let span = finished.iter().find(|s| s.name == name).unwrap_or_else(|| {
            panic!(
                "no span `{name}` in {:?}",
                finished.iter().map(|s| &s.name).collect::<Vec<_>>()
            )
        });
        assert_agentry_scope(&span.instrumentation_scope, name);
    }

    meter_provider.force_flush().unwrap();
    let exported = metrics.get_finished_metrics().unwrap();
    let scopes: Vec<_> = exported.iter().flat_map(|rm| rm.scope_metrics()).collect();
    for name in [
        "gen_ai.client.operation.duration",
        "gen_ai.client.token.usage",
    ] {
        let scope = scopes
            .iter()
            .find(|sm| sm.metrics().any(|m| m.name() == name))
            .unwrap_or_else(|| panic!("no metric `{name}`"));
        assert_agentry_scope(scope.scope(), name);
    }
}

/// A meter provider and the exporter it reads into.
fn meter_provider() -> (InMemoryMetricExporter, SdkMeterProvider) {
    let exporter = InMemoryMetricExporter::default();
    let provider = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(exporter.clone()).build())
        .build();
    (exporter, provider)
}

/// The metric names `exporter` received from `provider`.
fn metric_names(exporter: &InMemoryMetricExporter, provider: &SdkMeterProvider) -> Vec<String> {
    provider.force_flush().unwrap();
    exporter
        .get_finished_metrics()
        .unwrap()
        .iter()
        .flat_map(|rm| rm.scope_metrics())
        .flat_map(|sm| sm.metrics())
        .map(|m| m.name().to_owned())
        .collect()
}

#[tokio::test]
async fn metrics_follow_the_global_meter_provider_when_it_is_replaced() {
    let _turn = GLOBAL.lock().await;
    let server =
        MockServer::with_script(script().into_iter().chain(script()).chain(script())).await;
    let agent = Calculator::builder(server.openai_model("gpt-4o-mini")).build();

    let (first, first_provider) = meter_provider();
    opentelemetry::global::set_meter_provider(first_provider.clone());
    agent.run("2 + 3 and 4 × 5?", ()).await.unwrap();
    assert!(
        metric_names(&first, &first_provider)
            .iter()
            .any(|n| n == "gen_ai.client.operation.duration")
    );

    let (second, second_provider) = meter_provider();
    opentelemetry::global::set_meter_provider(second_provider.clone());
    agent.run("2 + 3 and 4 × 5?", ()).await.unwrap();
    assert!(
        metric_names(&second, &second_provider)
            .iter()
            .any(|n| n == "gen_ai.client.operation.duration"),
        "the new global provider received nothing"
    );

    // A meter installed by hand wins over the global provider, until it is removed.
    let (installed, installed_provider) = meter_provider();
    use opentelemetry::metrics::MeterProvider as _;
    otel::install_meter(&installed_provider.meter("mine"));
    agent.run("2 + 3 and 4 × 5?", ()).await.unwrap();
    otel::uninstall_meter();
    assert!(!metric_names(&installed, &installed_provider).is_empty());
}
