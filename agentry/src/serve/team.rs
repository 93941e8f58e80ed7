//! Serving a [`Team`]: [`TeamServer`], the routes of [`Server`](super::Server) over a team's
//! threads ([`TeamThread`](crate::multi::TeamThread)).
//!
//! A run streams each agent's events as an agent's run does, and each handoff as a
//! `data-handoff` part (AI SDK) or a `CUSTOM` event named [`HANDOFF`](super::HANDOFF)
//! (AG-UI), both `{"from", "to"}`. The thread's state, as the protocols show it, is
//! `{"agent": name}`: the agent that answers the next message. A member's reviewed tool (or
//! a tool's question, or an external tool) pauses the team's thread: the run streams the
//! same approval request as an agent's run does, and a later request with the decisions
//! resumes it ([`TeamThread::resume`](crate::multi::TeamThread::resume)) — the member goes
//! on, then the team (handoffs included).

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::response::IntoResponse;
use serde::Serialize;
use serde_json::{Value, json};

use super::common::{Admitted, Common, configure, streaming};
use super::error::ServeError;
use super::request::RunRequest;
use super::routes::{Handled, Routes, pending_json, router};
use super::{Authenticate, Protocol, ag_ui, ai_sdk, history, team_run};
use crate::agent::ThreadError;
use crate::multi::Team;

/// A [`Team`] served over HTTP, on the same routes as [`Server`](super::Server): build it
/// with [`TeamServer::new`], then take its [`router`](TeamServer::router).
///
/// ```
/// use agentry::agent::{AgentBuilder, NoTools};
/// use agentry::multi::Team;
/// use agentry::persist::InMemoryCheckpointer;
/// use agentry::serve::{TeamServer, anonymous};
/// use agentry::testing::{ScriptedModel, Turn};
///
/// let team = Team::<String, ()>::builder()
///     .agent("greeter", "Greets.", AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("Hi!")]), NoTools))
///     .checkpointer(InMemoryCheckpointer::default())
///     .build()
///     .unwrap();
/// let server = TeamServer::new(team, anonymous::<()>()).unwrap();
/// let app: axum::Router = axum::Router::new().nest("/api", server.router());
/// # let _ = app;
/// ```
pub struct TeamServer<O, C> {
    inner: Arc<TeamInner<O, C>>,
}

impl<O, C> Clone for TeamServer<O, C> {
    fn clone(&self) -> Self {
        TeamServer {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<O, C> std::fmt::Debug for TeamServer<O, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TeamServer")
            .field("body_limit", &self.inner.common.body_limit)
            .field("running", &self.inner.common.running.len())
            .finish_non_exhaustive()
    }
}

pub(crate) struct TeamInner<O, C> {
    pub(crate) team: Arc<Team<O, C>>,
    pub(crate) common: Common<C>,
}

impl<O, C> std::ops::DerefMut for TeamInner<O, C> {
    fn deref_mut(&mut self) -> &mut Common<C> {
        &mut self.common
    }
}

impl<O, C> std::ops::Deref for TeamInner<O, C> {
    type Target = Common<C>;

    fn deref(&self) -> &Common<C> {
        &self.common
    }
}

impl<O, C> TeamServer<O, C>
where
    O: Serialize + Send + 'static,
    C: Send + Sync + 'static,
{
    /// Serves `team`, with `auth` building each request's [`Caller`](super::Caller). The team
    /// needs a checkpointer ([`TeamBuilder::checkpointer`](crate::multi::TeamBuilder::checkpointer)):
    /// it keeps the threads and who owns them. Without one: [`ThreadError::NoCheckpointer`].
    pub fn new(
        team: impl Into<Arc<Team<O, C>>>,
        auth: impl Authenticate<C>,
    ) -> Result<Self, ThreadError> {
        let team = team.into();
        let checkpointer = team
            .checkpointer()
            .cloned()
            .ok_or(ThreadError::NoCheckpointer)?;
        Ok(TeamServer {
            inner: Arc::new(TeamInner {
                team,
                common: Common::new(checkpointer, auth),
            }),
        })
    }

    /// As [`Server::body_limit`](super::Server::body_limit).
    pub fn body_limit(mut self, bytes: usize) -> Self {
        configure(&mut self.inner, "body_limit", |c| c.body_limit = bytes);
        self
    }

    /// As [`Server::keep_alive`](super::Server::keep_alive).
    pub fn keep_alive(mut self, every: Duration) -> Self {
        let every = every.max(Duration::from_millis(1));
        configure(&mut self.inner, "keep_alive", |c| c.keep_alive = every);
        self
    }

    /// Gives a thread made outside the server (by a program, or before the agent was
    /// served: it has messages but no owner record) to the first user who sends a message on
    /// it. By default such a thread is refused with 409 `unowned_thread`: any user could
    /// otherwise take it by guessing its id. Call it before [`TeamServer::router`] or cloning.
    pub fn adopt_unowned(mut self, adopt: bool) -> Self {
        configure(&mut self.inner, "adopt_unowned", |c| {
            c.adopt_unowned = adopt
        });
        self
    }

    /// The team served.
    pub fn team(&self) -> &Arc<Team<O, C>> {
        &self.inner.team
    }

    /// How many runs are streaming now.
    pub fn running(&self) -> usize {
        self.inner.common.running.len()
    }

    /// The router with every route (see the [module documentation](super)).
    pub fn router(&self) -> Router {
        router(Arc::clone(&self.inner))
    }
}

impl<O, C> Routes for TeamInner<O, C>
where
    O: Serialize + Send + 'static,
    C: Send + Sync + 'static,
{
    type Context = C;

    fn common(&self) -> &Common<C> {
        &self.common
    }

    /// Status, messages, the agent answering next and the cancel flag, from one read.
    fn show(self: Arc<Self>, id: String, request: Request) -> Handled {
        let caller = self.caller(&request);
        drop(request);
        Box::pin(async move {
            let caller = caller.await?;
            self.readable(&id, &caller.user).await?;
            let saved = self.team.thread(id.as_str()).load().await?;
            let status = match &saved {
                _ if self.running.contains(&id) => "running",
                None => "new",
                Some(saved) if saved.pending.is_some() => "paused",
                Some(_) => "idle",
            };
            let calls = saved
                .as_ref()
                .and_then(|s| s.pending.as_ref())
                .map_or(&[][..], |p| &p.calls[..]);
            let (reviews, questions) = pending_json(calls);
            let agent = match &saved {
                Some(saved) => saved.agent.clone(),
                None => self.team.agents().next().unwrap_or_default().to_owned(),
            };
            let (messages, cancelled) =
                saved.map_or((Vec::new(), false), |s| (s.messages, s.cancelled));
            Ok(axum::Json(json!({
                "id": id,
                "status": status,
                "cancelled": cancelled,
                "messages": messages,
                "pending": reviews,
                "questions": questions,
                "state": { "agent": agent },
            }))
            .into_response())
        })
    }

    fn messages(self: Arc<Self>, id: String, request: Request) -> Handled {
        let protocol = Protocol::from_query(request.uri().query());
        let caller = self.caller(&request);
        drop(request);
        Box::pin(async move {
            let protocol = protocol?;
            let caller = caller.await?;
            self.readable(&id, &caller.user).await?;
            let saved = self.team.thread(id.as_str()).load().await?;
            let (messages, pending) = saved.map_or((Vec::new(), None), |s| (s.messages, s.pending));
            // The paused answer and its calls are in the pause, not yet in the messages.
            let paused = pending.as_ref().map(|p| &p.answer);
            let calls = pending.as_ref().map_or(&[][..], |p| &p.calls[..]);
            let list = match protocol {
                Protocol::AiSdk => {
                    let denied = self.owners.denied(&id).await?;
                    history::ai_sdk(&messages, paused, calls, &denied)
                }
                Protocol::AgUi => history::ag_ui(&messages, paused, calls),
            };
            Ok(axum::Json(Value::Array(list)).into_response())
        })
    }

    fn start(self: Arc<Self>, id: String, request: Request, protocol: Protocol) -> Handled {
        Box::pin(async move {
            let Admitted {
                caller,
                run,
                run_id,
                slot,
            } = self.admit(&id, request, protocol).await?;
            let saved = self.team.thread(id.as_str()).load().await?;
            let pending = saved.and_then(|s| s.pending);
            let run = match (&pending, run) {
                (Some(_), RunRequest::Input(_)) => {
                    return Err(ServeError::Conflict {
                        code: "thread_paused",
                        message: format!(
                            "thread `{id}` waits for review: send the decisions on its pending calls first"
                        ),
                    });
                }
                (None, run) if run.resumes() => {
                    return Err(ServeError::Conflict {
                        code: "not_paused",
                        message: format!("thread `{id}` has no run waiting for review"),
                    });
                }
                (Some(pending), run @ RunRequest::Messages(_)) => {
                    let waiting: Vec<&str> = pending
                        .calls
                        .iter()
                        .filter(|c| c.question.is_some())
                        .map(|c| c.call.id.as_str())
                        .collect();
                    run.keep_waiting(&waiting)
                }
                (_, run) => run,
            };
            let keep_alive = self.keep_alive;
            let body = match protocol {
                Protocol::AiSdk => {
                    let encoder = ai_sdk::AiSdk::default();
                    team_run::stream(self, slot, id, caller.context, run, encoder, keep_alive)
                }
                Protocol::AgUi => {
                    let encoder = ag_ui::AgUi::new(id.clone(), run_id.unwrap_or_default());
                    team_run::stream(self, slot, id, caller.context, run, encoder, keep_alive)
                }
            };
            Ok(streaming(body, protocol))
        })
    }
}
