//! `OtelError` keeps its cause: an exporter that cannot be built carries the OTLP exporter's
//! typed error, a failed shutdown the SDK's, as `source()`; neither its message nor its
//! chain shows a collector's credentials.

use std::error::Error as _;

use agentry::telemetry::otel::{OtelConfig, OtelError};
use opentelemetry_otlp::ExporterBuildError;
use opentelemetry_sdk::error::OTelSdkError;

/// The error, its `Debug`, and every message of its chain.
fn everything_shown(err: &OtelError) -> String {
    let mut shown = format!("{err:?}");
    let mut next: Option<&dyn std::error::Error> = Some(err);
    while let Some(e) = next {
        shown.push('\n');
        shown.push_str(&e.to_string());
        next = e.source();
    }
    shown
}

#[tokio::test]
async fn an_exporter_that_cannot_be_built_keeps_the_exporters_error() {
    let err = OtelConfig::new("svc")
        .endpoint("http://not a host:4318")
        .header("authorization", "Bearer sk-collector-secret")
        .build()
        .unwrap_err();
    assert!(
        matches!(
            err,
            OtelError::Build {
                what: "span exporter",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "could not build the OTLP span exporter");
    let cause = err
        .source()
        .and_then(|e| e.downcast_ref::<ExporterBuildError>())
        .expect("the exporter's error as the source");
    assert!(
        matches!(cause, ExporterBuildError::InvalidConfiguration(_)),
        "{cause:?}"
    );
    assert!(!everything_shown(&err).contains("sk-collector-secret"));
}

#[tokio::test]
async fn a_failed_shutdown_keeps_the_sdks_error() {
    let otel = OtelConfig::new("svc")
        .endpoint("http://127.0.0.1:9")
        .header("authorization", "Bearer sk-collector-secret")
        .metrics(false)
        .build()
        .unwrap();
    // Shut down behind its back: the second shutdown is refused by the SDK.
    otel.tracer_provider().shutdown().unwrap();
    let err = otel.shutdown().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "could not shut down the OpenTelemetry tracer provider"
    );
    let cause = err
        .source()
        .and_then(|e| e.downcast_ref::<OTelSdkError>())
        .expect("the SDK's error as the source");
    assert!(matches!(cause, OTelSdkError::AlreadyShutdown), "{cause:?}");
    assert!(!everything_shown(&err).contains("sk-collector-secret"));
}
