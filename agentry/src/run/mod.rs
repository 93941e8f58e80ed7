//! The values of a run, below every room that uses them.
//!
//! What a run is made of and ends in — its steps and result ([`RunResult`], [`Step`],
//! [`StopReason`]), its limits ([`Limits`], [`Limit`]), the machine's [`Counters`], the
//! serializable [`RunSnapshot`], a [`Pause`] and the [`Outcome`] of a run that may pause, the
//! reviews a pause waits for, a failed run ([`RunError`]), the events of a streamed run
//! ([`AgentEvent`]) and what sub-agents inherit from their parent run ([`RunScope`]) — lives
//! here, so that `middleware`, `telemetry`, `persist`, `multi` and the tool runtime read these
//! values without importing the `agent` room that drives the run. `agent` (the builder and
//! the driver) re-exports them under their public paths (`agentry::agent::StopReason`, ...).
//!
//! Values only: nothing here does I/O or calls a model.

mod counters;
mod error;
mod event;
mod into_decision;
mod limits;
mod middleware_error;
mod pause;
mod pause_format;
mod pause_seal;
mod result;
mod resume_error;
mod review;
mod scope;
mod snapshot;
mod sub_agent;
mod thread_error;

pub use counters::Counters;
pub use error::{PartialRun, RunError, RunErrorKind};
pub use event::AgentEvent;
pub use into_decision::IntoDecision;
pub(crate) use into_decision::collect_decisions;
pub use limits::{DEFAULT_MAX_TURNS, Limit, LimitPolicy, Limits, RunPolicy, ToolErrorPolicy};
pub use middleware_error::MiddlewareError;
pub(crate) use pause::OLDEST_READ_FORMAT;
pub(crate) use pause::pending_calls;
pub use pause::{Outcome, PAUSE_FORMAT_VERSION, Pause, PausedAnswer, PendingCall, PendingQuestion};
pub use pause_seal::PauseKey;
pub(crate) use pause_seal::Sealer;
pub use result::{IntermediateStep, RequestUsage, RunResult, Step, StopReason, intermediate_steps};
pub use resume_error::ResumeError;
pub use review::{Allowed, Decision, DecisionKind, ReviewRequest};
pub use scope::{DEFAULT_MAX_SUB_AGENT_DEPTH, SubAgentOptions};
pub(crate) use scope::{EventSink, RunScope, SubAgents};
pub use snapshot::RunSnapshot;
pub use sub_agent::SubAgentEvent;
pub(crate) use sub_agent::erase;
pub use thread_error::{ThreadError, ThreadStatus};
