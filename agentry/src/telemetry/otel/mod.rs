//! OTLP/HTTP export of the GenAI spans and metrics (the `otel` cargo feature).
//!
//! The spans and metrics come from the global OpenTelemetry providers
//! (`opentelemetry::global`), with this crate's instrumentation [`scope`] (name `agentry`,
//! this crate's version, the [`SCHEMA_URL`](super::SCHEMA_URL) of the conventions followed):
//! a program that sets up OpenTelemetry itself installs its global tracer and meter
//! providers and adds [`layer`] to its `tracing` subscriber.
//!
//! Otherwise [`OtelConfig::install`] is the one call: it builds an OTLP/HTTP (protobuf) span
//! exporter and metric exporter, a tracer provider with a batch processor and a meter
//! provider with a periodic reader, installs them as the global providers, and installs a
//! `tracing` subscriber whose `tracing-opentelemetry` layer turns the SDK's spans into
//! OpenTelemetry spans. [`OtelConfig::build`] builds the same providers without installing
//! anything global but the GenAI metrics' meter ([`install_meter`]), for a program that
//! composes its own subscriber ([`Otel::layer`]).
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

mod client;
mod error;
mod global;

use std::fmt;
use std::time::Duration;

use opentelemetry::metrics::{Meter, MeterProvider as _};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use tracing::level_filters::LevelFilter;
use tracing_opentelemetry::OpenTelemetryLayer;
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;

use client::RuntimeClient;
pub use error::OtelError;
pub use global::{GlobalTracer, SCOPE_NAME, layer, scope};

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
                .map_err(|e| OtelError::build("HTTP client", e))?,
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
        let spans = spans
            .build()
            .map_err(|e| OtelError::build("span exporter", e))?;
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
                .map_err(|e| OtelError::build("metric exporter", e))?;
            let reader = opentelemetry_sdk::metrics::PeriodicReader::builder(exporter)
                .with_interval(self.metric_interval)
                .build();
            let provider = SdkMeterProvider::builder()
                .with_reader(reader)
                .with_resource(resource)
                .build();
            install_meter(&provider.meter_with_scope(scope()));
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
            global: false,
        })
    }

    /// [`build`](Self::build), then installs a global `tracing` subscriber exporting every
    /// span and event at the configured level, and the providers as the global
    /// OpenTelemetry tracer and meter providers (replacing any installed before; the
    /// meter provider only when metrics are exported).
    pub fn install(self) -> Result<Otel, OtelError> {
        let mut otel = self.build()?;
        let subscriber = tracing_subscriber::registry().with(otel.layer().with_filter(otel.level));
        tracing::subscriber::set_global_default(subscriber)
            .map_err(|_| OtelError::SubscriberExists)?;
        opentelemetry::global::set_tracer_provider(otel.tracer_provider.clone());
        if let Some(meter_provider) = &otel.meter_provider {
            opentelemetry::global::set_meter_provider(meter_provider.clone());
        }
        otel.global = true;
        Ok(otel)
    }
}

/// Installed exporters: keep it for the program's life and [`shutdown`](Otel::shutdown) at
/// the end.
pub struct Otel {
    tracer_provider: SdkTracerProvider,
    meter_provider: Option<SdkMeterProvider>,
    level: LevelFilter,
    /// Installed as the global providers ([`OtelConfig::install`]).
    global: bool,
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
    /// A `tracing-opentelemetry` layer sending spans to this exporter with this crate's
    /// [`scope`], for a subscriber of your own. Filter it as [`OtelConfig::install`] does
    /// (`.with_filter(LevelFilter::INFO)`): unfiltered, every `debug!` line inside a run
    /// becomes an event of the run's span, exported with it.
    pub fn layer<S>(&self) -> OpenTelemetryLayer<S, SdkTracer>
    where
        S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
    {
        tracing_opentelemetry::layer().with_tracer(self.tracer_provider.tracer_with_scope(scope()))
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
            tracer
                .force_flush()
                .map_err(|e| failed("flush", "tracer", e))?;
            if let Some(m) = meter {
                m.force_flush().map_err(|e| failed("flush", "meter", e))?;
            }
            Ok(())
        })
        .await
    }

    /// Sends everything buffered and stops the exporters; the GenAI metrics stop recording
    /// with this meter provider. Providers [`install`](OtelConfig::install) made global are
    /// replaced by no-op ones.
    pub async fn shutdown(self) -> Result<(), OtelError> {
        uninstall_meter();
        let Otel {
            tracer_provider,
            meter_provider,
            global,
            ..
        } = self;
        if global {
            opentelemetry::global::set_tracer_provider(
                opentelemetry::trace::noop::NoopTracerProvider::new(),
            );
            if meter_provider.is_some() {
                opentelemetry::global::set_meter_provider(
                    opentelemetry::metrics::noop::NoopMeterProvider::new(),
                );
            }
        }
        blocking(move || {
            tracer_provider
                .shutdown()
                .map_err(|e| failed("shut down", "tracer", e))?;
            if let Some(m) = meter_provider {
                m.shutdown().map_err(|e| failed("shut down", "meter", e))?;
            }
            Ok(())
        })
        .await
    }
}

/// A flush or shutdown (`action`) of the `provider` provider that failed with `source`.
fn failed(
    action: &'static str,
    provider: &'static str,
    source: impl std::error::Error + Send + Sync + 'static,
) -> OtelError {
    OtelError::Shutdown {
        action,
        provider,
        source: Box::new(source),
    }
}

/// Runs a provider's blocking flush off the runtime's threads (the export it waits for runs
/// on the runtime).
async fn blocking(
    f: impl FnOnce() -> Result<(), OtelError> + Send + 'static,
) -> Result<(), OtelError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| failed("flush or shut down", "tracer and meter", e))?
}

/// Records the GenAI client metrics (`gen_ai.client.token.usage`,
/// `gen_ai.client.operation.duration`) with `meter` from now on instead of a meter of the
/// global meter provider; [`OtelConfig::build`] calls it.
pub fn install_meter(meter: &Meter) {
    super::metrics::install(meter);
}

/// Removes the meter [`install_meter`] installed: the GenAI client metrics are recorded
/// with the global meter provider again.
pub fn uninstall_meter() {
    super::metrics::uninstall();
}
