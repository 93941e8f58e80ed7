//! How big a run's future is: the room the boxed loop takes on the heap for every run.
//!
//! The driver boxes the run once (`drive`); everything held across an `.await` of the loop is
//! in that box. `cargo test -p agentry --features testing --lib future_size -- --nocapture`
//! prints the figures; the test fails if a change makes them grow past the recorded bound.

use std::sync::Arc;

use super::builder::AgentBuilder;
use super::driver::{Sinks, drive};
use super::resume::Start;
use super::toolset::NoTools;
use crate::output::TextOutput;
use crate::testing::FunctionModel;

/// The recorded sizes in bytes (plain run, streamed run), with room for other targets'
/// layouts; lower them when a change shrinks the future. 2400 before guardrails; the input
/// check and its retry of a rewritten turn (`input_check`, `redo`), a fresh run's flag, the
/// snapshot of a middleware turn and the output check in `finish_run` add 128 bytes (the
/// rest of guardrails is boxed, and paid only by agents that have them). Questions from
/// inside tools (the answer's mark, the calls that asked, the answers replayed; the tool
/// runtime's answer book) add 440 more: not yet won back. Compaction checkpoints add 8 (the
/// record's boxed compaction of the turn).
const BOUND: (usize, usize) = (2976, 2976);

#[test]
fn the_run_future_does_not_grow() {
    let agent = AgentBuilder::<_, TextOutput, (), ()>::new(
        FunctionModel::new(|_: &crate::model::ChatRequest| FunctionModel::text("hi")),
        NoTools,
    )
    .build();
    let start = |text: &str| Start::Fresh {
        input: text.into(),
        state: (),
    };
    let plain = drive(&agent, start("a"), Arc::new(()), None);
    let (sinks, _events) = Sinks::new();
    let streamed = drive(&agent, start("b"), Arc::new(()), Some(sinks));
    let sizes = (
        size_of_val(&**plain.inner()),
        size_of_val(&**streamed.inner()),
    );
    println!(
        "run future: {} bytes plain, {} bytes streamed",
        sizes.0, sizes.1
    );
    assert!(
        sizes.0 <= BOUND.0 && sizes.1 <= BOUND.1,
        "the run's future grew to {sizes:?} bytes (bound {BOUND:?})"
    );
}
