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
/// layouts; lower them when a change shrinks the future. It must stay under 1 KiB: glibc's
/// per-thread cache takes allocations up to 1,032 bytes, and a bigger one goes through the
/// allocator's slow path (and consolidates its free lists) on every run. It was 2,976 bytes
/// before the run's core was boxed on its own, the single tool call and the run's end boxed
/// where they are awaited, and a middleware turn's outcome boxed: the layout of an async fn
/// keeps room for the largest set of values live across any one await.
///
/// The bound holds for the build this test runs in; a release build without debug info can lay
/// a future out larger (rustc keeps room for a local whose value was moved out when it is in
/// scope across an await, and debug info changes which locals it sees so): the loop's future
/// was 1,632 bytes there while this test measured 856, until the single tool call was boxed
/// where it is made instead of bound to a local first. `bash benches/future_sizes.sh` (rustc's
/// `-Zprint-type-sizes` on a bench build, `BENCH=overhead` for the plain loop) lists the
/// layout a user's release build gets and fails on a future over glibc's per-thread cache.
const BOUND: (usize, usize) = (900, 900);

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
