//! Durable agent runs on [Restate](https://restate.dev) (feature `restate`): a thread is a
//! virtual object keyed by its id, each model request and each tool call a journaled step.
//!
//! The engine runs one invocation at a time per object, so a thread runs one run at a time.
//! When the service process dies mid-run, the engine invokes the handler again and its
//! journal replays:
//! - a model answer already received is not asked for again;
//! - a tool call already completed is not run again; the model reads its saved result;
//! - a call in flight follows its tool's `idempotent` flag, as on SQLite
//!   ([`Thread`](crate::agent::Thread#crashes-at-most-once-and-at-least-once)): an
//!   idempotent tool runs again, any other call is answered with
//!   [`NOT_COMPLETED`](crate::agent::NOT_COMPLETED) and does not run;
//! - a failed model request is retried by the engine (four attempts), then fails the run.
//!
//! A pause for review (see [`HumanInTheLoop`](crate::middleware::HumanInTheLoop)) suspends
//! the invocation on an awakeable: no process waits. A decision sent from any process, by
//! the `decide` handler or the engine's awakeable API, resumes it;
//! [`RestateAgent::review_timeout`] rejects the calls after an engine timer.
//!
//! The thread (messages, typed state, usage) is the object's state, saved when a run
//! finishes. A replayed model step puts back the state the run had at that request; state
//! updates of a replayed tool call are not queued again, so a run that ends right after a
//! tool batch keeps the state from before that batch's replay.
//!
//! A run's events reach callers through a side channel: with
//! [`RestateAgent::events`], each step's events are journaled with it and published to an
//! [`EventHub`] in the service process once the engine stored the step, numbered in journal
//! order so a replay delivers no number twice; [`EventHub::router`] serves them over SSE by
//! invocation id. Each attempt of a run opens a `restate_invocation` span that the run's
//! spans hang under; with the `otel` feature its parent is the invocation's W3C
//! `traceparent`, joining the caller's trace.
//!
//! [`RestateAgent`] holds the handler bodies; [`restate_object!`](crate::restate_object)
//! declares the virtual object that serves them (`run`, `pending`, `decide`, `thread`), and
//! the struct's name is the service's:
//!
//! ```no_run
//! use agentry::output::TextOutput;
//! use agentry::prelude::*;
//! use agentry::restate::RestateAgent;
//! use agentry::testing::{ScriptedModel, Turn};
//! use restate_sdk::prelude::*;
//!
//! /// You answer briefly.
//! #[agent(tools())]
//! struct Helper;
//!
//! agentry::restate_object! {
//!     struct Threads(RestateAgent<Helper, TextOutput, (), ()>);
//! }
//!
//! # async fn serve() {
//! let agent = Helper::builder(ScriptedModel::new([Turn::text("Hi.")])).build();
//! let threads = Threads(RestateAgent::new(agent, ()));
//! HttpServer::new(Endpoint::builder().bind(threads).build())
//!     .listen_and_serve("127.0.0.1:9080".parse().unwrap())
//!     .await;
//! # }
//! ```
//!
//! Register the endpoint with the server (`restate deployments register
//! http://127.0.0.1:9080`, or `POST /deployments` on the admin port), then call
//! `POST {ingress}/Threads/{thread}/run`. The guide's durability chapter compares this with
//! the SQLite and Postgres checkpointers.

mod events;
mod hub;
mod link;
mod listen;
mod middleware;
mod object;
mod publish;
mod sse;
mod steps;
mod thread;
mod trace;

pub use events::{RunEvent, StreamedEvent};
pub use hub::{DEFAULT_EVENTS_PER_RUN, DEFAULT_RUNS, EventHub, Followed};
pub use listen::listener;
pub use thread::{Decisions, PendingReview, RestateAgent, RunReply, SavedThread};
