//! [`OtelError`]: the exporters could not be set up or shut down.

use std::error::Error;

/// Why the exporters could not be set up or shut down.
///
/// The message says what failed; the error that caused it (the OpenTelemetry SDK's, the OTLP
/// exporter's, the HTTP client's) is its [`source`](Error::source), typed, so that
/// `downcast_ref` finds it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OtelError {
    /// `build` or `install` was called outside a tokio runtime.
    #[error(
        "the OTLP exporter needs a tokio runtime: call this inside one (e.g. in #[tokio::main])"
    )]
    NoRuntime,
    /// An exporter could not be built (e.g. an invalid endpoint).
    #[error("could not build the OTLP {what}")]
    Build {
        /// What: `HTTP client`, `span exporter` or `metric exporter`.
        what: &'static str,
        /// The cause: an `opentelemetry_otlp::ExporterBuildError` or a `reqwest::Error`.
        #[source]
        source: Box<dyn Error + Send + Sync>,
    },
    /// A global `tracing` subscriber was already installed.
    #[error(
        "a global tracing subscriber is already installed: use OtelConfig::build and add Otel::layer to yours"
    )]
    SubscriberExists,
    /// Flushing or shutting down the providers failed.
    #[error("could not {action} the OpenTelemetry {provider} provider")]
    Shutdown {
        /// `flush` or `shut down`.
        action: &'static str,
        /// `tracer` or `meter`.
        provider: &'static str,
        /// The cause: the SDK's `opentelemetry_sdk::error::OTelSdkError`, or tokio's
        /// `JoinError` when the blocking task running it panicked.
        #[source]
        source: Box<dyn Error + Send + Sync>,
    },
}

impl OtelError {
    /// An exporter (`what`) that could not be built, caused by `source`.
    pub(super) fn build(what: &'static str, source: impl Error + Send + Sync + 'static) -> Self {
        OtelError::Build {
            what,
            source: Box::new(source),
        }
    }
}
