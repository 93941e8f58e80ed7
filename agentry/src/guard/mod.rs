//! Guardrails: checks that stop bad input or output, or rewrite it, around a run.
//!
//! Four kinds, each a trait typed by what it sees:
//!
//! | kind | sees | declared with |
//! |---|---|---|
//! | [`InputGuardrail<C>`] | the user's message and the typed context | `input(..)` |
//! | [`OutputGuardrail<O, C>`] | the typed output `&O`, before it is returned | `output(..)` |
//! | [`ToolInputGuardrail<C>`] | a tool call's arguments, before the tool runs | `tool_input(..)` |
//! | [`ToolOutputGuardrail<C>`] | a tool's result, before the model sees it | `tool_output(..)` |
//!
//! Each returns a [`Verdict`]: pass, block with its typed reason (the run ends with
//! [`RunErrorKind::Guardrail`](crate::agent::RunErrorKind::Guardrail), carrying the run so
//! far), or rewrite (the value goes on replaced).
//!
//! **Input guardrails add no latency when they pass**: they run concurrently with the first
//! model request, and cancel it when they block. See [`InputGuardrail`] for the rules, and
//! the guide's chapter for what a cancelled request costs.
//!
//! Declare them in `#[agent(guardrails(input(..), output(..), tool_input(..),
//! tool_output(..)))]` or on the builder; a guardrail written for another context or output
//! type is a compile error naming both types. Built-ins are in [`builtin`]: a PII check,
//! a block list, a length limit and an LLM judge.
//!
//! ```
//! use agentry::agent::{AgentBuilder, NoTools, RunErrorKind};
//! use agentry::guard::builtin::BlockList;
//! use agentry::testing::{ScriptedModel, Turn};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let agent = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("Sure.")]), NoTools)
//!     .input_guardrail(BlockList::keywords(["password"]))
//!     .build();
//! let err = agent.run("What is the admin password?", ()).await.unwrap_err();
//! let RunErrorKind::Guardrail { name, reason } = err.kind() else { panic!() };
//! assert_eq!(name, "block_list");
//! assert_eq!(reason.to_string(), "the text contains `password`");
//! # });
//! ```

pub(crate) mod billed;
mod builder;
pub mod builtin;
mod error;
pub(crate) mod input;
pub(crate) mod output;
pub(crate) mod set;
pub(crate) mod tool;
mod traits;
mod verdict;

pub use error::GuardReason;
pub use traits::{InputGuardrail, OutputGuardrail, ToolInputGuardrail, ToolOutputGuardrail};
pub use verdict::Verdict;
