//! The error scenarios, run for every provider: each error class with its retries, an error
//! inside a 200 stream, a stream cut off mid-answer.

use std::time::{Duration, Instant};

use agentry::model::{ModelError, StreamEvent};

use super::scenarios::{KEY, collect, request, text_of, usage, weather};
use super::server::Server;
use super::wire::{ErrorCase, Finish, Turn, Wire};

async fn error_after(
    w: &dyn Wire,
    script: Vec<super::server::Reply>,
) -> (Result<agentry::model::ChatResponse, ModelError>, usize) {
    let server = Server::start(script).await;
    let model = w.model(&server.url());
    let r = model.invoke(request(vec![weather()])).await;
    if let Err(e) = &r {
        assert!(
            !e.to_string().contains(KEY),
            "[{}] the key leaked into {e}",
            w.name()
        );
        assert!(
            !format!("{e:?}").contains(KEY),
            "[{}] the key leaked into {e:?}",
            w.name()
        );
    }
    (r, server.requests().len())
}

pub async fn errors(w: &dyn Wire) {
    let ok = w.reply(
        &Turn {
            text: Some("ok".into()),
            calls: vec![],
            usage: usage(),
            finish: Finish::Stop,
        },
        false,
    );
    let name = w.name();

    let (r, n) = error_after(w, vec![w.error(ErrorCase::Unauthorized), ok.clone()]).await;
    assert!(
        matches!(r, Err(ModelError::Authentication { .. })),
        "[{name}] {r:?}"
    );
    assert_eq!(n, 1, "[{name}] 401 is not retried");

    let (r, n) = error_after(w, vec![w.error(ErrorCase::Forbidden), ok.clone()]).await;
    assert!(
        matches!(r, Err(ModelError::PermissionDenied { .. })),
        "[{name}] {r:?}"
    );
    assert_eq!(n, 1);

    let (r, n) = error_after(w, vec![w.error(ErrorCase::NotFound), ok.clone()]).await;
    assert!(
        matches!(r, Err(ModelError::NotFound { .. })),
        "[{name}] {r:?}"
    );
    assert_eq!(n, 1);

    let (r, n) = error_after(w, vec![w.error(ErrorCase::BadParam), ok.clone()]).await;
    match &r {
        Err(ModelError::InvalidRequest { param, .. }) => {
            assert_eq!(param.as_deref(), Some(w.bad_param()), "[{name}]")
        }
        other => panic!("[{name}] {other:?}"),
    }
    assert_eq!(n, 1, "[{name}] 400 is not retried");

    let (r, n) = error_after(w, vec![w.error(ErrorCase::ContextLength), ok.clone()]).await;
    assert!(
        matches!(r, Err(ModelError::ContextLengthExceeded { .. })),
        "[{name}] {r:?}"
    );
    assert_eq!(n, 1);

    // 429: the server's wait is honoured, then the retry succeeds.
    let started = Instant::now();
    let (r, n) = error_after(w, vec![w.error(ErrorCase::RateLimited(0.2)), ok.clone()]).await;
    assert!(r.is_ok(), "[{name}] {r:?}");
    assert_eq!(n, 2, "[{name}] 429 is retried");
    assert!(
        started.elapsed() >= Duration::from_millis(200),
        "[{name}] waited {:?}",
        started.elapsed()
    );
    let (r, n) = error_after(
        w,
        vec![
            w.error(ErrorCase::RateLimited(0.01)),
            w.error(ErrorCase::RateLimited(0.01)),
        ],
    )
    .await;
    match r {
        Err(ModelError::RateLimited { retry_after, .. }) => {
            assert_eq!(retry_after, Some(Duration::from_millis(10)), "[{name}]")
        }
        other => panic!("[{name}] {other:?}"),
    }
    assert_eq!(n, 2);

    // 5xx: retried, then the error when retries are spent.
    let (r, n) = error_after(w, vec![w.error(ErrorCase::Server), ok.clone()]).await;
    assert!(r.is_ok(), "[{name}] {r:?}");
    assert_eq!(n, 2);
    let (r, _) = error_after(
        w,
        vec![w.error(ErrorCase::Server), w.error(ErrorCase::Server)],
    )
    .await;
    assert!(
        matches!(&r, Err(e @ ModelError::Server { .. }) if e.is_retryable()),
        "[{name}] {r:?}"
    );

    // The same classes on the streaming path, before any event.
    let server = Server::start(vec![w.error(ErrorCase::Unauthorized)]).await;
    let (events, err) = collect(w.model(&server.url()).stream(request(vec![]))).await;
    assert!(events.is_empty());
    assert!(
        matches!(err, Some(ModelError::Authentication { .. })),
        "[{name}] {err:?}"
    );
}

pub async fn error_inside_stream(w: &dyn Wire) {
    let server = Server::start(vec![w.stream_error(
        "Hel",
        "The server had an error while processing your request.",
    )])
    .await;
    let (events, err) = collect(w.model(&server.url()).stream(request(vec![]))).await;
    assert_eq!(
        text_of(&events),
        "Hel",
        "[{}] deltas before the error are delivered",
        w.name()
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, StreamEvent::Completed { .. })),
        "[{}]",
        w.name()
    );
    assert!(
        matches!(err, Some(ModelError::Stream { .. })),
        "[{}] {err:?}",
        w.name()
    );
    // Not an empty answer on the non-streamed path either.
}

pub async fn stream_cut_off(w: &dyn Wire) {
    let server = Server::start(vec![w.cut_stream("The answer is")]).await;
    let (events, err) = collect(w.model(&server.url()).stream(request(vec![]))).await;
    assert_eq!(text_of(&events), "The answer is", "[{}]", w.name());
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, StreamEvent::Completed { .. })),
        "[{}] no short answer",
        w.name()
    );
    assert!(
        matches!(err, Some(ModelError::Incomplete(_))),
        "[{}] {err:?}",
        w.name()
    );
}
