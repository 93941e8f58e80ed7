//! Errors keep their causes: a middleware's error, a thread's state that does not
//! deserialize, carry the typed error that caused them as `source()`, and their messages stay
//! what they were.

use std::error::Error as _;
use std::sync::Arc;

use agentry::agent::{AgentBuilder, NoTools, RunErrorKind, ThreadError};
use agentry::middleware::{MiddlewareError, Summarization};
use agentry::model::ModelError;
use agentry::persist::{Checkpointer, InMemoryCheckpointer};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};

#[test]
fn a_middleware_error_keeps_its_cause() {
    let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no rules file");
    let err = MiddlewareError::new("Rules", "could not load the rules").with_source(io);
    assert_eq!(
        err.to_string(),
        "middleware `Rules` stopped the run: could not load the rules"
    );
    let cause = err.source().expect("a source");
    assert_eq!(
        cause.downcast_ref::<std::io::Error>().map(|e| e.kind()),
        Some(std::io::ErrorKind::NotFound)
    );
    // Clones share the cause; a plain error has none.
    assert!(err.clone().source().unwrap().is::<std::io::Error>());
    assert!(MiddlewareError::new("Rules", "why").source().is_none());
    assert_eq!(
        err,
        MiddlewareError::new("Rules", "could not load the rules")
    );
}

#[tokio::test]
async fn a_failed_summary_request_is_the_middleware_errors_source() {
    let summarizer = Arc::new(ScriptedModel::new([Turn::error(ModelError::Server {
        status: 503,
        message: "overloaded".to_string(),
    })]));
    let model = ScriptedModel::new([Turn::text("ok")]);
    let agent = AgentBuilder::<_, _, (), ()>::new(model, NoTools)
        .middleware(
            Summarization::new(Arc::clone(&summarizer), 1)
                .counter(|messages: &[Message]| messages.len() as u64)
                .keep_last(1),
        )
        .build();
    let history = vec![
        Message::user("one"),
        Message::assistant("two"),
        Message::user("three"),
        Message::assistant("four"),
    ];
    let err = agent
        .run(agentry::agent::Input::with_history(history, "five"), ())
        .await
        .unwrap_err();
    let RunErrorKind::Middleware(middleware) = err.kind() else {
        panic!("expected a middleware error, got {err:?}");
    };
    assert_eq!(middleware.middleware, "Summarization");
    assert_eq!(middleware.message, "the summary request failed");
    let cause = middleware.source().expect("the model's error");
    assert!(
        matches!(
            cause.downcast_ref::<ModelError>(),
            Some(ModelError::Server { status: 503, .. })
        ),
        "{cause:?}"
    );
    // The run's error chain reaches it too.
    assert!(err.source().unwrap().is::<ModelError>());
}

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct Counted {
    count: u32,
}

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct Named {
    count: String,
}

#[tokio::test]
async fn a_state_that_does_not_deserialize_keeps_serdes_error() {
    let cp: Arc<dyn Checkpointer> = Arc::new(InMemoryCheckpointer::default());
    let writer =
        AgentBuilder::<_, _, (), Counted>::new(ScriptedModel::new([Turn::text("hi")]), NoTools)
            .shared_checkpointer(Arc::clone(&cp))
            .build();
    writer.thread("t").run("Hello", ()).await.unwrap();

    let reader =
        AgentBuilder::<_, _, (), Named>::new(ScriptedModel::new([Turn::text("hi")]), NoTools)
            .shared_checkpointer(cp)
            .build();
    let err = reader.thread("t").state().await.unwrap_err();
    let ThreadError::StateFormat { action, reason, .. } = &err else {
        panic!("expected StateFormat, got {err:?}");
    };
    assert_eq!(*action, "does not deserialize");
    assert!(err.to_string().contains(reason.as_str()), "{err}");
    let serde = err
        .source()
        .and_then(|e| e.downcast_ref::<serde_json::Error>())
        .expect("serde's error as the source");
    assert!(serde.is_data(), "{serde:?}");
}
