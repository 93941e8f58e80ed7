//! The routes: which path runs which handler ([`Routes`], implemented by a served agent
//! and by a served team), and an agent's handlers that read threads (its run routes start a
//! run with [`Inner::start`]). The handlers are methods of one `impl` block, so the bounds a
//! served agent meets are written once.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Serialize;
use serde_json::{Value, json};

use super::common::Common;
use super::error::ServeError;
use super::{Inner, Protocol, event, history};
use crate::agent::PendingCall;
use crate::agent::{ThreadState, ThreadStatus, Toolset};
use crate::output::OutputSpec;
use crate::tool::QuestionKind;
use futures::future::BoxFuture;

/// A handler's future.
pub(super) type Handled = BoxFuture<'static, Result<Response, ServeError>>;

/// What a served runner (an agent, a team) answers on each route.
pub(super) trait Routes: Send + Sync + 'static {
    /// The runner's context type.
    type Context: Send + Sync + 'static;

    /// The shared part of the server.
    fn common(&self) -> &Common<Self::Context>;
    /// `GET /threads/{id}`.
    fn show(self: Arc<Self>, id: String, request: Request) -> Handled;
    /// `GET /threads/{id}/messages`.
    fn messages(self: Arc<Self>, id: String, request: Request) -> Handled;
    /// `POST /threads/{id}/runs...`.
    fn start(self: Arc<Self>, id: String, request: Request, protocol: Protocol) -> Handled;
}

/// The router with every route (see the module documentation of `serve`).
pub(super) fn router<R: Routes>(inner: Arc<R>) -> Router {
    let run = |protocol: Option<Protocol>| {
        move |State(inner): State<Arc<R>>, Path(id): Path<String>, request: Request| async move {
            let protocol = match protocol {
                Some(protocol) => Ok(protocol),
                None => Protocol::from_query(request.uri().query()),
            };
            match protocol {
                Ok(protocol) => respond(inner.start(id, request, protocol).await),
                Err(error) => error.into_response(),
            }
        }
    };
    Router::new()
        .route(
            "/threads",
            get(|State(inner): State<Arc<R>>, request: Request| async move {
                respond(inner.common().list(request).await)
            })
            .post(|State(inner): State<Arc<R>>, request: Request| async move {
                respond(inner.common().create(request).await)
            }),
        )
        .route(
            "/threads/{id}",
            get(
                |State(inner): State<Arc<R>>, Path(id): Path<String>, request: Request| async move {
                    respond(inner.show(id, request).await)
                },
            ),
        )
        .route(
            "/threads/{id}/messages",
            get(
                |State(inner): State<Arc<R>>, Path(id): Path<String>, request: Request| async move {
                    respond(inner.messages(id, request).await)
                },
            ),
        )
        .route("/threads/{id}/runs", post(run(None)))
        .route(
            "/threads/{id}/runs/ai-sdk",
            post(run(Some(Protocol::AiSdk))),
        )
        .route("/threads/{id}/runs/ag-ui", post(run(Some(Protocol::AgUi))))
        .with_state(inner)
}

pub(super) fn respond(result: Result<Response, ServeError>) -> Response {
    result.unwrap_or_else(IntoResponse::into_response)
}

fn status_name(status: ThreadStatus) -> &'static str {
    match status {
        ThreadStatus::New => "new",
        ThreadStatus::Idle => "idle",
        ThreadStatus::Running => "running",
        ThreadStatus::Paused => "paused",
    }
}

impl<T, O, C, S> Inner<T, O, C, S>
where
    T: Toolset<C, S> + Send + Sync + 'static,
    T::Event: Serialize,
    O: OutputSpec + Send + Sync + 'static,
    O::Output: Serialize + Send,
    C: Send + Sync + 'static,
    S: ThreadState + Default,
{
    /// `GET /threads/{id}`: status, messages, pending reviews and questions, state.
    async fn show_thread(self: Arc<Self>, id: String, request: Request) -> Response {
        let caller = self.caller(&request);
        drop(request);
        respond(
            async {
                let caller = caller.await?;
                self.readable(&id, &caller.user).await?;
                // One read: a run saving meanwhile cannot mix two checkpoints.
                let snapshot = self.agent.thread(id.as_str()).snapshot().await?;
                let pending = snapshot.pending;
                let state = match &pending {
                    Some(pause) => Some(serde_json::to_value(pause.state()).unwrap_or(Value::Null)),
                    None => snapshot
                        .state
                        .map(|s| serde_json::to_value(s).unwrap_or(Value::Null)),
                };
                let calls = pending.as_ref().map_or(&[][..], |p| &p.calls[..]);
                let (reviews, questions) = pending_json(calls);
                Ok(axum::Json(json!({
                    "id": id,
                    "status": status_name(snapshot.status),
                    "cancelled": snapshot.cancelled,
                    "messages": snapshot.messages,
                    "pending": reviews,
                    "questions": questions,
                    "state": state,
                }))
                .into_response())
            }
            .await,
        )
    }

    /// `GET /threads/{id}/messages`: the history as the protocol's messages.
    async fn thread_messages(self: Arc<Self>, id: String, request: Request) -> Response {
        let protocol = Protocol::from_query(request.uri().query());
        let caller = self.caller(&request);
        drop(request);
        respond(
            async {
                let protocol = protocol?;
                let caller = caller.await?;
                self.readable(&id, &caller.user).await?;
                let thread = self.agent.thread(id.as_str());
                let messages = thread.messages().await?;
                let pending = thread.pending().await?;
                let calls = pending.as_ref().map_or(&[][..], |p| &p.calls[..]);
                // The paused answer's text is in the pause, not yet in the thread's messages.
                let paused = pending.as_ref().map(|p| &p.answer.response.message);
                let list = match protocol {
                    Protocol::AiSdk => {
                        let denied = self.owners.denied(&id).await?;
                        history::ai_sdk(&messages, paused, calls, &denied)
                    }
                    Protocol::AgUi => history::ag_ui(&messages, paused, calls),
                };
                Ok(axum::Json(Value::Array(list)).into_response())
            }
            .await,
        )
    }
}

impl<T, O, C, S> Routes for Inner<T, O, C, S>
where
    T: Toolset<C, S> + Send + Sync + 'static,
    T::Event: Serialize,
    O: OutputSpec + Send + Sync + 'static,
    O::Output: Serialize + Send,
    C: Send + Sync + 'static,
    S: ThreadState + Default,
{
    type Context = C;

    fn common(&self) -> &Common<C> {
        self
    }

    fn show(self: Arc<Self>, id: String, request: Request) -> Handled {
        Box::pin(async move { Ok(self.show_thread(id, request).await) })
    }

    fn messages(self: Arc<Self>, id: String, request: Request) -> Handled {
        Box::pin(async move { Ok(self.thread_messages(id, request).await) })
    }

    fn start(self: Arc<Self>, id: String, request: Request, protocol: Protocol) -> Handled {
        Box::pin(self.start_run(id, request, protocol))
    }
}

/// The reviews and the questions of a paused run's `calls`, as `GET /threads/{id}` shows
/// them (`pending`, `questions`).
pub(crate) fn pending_json(calls: &[PendingCall]) -> (Vec<Value>, Vec<Value>) {
    let reviews = calls
        .iter()
        .filter_map(|c| {
            let review = c.review.as_ref()?;
            Some(json!({
                "toolCallId": c.call.id,
                "toolName": c.call.name,
                "input": event::input_of(&c.call.arguments),
                "description": review.description,
                "allowed": review.allowed,
            }))
        })
        .collect();
    let questions = calls
        .iter()
        .filter_map(|c| {
            let question = c.question.as_ref()?;
            Some(json!({
                "toolCallId": c.call.id,
                "toolName": c.call.name,
                "input": event::input_of(&c.call.arguments),
                "question": question.question,
                "external": question.kind == QuestionKind::External,
            }))
        })
        .collect();
    (reviews, questions)
}
