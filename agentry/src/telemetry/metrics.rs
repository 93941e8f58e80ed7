//! The conventions' client metrics: `gen_ai.client.token.usage` and
//! `gen_ai.client.operation.duration`, recorded for every provider request with a meter of
//! the global meter provider (with this crate's instrumentation scope), or the meter
//! installed by [`otel::install_meter`](super::otel::install_meter); without the `otel`
//! feature this compiles to nothing.

#[cfg(not(feature = "otel"))]
use std::time::Duration;

#[cfg(not(feature = "otel"))]
use crate::model::{ChatResponse, ModelError};

/// The attributes a request's metrics carry, besides the response model and error type.
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(crate) struct ChatAttrs {
    pub(crate) provider: String,
    pub(crate) request_model: String,
    pub(crate) server_address: Option<String>,
    pub(crate) server_port: Option<u16>,
}

/// Bucket boundaries the conventions advise for `gen_ai.client.operation.duration`, in seconds.
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(crate) const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/// Bucket boundaries the conventions advise for `gen_ai.client.token.usage`.
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(crate) const TOKEN_BUCKETS: [f64; 14] = [
    1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0,
    16777216.0, 67108864.0,
];

#[cfg(feature = "otel")]
pub(crate) use with_otel::{enabled, install, record_chat, uninstall};

#[cfg(feature = "otel")]
pub(crate) mod with_otel {
    use std::sync::{Arc, RwLock};
    use std::time::Duration;

    use opentelemetry::KeyValue;
    use opentelemetry::metrics::{Histogram, Meter, MeterProvider};

    use super::{ChatAttrs, DURATION_BUCKETS, TOKEN_BUCKETS};
    use crate::model::{ChatResponse, ModelError};
    use crate::telemetry::attrs::model_error_type;

    struct Instruments {
        duration: Histogram<f64>,
        tokens: Histogram<u64>,
    }

    impl Instruments {
        fn new(meter: &Meter) -> Self {
            Instruments {
                duration: meter
                    .f64_histogram("gen_ai.client.operation.duration")
                    .with_unit("s")
                    .with_description("GenAI operation duration.")
                    .with_boundaries(DURATION_BUCKETS.to_vec())
                    .build(),
                tokens: meter
                    .u64_histogram("gen_ai.client.token.usage")
                    .with_unit("{token}")
                    .with_description("Number of input and output tokens used.")
                    .with_boundaries(TOKEN_BUCKETS.to_vec())
                    .build(),
            }
        }
    }

    type GlobalProvider = Arc<dyn MeterProvider + Send + Sync>;

    /// The instruments of the meter installed by `install`, which the global provider's give
    /// way to.
    static INSTALLED: RwLock<Option<Arc<Instruments>>> = RwLock::new(None);
    /// The instruments made with the global meter provider, and that provider: they are made
    /// again when another provider is installed globally.
    static GLOBAL: RwLock<Option<(GlobalProvider, Arc<Instruments>)>> = RwLock::new(None);

    /// Records the GenAI client metrics with `meter` from now on (replacing any meter
    /// installed before) instead of the global provider's.
    pub(crate) fn install(meter: &Meter) {
        let instruments = Arc::new(Instruments::new(meter));
        *INSTALLED.write().unwrap_or_else(|p| p.into_inner()) = Some(instruments);
    }

    /// Records with the global meter provider again.
    pub(crate) fn uninstall() {
        *INSTALLED.write().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// Metrics are always recorded: with the installed meter, or the global provider (a
    /// no-op one until the program installs another).
    pub(crate) fn enabled() -> bool {
        true
    }

    /// The instruments to record with: the installed meter's, else the current global
    /// provider's.
    fn instruments() -> Arc<Instruments> {
        if let Some(installed) = INSTALLED.read().unwrap_or_else(|p| p.into_inner()).clone() {
            return installed;
        }
        let provider = opentelemetry::global::meter_provider();
        if let Some((cached, instruments)) = &*GLOBAL.read().unwrap_or_else(|p| p.into_inner())
            && Arc::ptr_eq(cached, &provider)
        {
            return Arc::clone(instruments);
        }
        let meter = provider.meter_with_scope(crate::telemetry::otel::scope());
        let instruments = Arc::new(Instruments::new(&meter));
        *GLOBAL.write().unwrap_or_else(|p| p.into_inner()) =
            Some((provider, Arc::clone(&instruments)));
        instruments
    }

    pub(crate) fn record_chat(
        attrs: &ChatAttrs,
        elapsed: Duration,
        result: Result<&ChatResponse, &ModelError>,
    ) {
        let instruments = instruments();
        let mut kv = vec![
            KeyValue::new("gen_ai.operation.name", "chat"),
            KeyValue::new("gen_ai.provider.name", attrs.provider.clone()),
            KeyValue::new("gen_ai.request.model", attrs.request_model.clone()),
        ];
        if let Some(host) = &attrs.server_address {
            kv.push(KeyValue::new("server.address", host.clone()));
        }
        if let Some(port) = attrs.server_port {
            kv.push(KeyValue::new("server.port", i64::from(port)));
        }
        match result {
            Ok(response) => {
                kv.push(KeyValue::new(
                    "gen_ai.response.model",
                    response.model.clone(),
                ));
                instruments.duration.record(elapsed.as_secs_f64(), &kv);
                let mut input = kv.clone();
                input.push(KeyValue::new("gen_ai.token.type", "input"));
                instruments
                    .tokens
                    .record(response.usage.input_tokens, &input);
                kv.push(KeyValue::new("gen_ai.token.type", "output"));
                instruments.tokens.record(response.usage.output_tokens, &kv);
            }
            Err(error) => {
                kv.push(KeyValue::new("error.type", model_error_type(error)));
                instruments.duration.record(elapsed.as_secs_f64(), &kv);
            }
        }
    }
}

/// Without the `otel` feature no meter can be installed.
#[cfg(not(feature = "otel"))]
pub(crate) fn enabled() -> bool {
    false
}

#[cfg(not(feature = "otel"))]
pub(crate) fn record_chat(
    _attrs: &ChatAttrs,
    _elapsed: Duration,
    _result: Result<&ChatResponse, &ModelError>,
) {
}
