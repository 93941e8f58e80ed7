//! OTLP/HTTP export of the GenAI spans and metrics (the `otel` cargo feature).
//!
//! [`OtelConfig::install`] is the one call: it builds an OTLP/HTTP (protobuf) span exporter
//! and metric exporter, a tracer provider with a batch processor and a meter provider with a
//! periodic reader, installs a `tracing` subscriber whose `tracing-opentelemetry` layer turns
//! the SDK's spans into OpenTelemetry spans, and points the GenAI metrics at the meter.
//! [`OtelConfig::build`] does the same without installing a subscriber, for a program that
//! composes its own ([`Otel::layer`]).
//!
//! Requests to the collector go through this crate's `reqwest` client on the tokio runtime
//! that was current when the exporter was built, so `install` and `build` must be called
//! inside a tokio runtime, and [`Otel::shutdown`] awaited before it ends (it sends what is
//! still buffered).
//!
//! ```no_run
//! use agentry::telemetry::otel::OtelConfig;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! // Base URL of an OTLP/HTTP collector; `/v1/traces` and `/v1/metrics` are appended.
//! // Without `endpoint`, the standard OTEL_EXPORTER_OTLP_* variables apply
//! // (default http://localhost:4318).
//! let telemetry = OtelConfig::new("trip-planner")
//!     .endpoint("http://localhost:4318")
//!     .install()?;
//! // ... run agents: every run, model request and tool call is exported ...
//! telemetry.shutdown().await?;
//! # Ok(()) }
//! ```

use std::fmt;
use std::time::Duration;

use bytes::Bytes;
use opentelemetry::metrics::{Meter, MeterProvider as _};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_http::{HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use tracing::level_filters::LevelFilter;
use tracing_opentelemetry::OpenTelemetryLayer;
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;

/// Why the exporters could not be set up or shut down.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OtelError {
    /// `build` or `install` was called outside a tokio runtime.
    #[error(
        "the OTLP exporter needs a tokio runtime: call this inside one (e.g. in #[tokio::main])"
    )]
    NoRuntime,
    /// An exporter could not be built (e.g. an invalid endpoint).
    #[error("could not build the OTLP exporter: {0}")]
    Build(String),
    /// A global `tracing` subscriber was already installed.
    #[error(
        "a global tracing subscriber is already installed: use OtelConfig::build and add Otel::layer to yours"
    )]
    SubscriberExists,
    /// Flushing or shutting down the providers failed.
    #[error("could not flush or shut down the OpenTelemetry providers: {0}")]
    Shutdown(String),
}

/// How to export: the service's name, the collector and what to send. See the
/// [module](self) docs.
#[derive(Clone)]
pub struct OtelConfig {
    service_name: String,
    endpoint: Option<String>,
    headers: Vec<(String, String)>,
    capture_content: bool,
    metrics: bool,
    metric_interval: Duration,
    timeout: Duration,
    level: LevelFilter,
}

impl fmt::Debug for OtelConfig {
    /// Header values (often a collector's credentials) are not shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OtelConfig")
            .field("service_name", &self.service_name)
            .field("endpoint", &self.endpoint)
            .field(
                "headers",
                &self.headers.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .field("capture_content", &self.capture_content)
            .field("metrics", &self.metrics)
            .field("metric_interval", &self.metric_interval)
            .field("timeout", &self.timeout)
            .field("level", &self.level)
            .finish()
    }
}

impl OtelConfig {
    /// Export as `service_name` (the resource's `service.name`), to the collector named by
    /// the `OTEL_EXPORTER_OTLP_*` variables (default `http://localhost:4318`), spans and
    /// metrics, without message content, spans and events at `INFO` and above.
    pub fn new(service_name: impl Into<String>) -> Self {
        OtelConfig {
            service_name: service_name.into(),
            endpoint: None,
            headers: Vec::new(),
            capture_content: false,
            metrics: true,
            metric_interval: Duration::from_secs(60),
            timeout: Duration::from_secs(10),
            level: LevelFilter::INFO,
        }
    }

    /// The collector's OTLP/HTTP base URL, e.g. `http://localhost:4318`; spans go to
    /// `{base}/v1/traces`, metrics to `{base}/v1/metrics`.
    pub fn endpoint(mut self, base_url: impl Into<String>) -> Self {
        self.endpoint = Some(base_url.into().trim_end_matches('/').to_owned());
        self
    }

    /// A header sent with every export (e.g. the collector's authorization); its value is
    /// never shown by `Debug`.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Records message content on spans ([`set_capture_content`](super::set_capture_content)).
    pub fn capture_content(mut self, on: bool) -> Self {
        self.capture_content = on;
        self
    }

    /// Exports the GenAI metrics too (default `true`).
    pub fn metrics(mut self, on: bool) -> Self {
        self.metrics = on;
        self
    }

    /// How often metrics are exported (default 60 s).
    pub fn metric_interval(mut self, every: Duration) -> Self {
        self.metric_interval = every;
        self
    }

    /// The most verbose level exported by the installed subscriber (default `INFO`).
    pub fn level(mut self, level: LevelFilter) -> Self {
        self.level = level;
        self
    }

    fn url(&self, path: &str) -> Option<String> {
        self.endpoint.as_ref().map(|base| format!("{base}{path}"))
    }

    /// Builds the exporters and providers, and points the GenAI metrics at the meter; no
    /// subscriber is installed (add [`Otel::layer`] to yours).
    pub fn build(self) -> Result<Otel, OtelError> {
        let handle = tokio::runtime::Handle::try_current().map_err(|_| OtelError::NoRuntime)?;
        let client = RuntimeClient {
            client: crate::http::tls::client_builder()
                .timeout(self.timeout)
                .build()
                .map_err(|e| OtelError::Build(e.to_string()))?,
            handle,
        };
        let headers: std::collections::HashMap<String, String> =
            self.headers.iter().cloned().collect();
        let resource = Resource::builder()
            .with_service_name(self.service_name.clone())
            .build();

        let mut spans = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(client.clone())
            .with_headers(headers.clone())
            .with_timeout(self.timeout);
        if let Some(url) = self.url("/v1/traces") {
            spans = spans.with_endpoint(url);
        }
        let spans = spans.build().map_err(|e| OtelError::Build(e.to_string()))?;
        let tracer_provider = SdkTracerProvider::builder()
            .with_batch_exporter(spans)
            .with_resource(resource.clone())
            .build();

        let meter_provider = if self.metrics {
            let mut exporter = opentelemetry_otlp::MetricExporter::builder()
                .with_http()
                .with_http_client(client)
                .with_headers(headers)
                .with_timeout(self.timeout);
            if let Some(url) = self.url("/v1/metrics") {
                exporter = exporter.with_endpoint(url);
            }
            let exporter = exporter
                .build()
                .map_err(|e| OtelError::Build(e.to_string()))?;
            let reader = opentelemetry_sdk::metrics::PeriodicReader::builder(exporter)
                .with_interval(self.metric_interval)
                .build();
            let provider = SdkMeterProvider::builder()
                .with_reader(reader)
                .with_resource(resource)
                .build();
            install_meter(&provider.meter("agentry"));
            Some(provider)
        } else {
            None
        };
        if self.capture_content {
            super::set_capture_content(true);
        }
        Ok(Otel {
            tracer_provider,
            meter_provider,
            level: self.level,
        })
    }

    /// [`build`](Self::build), then installs a global `tracing` subscriber exporting every
    /// span and event at the configured level.
    pub fn install(self) -> Result<Otel, OtelError> {
        let otel = self.build()?;
        let subscriber = tracing_subscriber::registry().with(otel.layer().with_filter(otel.level));
        tracing::subscriber::set_global_default(subscriber)
            .map_err(|_| OtelError::SubscriberExists)?;
        Ok(otel)
    }
}

/// Installed exporters: keep it for the program's life and [`shutdown`](Otel::shutdown) at
/// the end.
pub struct Otel {
    tracer_provider: SdkTracerProvider,
    meter_provider: Option<SdkMeterProvider>,
    level: LevelFilter,
}

impl fmt::Debug for Otel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Otel")
            .field("metrics", &self.meter_provider.is_some())
            .field("level", &self.level)
            .finish_non_exhaustive()
    }
}

impl Otel {
    /// A `tracing-opentelemetry` layer sending spans to this exporter, for a subscriber of
    /// your own.
    pub fn layer<S>(&self) -> OpenTelemetryLayer<S, SdkTracer>
    where
        S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
    {
        tracing_opentelemetry::layer().with_tracer(self.tracer_provider.tracer("agentry"))
    }

    /// The tracer provider.
    pub fn tracer_provider(&self) -> &SdkTracerProvider {
        &self.tracer_provider
    }

    /// The meter provider, when metrics are exported.
    pub fn meter_provider(&self) -> Option<&SdkMeterProvider> {
        self.meter_provider.as_ref()
    }

    /// Sends everything buffered now.
    pub async fn flush(&self) -> Result<(), OtelError> {
        let tracer = self.tracer_provider.clone();
        let meter = self.meter_provider.clone();
        blocking(move || {
            tracer.force_flush().map_err(|e| e.to_string())?;
            if let Some(m) = meter {
                m.force_flush().map_err(|e| e.to_string())?;
            }
            Ok(())
        })
        .await
    }

    /// Sends everything buffered and stops the exporters; the GenAI metrics stop recording.
    pub async fn shutdown(self) -> Result<(), OtelError> {
        uninstall_meter();
        let Otel {
            tracer_provider,
            meter_provider,
            ..
        } = self;
        blocking(move || {
            tracer_provider.shutdown().map_err(|e| e.to_string())?;
            if let Some(m) = meter_provider {
                m.shutdown().map_err(|e| e.to_string())?;
            }
            Ok(())
        })
        .await
    }
}

/// Runs a provider's blocking flush off the runtime's threads (the export it waits for runs
/// on the runtime).
async fn blocking(
    f: impl FnOnce() -> Result<(), String> + Send + 'static,
) -> Result<(), OtelError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| OtelError::Shutdown(e.to_string()))?
        .map_err(OtelError::Shutdown)
}

/// Records the GenAI client metrics (`gen_ai.client.token.usage`,
/// `gen_ai.client.operation.duration`) with `meter` from now on, for a program that builds
/// its own meter provider; [`OtelConfig::build`] calls it.
pub fn install_meter(meter: &Meter) {
    super::metrics::install(meter);
}

/// Stops recording the GenAI client metrics.
pub fn uninstall_meter() {
    super::metrics::uninstall();
}

/// The exporters' HTTP client: this crate's `reqwest` client, each request run on the tokio
/// runtime it was built in (the SDK's batch processor exports from a thread of its own).
#[derive(Clone)]
struct RuntimeClient {
    client: reqwest::Client,
    handle: tokio::runtime::Handle,
}

impl fmt::Debug for RuntimeClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RuntimeClient")
    }
}

#[async_trait::async_trait]
impl HttpClient for RuntimeClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let (parts, body) = request.into_parts();
        let request = self
            .client
            .request(parts.method, parts.uri.to_string())
            .headers(parts.headers)
            .body(body);
        let sent = self.handle.spawn(async move {
            let response = request.send().await?;
            let status = response.status();
            let headers = response.headers().clone();
            let body = response.bytes().await?;
            Ok::<_, reqwest::Error>((status, headers, body))
        });
        let (status, headers, body) = sent.await??;
        let mut response = Response::builder().status(status).body(body)?;
        *response.headers_mut() = headers;
        Ok(response)
    }
}
