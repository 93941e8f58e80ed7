//! The crate's instrumentation scope, and a tracer that follows the global tracer provider.
//!
//! Spans and metrics are taken from the global OpenTelemetry providers
//! (`opentelemetry::global`) unless an [`Otel`](super::Otel) built by this module overrides
//! them: a program that installs its own global tracer and meter providers gets the GenAI
//! spans (through [`layer`]) and metrics with this crate's scope.

use opentelemetry::trace::{SpanBuilder, Tracer};
use opentelemetry::{Context, InstrumentationScope, global};
use tracing_opentelemetry::OpenTelemetryLayer;

/// The name of this crate's instrumentation scope.
pub const SCOPE_NAME: &str = "agentry";

/// This crate's instrumentation scope: name [`SCOPE_NAME`], this crate's version, and the
/// schema URL of the semantic conventions it follows
/// ([`SCHEMA_URL`](crate::telemetry::SCHEMA_URL)).
pub fn scope() -> InstrumentationScope {
    InstrumentationScope::builder(SCOPE_NAME)
        .with_version(env!("CARGO_PKG_VERSION"))
        .with_schema_url(crate::telemetry::SCHEMA_URL)
        .build()
}

/// A tracer with this crate's [`scope`] from the global tracer provider
/// (`opentelemetry::global::tracer_provider`), looked up for each span: a provider installed
/// after the tracer was made is used from then on.
#[derive(Clone, Debug)]
pub struct GlobalTracer {
    scope: InstrumentationScope,
}

impl GlobalTracer {
    /// A tracer with this crate's [`scope`].
    pub fn new() -> Self {
        GlobalTracer { scope: scope() }
    }
}

impl Default for GlobalTracer {
    fn default() -> Self {
        GlobalTracer::new()
    }
}

impl Tracer for GlobalTracer {
    type Span = global::BoxedSpan;

    fn build_with_context(&self, builder: SpanBuilder, parent_cx: &Context) -> Self::Span {
        global::tracer_with_scope(self.scope.clone()).build_with_context(builder, parent_cx)
    }
}

/// A `tracing-opentelemetry` layer sending the spans it sees to the global tracer provider,
/// with this crate's [`scope`]: add it to your subscriber, filtered to the `agentry` target
/// if other spans should not carry this scope, and at a level (`INFO`, as
/// [`OtelConfig::install`](super::OtelConfig::install) does) so that `debug!` lines inside a
/// run are not exported as its span's events.
///
/// ```
/// use tracing::level_filters::LevelFilter;
/// use tracing_subscriber::Layer as _;
/// use tracing_subscriber::layer::SubscriberExt;
///
/// // After opentelemetry::global::set_tracer_provider(..) with your exporter:
/// let layer = agentry::telemetry::otel::layer().with_filter(LevelFilter::INFO);
/// let subscriber = tracing_subscriber::registry().with(layer);
/// # drop(subscriber);
/// ```
pub fn layer<S>() -> OpenTelemetryLayer<S, GlobalTracer>
where
    S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
{
    tracing_opentelemetry::layer().with_tracer(GlobalTracer::new())
}
