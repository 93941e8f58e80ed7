//! Keys never leave (issue 10, item 2): the key placed in every spot a server can echo it —
//! a data line that is not JSON, an error object in a 200 stream, an `event: error` event, an
//! error envelope in a 200 answer, a 200 answer that is not JSON — is absent from `Display`,
//! `Debug` and the whole `source()` chain of `ModelError` and `RunError`, and from everything
//! logged at TRACE.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use agentry::agent::{AgentBuilder, NoTools};
use axum::body::Bytes;
use serde_json::json;

use super::hardening::call_model;
use super::scenarios::KEY;
use super::server::{Reply, Server};
use super::wire::Wire;

/// A `tracing` subscriber that records every span and event, with all fields, at every level.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<String>>);

struct Fields<'a>(&'a mut String);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, "{}={value:?} ", field.name());
    }
}

impl tracing::Subscriber for Capture {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::TRACE)
    }
    fn register_callsite(
        &self,
        _: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::always()
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut log = self.0.lock().unwrap();
        span.record(&mut Fields(&mut log));
        log.push('\n');
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut log = self.0.lock().unwrap();
        values.record(&mut Fields(&mut log));
        log.push('\n');
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut log = self.0.lock().unwrap();
        let _ = write!(log, "{} ", event.metadata().level());
        event.record(&mut Fields(&mut log));
        log.push('\n');
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// Display, Debug and every error of the `source()` chain, joined.
fn everything(err: &(dyn std::error::Error + 'static)) -> String {
    let mut out = format!("{err}\n{err:?}\n");
    let mut source = err.source();
    while let Some(s) = source {
        let _ = writeln!(out, "{s}\n{s:?}");
        source = s.source();
    }
    out
}

pub async fn key_never_leaves(w: &dyn Wire) {
    let name = w.name();
    let text = format!("upstream rejected the key {KEY}");
    let cases = [
        (
            "a data line that is not JSON",
            Reply::sse(format!("data: not json {KEY}\n\n")),
            true,
        ),
        (
            "an error object in a 200 stream",
            w.stream_error("Hel", &text),
            true,
        ),
        (
            "an `event: error` event",
            Reply::sse(format!("event: error\ndata: {text}\n\n")),
            true,
        ),
        (
            "an error envelope in a 200 answer",
            Reply::json(200, &w.error_envelope(&text, false)),
            false,
        ),
        (
            "a 200 answer that is not JSON",
            Reply {
                chunks: vec![Bytes::from(format!("oops {KEY}"))],
                ..Reply::json(200, &json!({}))
            },
            false,
        ),
    ];
    for (what, reply, stream) in cases {
        let logs = Capture::default();
        let _subscriber = tracing::subscriber::set_default(logs.clone());
        // A callsite that another test's thread registers while this subscriber is being set
        // could keep the interest it computed without it: ask every callsite again.
        tracing::callsite::rebuild_interest_cache();
        let server = Server::start(vec![reply.clone(), reply]).await;
        let model = w.model(&server.url());

        let err = call_model(&model, stream)
            .await
            .expect_err(&format!("[{name}] {what}: an error"));
        let shown = everything(&err);
        assert!(
            !shown.contains(KEY),
            "[{name}] {what}: the key leaked: {shown}"
        );
        assert!(
            shown.contains("[redacted]"),
            "[{name}] {what}: the provider text is quoted, redacted: {shown}"
        );

        let agent = AgentBuilder::<_, _, (), ()>::new(model, NoTools).build();
        let run = if stream {
            agent.stream("Weather in Paris?", ()).result().await
        } else {
            agent.run("Weather in Paris?", ()).await
        };
        let run_err = run.expect_err(&format!("[{name}] {what}: the run fails"));
        let shown = everything(&run_err);
        assert!(
            !shown.contains(KEY),
            "[{name}] {what}: the key leaked from RunError: {shown}"
        );
        assert!(shown.contains("[redacted]"), "[{name}] {what}: {shown}");
        assert_eq!(server.requests().len(), 2, "[{name}] {what}: not retried");

        let log = logs.0.lock().unwrap().clone();
        assert!(
            log.contains("run failed"),
            "[{name}] {what}: the TRACE capture works: {log}"
        );
        assert!(
            !log.contains(KEY),
            "[{name}] {what}: the key leaked into the logs: {log}"
        );
    }
}
