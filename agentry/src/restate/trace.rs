//! The span a Restate run's spans hang under: `restate_invocation`, a child of the trace the
//! engine sent with the invocation (its `traceparent` header) when the `otel` feature is on.

use tracing::Span;

/// The span of one attempt of invocation `invocation`, its parent the W3C trace context in
/// `headers` (with `otel`; without it, the `traceparent` is recorded as a field).
pub(crate) fn invocation_span(invocation: &str, headers: &::http::HeaderMap<String>) -> Span {
    let traceparent = headers.get("traceparent").map(String::as_str);
    let span = tracing::info_span!(
        "restate_invocation",
        restate.invocation_id = invocation,
        restate.traceparent = traceparent,
    );
    #[cfg(feature = "otel")]
    otel::set_parent(&span, headers);
    span
}

#[cfg(feature = "otel")]
mod otel {
    use opentelemetry::propagation::{Extractor, TextMapPropagator};
    use opentelemetry::trace::TraceContextExt;
    use opentelemetry_sdk::propagation::TraceContextPropagator;
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    /// The invocation's headers, as the propagator reads them.
    struct Headers<'a>(&'a ::http::HeaderMap<String>);

    impl Extractor for Headers<'_> {
        fn get(&self, key: &str) -> Option<&str> {
            self.0.get(key).map(String::as_str)
        }

        fn keys(&self) -> Vec<&str> {
            self.0.keys().map(|k| k.as_str()).collect()
        }
    }

    /// Makes `span` a child of the trace context in `headers`, if there is a valid one.
    pub(super) fn set_parent(span: &tracing::Span, headers: &::http::HeaderMap<String>) {
        let parent = TraceContextPropagator::new().extract(&Headers(headers));
        if parent.span().span_context().is_valid() {
            // Fails only when no OpenTelemetry layer records the span: nothing to join then.
            let _ = span.set_parent(parent);
        }
    }
}
