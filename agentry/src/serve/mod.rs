//! Serving an agent over HTTP: an axum [`Router`] that streams runs as the Vercel AI SDK's UI
//! message stream or as AG-UI events, keeps each user's threads in the agent's checkpointer,
//! carries human review through each protocol, runs external tools as the protocols'
//! client-side tools and shows a tool's questions, and cancels a run when its client goes away.
//!
//! A [`Team`](crate::multi::Team) is served on the same routes by [`TeamServer`], its
//! handoffs streamed as `data-handoff` parts / `CUSTOM` events named [`HANDOFF`].
//!
//! The routes (mount the router where you like, e.g. under `/api` with
//! [`Router::nest`]) are described in the guide's chapter "Serving an agent":
//!
//! | Method and path | What |
//! |---|---|
//! | `GET /threads` | the caller's threads, newest first |
//! | `POST /threads` | a new thread of the caller (`201 {"id"}`) |
//! | `GET /threads/{id}` | status, messages, pending reviews and state |
//! | `GET /threads/{id}/messages?protocol=ai-sdk\|ag-ui` | history as the protocol's messages |
//! | `POST /threads/{id}/runs/ai-sdk` | a run, as the AI SDK UI message stream |
//! | `POST /threads/{id}/runs/ag-ui` | a run, as AG-UI events |
//! | `POST /threads/{id}/runs?protocol=ai-sdk\|ag-ui` | either, by the query |
//!
//! ```
//! use agentry::agent::{AgentBuilder, NoTools};
//! use agentry::persist::InMemoryCheckpointer;
//! use agentry::serve::{Caller, RequestHead, ServeError, Server};
//! use agentry::testing::{ScriptedModel, Turn};
//!
//! struct User {
//!     name: String,
//! }
//!
//! let agent = AgentBuilder::<_, _, User, ()>::new(ScriptedModel::new([Turn::text("Hi!")]), NoTools)
//!     .checkpointer(InMemoryCheckpointer::default())
//!     .build();
//! let server = Server::new(agent, |head: RequestHead| async move {
//!     match head.bearer() {
//!         Some(token) => Ok(Caller::new(token, User { name: token.to_owned() })),
//!         None => Err(ServeError::Unauthorized("send `Authorization: Bearer <token>`".into())),
//!     }
//! })
//! .unwrap();
//! let app: axum::Router = axum::Router::new().nest("/api", server.router());
//! # let _ = app;
//! ```

mod ag_ui;
mod ai_sdk;
mod auth;
mod common;
mod error;
mod event;
mod history;
mod json_patch;
mod request;
mod routes;
mod run;
mod team;
mod team_run;
mod threads;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::response::Response;
use serde::Serialize;

pub use ag_ui::{EXTERNAL_TOOL, HANDOFF, TOOL_APPROVAL, TOOL_EVENT, TOOL_QUESTION};
pub use auth::{Authenticate, Caller, RequestHead, anonymous};
pub use error::ServeError;
pub use team::TeamServer;

use crate::agent::{Agent, ThreadError, ThreadState, ThreadStatus, Toolset};
use crate::output::OutputSpec;
use common::{Admitted, Common};
use request::RunRequest;

/// The default cap on a request body: 1 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 1 << 20;

/// How long a run's stream stays quiet before a keep-alive comment, by default: 5 seconds.
pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(5);

/// An agent served over HTTP: build it with [`Server::new`], then take its
/// [`router`](Server::router). See the [module documentation](self) for the routes.
pub struct Server<T, O, C, S> {
    inner: Arc<Inner<T, O, C, S>>,
}

impl<T, O, C, S> Clone for Server<T, O, C, S> {
    fn clone(&self) -> Self {
        Server {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<T, O, C, S> std::fmt::Debug for Server<T, O, C, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("body_limit", &self.inner.body_limit)
            .field("running", &self.inner.running.len())
            .finish_non_exhaustive()
    }
}

pub(crate) struct Inner<T, O, C, S> {
    pub(crate) agent: Arc<Agent<T, O, C, S>>,
    common: Common<C>,
}

impl<T, O, C, S> std::ops::Deref for Inner<T, O, C, S> {
    type Target = Common<C>;

    fn deref(&self) -> &Common<C> {
        &self.common
    }
}

impl<T, O, C, S> std::ops::DerefMut for Inner<T, O, C, S> {
    fn deref_mut(&mut self) -> &mut Common<C> {
        &mut self.common
    }
}

impl<T, O, C, S> Server<T, O, C, S>
where
    T: Toolset<C, S> + Send + Sync + 'static,
    T::Event: Serialize,
    O: OutputSpec + Send + Sync + 'static,
    O::Output: Serialize + Send,
    C: Send + Sync + 'static,
    S: ThreadState + Default,
{
    /// Serves `agent`, with `auth` building each request's [`Caller`]. The agent needs a
    /// checkpointer ([`AgentBuilder::checkpointer`](crate::agent::AgentBuilder::checkpointer),
    /// e.g. `SqliteCheckpointer`): it keeps the threads and who owns them. Without one:
    /// [`ThreadError::NoCheckpointer`].
    pub fn new(
        agent: impl Into<Arc<Agent<T, O, C, S>>>,
        auth: impl Authenticate<C>,
    ) -> Result<Self, ThreadError> {
        let agent = agent.into();
        let checkpointer = agent
            .parts
            .checkpointer
            .clone()
            .ok_or(ThreadError::NoCheckpointer)?;
        Ok(Server {
            inner: Arc::new(Inner {
                agent,
                common: Common::new(checkpointer, auth),
            }),
        })
    }

    /// Refuses request bodies over `bytes` with 413 (default [`DEFAULT_BODY_LIMIT`]).
    /// Call it before [`Server::router`] or cloning.
    pub fn body_limit(mut self, bytes: usize) -> Self {
        common::configure(&mut self.inner, "Server::body_limit", |c| {
            c.body_limit = bytes
        });
        self
    }

    /// Sends an SSE comment on a run's stream after `every` without an event (default
    /// [`DEFAULT_KEEP_ALIVE`]): proxies keep the connection open, and the server learns that
    /// a client went away (and cancels its run) at the next write at the latest.
    /// Call it before [`Server::router`] or cloning.
    pub fn keep_alive(mut self, every: Duration) -> Self {
        let every = every.max(Duration::from_millis(1));
        common::configure(&mut self.inner, "Server::keep_alive", |c| {
            c.keep_alive = every
        });
        self
    }

    /// Gives a thread made outside the server (by a program, or before the agent was
    /// served: it has messages but no owner record) to the first user who sends a message on
    /// it. By default such a thread is refused with 409 `unowned_thread`: any user could
    /// otherwise take it by guessing its id. Call it before [`Server::router`] or cloning.
    pub fn adopt_unowned(mut self, adopt: bool) -> Self {
        common::configure(&mut self.inner, "adopt_unowned", |c| {
            c.adopt_unowned = adopt
        });
        self
    }

    /// The agent served.
    pub fn agent(&self) -> &Arc<Agent<T, O, C, S>> {
        &self.inner.agent
    }

    /// How many runs are streaming now.
    pub fn running(&self) -> usize {
        self.inner.running.len()
    }

    /// The router with every route (see the [module documentation](self)).
    pub fn router(&self) -> Router {
        routes::router(Arc::clone(&self.inner))
    }
}

/// Which protocol a run streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Protocol {
    AiSdk,
    AgUi,
}

impl Protocol {
    pub(super) fn from_query(query: Option<&str>) -> Result<Self, ServeError> {
        let value = query
            .unwrap_or("")
            .split('&')
            .find_map(|pair| pair.strip_prefix("protocol="));
        match value {
            None | Some("ai-sdk") => Ok(Protocol::AiSdk),
            Some("ag-ui") => Ok(Protocol::AgUi),
            Some(other) => Err(ServeError::BadRequest(format!(
                "protocol `{other}`: expected `ai-sdk` or `ag-ui`"
            ))),
        }
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
    pub(super) async fn start_run(
        self: Arc<Self>,
        id: String,
        request: Request,
        protocol: Protocol,
    ) -> Result<Response, ServeError> {
        let Admitted {
            caller,
            run,
            run_id,
            slot,
        } = self.admit(&id, request, protocol).await?;
        let status = self.agent.thread(id.as_str()).status().await?;
        match (status, &run) {
            (ThreadStatus::Running, _) => return Err(ServeError::running(&id)),
            (ThreadStatus::Paused, RunRequest::Input(_)) => {
                return Err(ServeError::Conflict {
                    code: "thread_paused",
                    message: format!(
                        "thread `{id}` waits for review: send the decisions on its pending calls first"
                    ),
                });
            }
            (ThreadStatus::New | ThreadStatus::Idle, run) if run.resumes() => {
                return Err(ServeError::Conflict {
                    code: "not_paused",
                    message: format!("thread `{id}` has no run waiting for review"),
                });
            }
            _ => {}
        }
        let run = match run {
            RunRequest::Messages(_) => {
                let pause = self.agent.thread(id.as_str()).pending().await?;
                let waiting: Vec<&str> = pause
                    .iter()
                    .flat_map(|p| p.questions())
                    .map(|q| q.call.id.as_str())
                    .collect();
                run.keep_waiting(&waiting)
            }
            run => run,
        };
        let keep_alive = self.keep_alive;
        let body = match protocol {
            Protocol::AiSdk => run::stream(
                self,
                slot,
                id,
                caller.context,
                run,
                ai_sdk::AiSdk::default(),
                keep_alive,
            ),
            Protocol::AgUi => {
                let encoder = ag_ui::AgUi::new(id.clone(), run_id.unwrap_or_default());
                run::stream(self, slot, id, caller.context, run, encoder, keep_alive)
            }
        };
        Ok(common::streaming(body, protocol))
    }
}
