//! Hardening of the agent loop (issue 11): tool timeouts, sync tools off the async task,
//! histories valid for the next run, dynamic tool argument validation.

mod blocking;
mod dyn_args;
mod history;
mod no_copy;
mod papercuts;
mod partial_output;
mod timeout;
