//! Sync `#[tool] fn`s run on the blocking pool: parallel calls overlap, and a run's time
//! limit holds while a sync tool blocks.

use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use agentry::agent::{Limit, RunErrorKind};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use serde_json::json;

/// A rendezvous: each caller arrives and waits (up to a bound) until `expected` have arrived.
#[derive(Default)]
struct Meeting {
    arrived: Mutex<usize>,
    all_here: Condvar,
}

impl Meeting {
    /// Whether every expected caller was present at once.
    fn meet(&self, expected: usize) -> bool {
        let mut arrived = self.arrived.lock().unwrap();
        *arrived += 1;
        self.all_here.notify_all();
        let (arrived, timeout) = self
            .all_here
            .wait_timeout_while(arrived, Duration::from_secs(5), |n| *n < expected)
            .unwrap();
        !timeout.timed_out() || *arrived >= expected
    }
}

/// Blocks until its sibling call is running too.
#[tool]
fn rendezvous(meeting: Context<Meeting>) -> String {
    if meeting.meet(2) {
        "overlapped".to_string()
    } else {
        "ran alone".to_string()
    }
}

#[agent(tools(rendezvous), context = Meeting)]
struct Parallel;

#[tokio::test]
async fn two_sync_calls_of_one_answer_run_at_the_same_time() {
    let model = ScriptedModel::new([
        Turn::tool_calls([
            ToolCall::new("a", "rendezvous", "{}"),
            ToolCall::new("b", "rendezvous", "{}"),
        ]),
        Turn::text("done"),
    ]);
    let run = Parallel::builder(model)
        .build()
        .run("go", Meeting::default())
        .await
        .unwrap();
    let outputs: Vec<String> = run
        .steps
        .iter()
        .map(|s| {
            s.result.as_ref().unwrap().content[0]
                .as_text()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(outputs, ["overlapped", "overlapped"]);
}

/// Where a blocked tool waits for the test to release it.
struct Gate {
    release: Mutex<mpsc::Receiver<()>>,
    finished: Mutex<mpsc::Sender<()>>,
}

/// Blocks until the test releases it.
#[tool]
fn block_until_released(gate: Context<Gate>) -> String {
    let _ = gate
        .release
        .lock()
        .unwrap()
        .recv_timeout(Duration::from_secs(10));
    let _ = gate.finished.lock().unwrap().send(());
    "released".to_string()
}

#[agent(tools(block_until_released), context = Gate)]
struct Blocker;

#[tokio::test]
async fn the_time_limit_holds_while_a_sync_tool_blocks() {
    let (release, release_rx) = mpsc::channel();
    let (finished_tx, finished) = mpsc::channel();
    let gate = Gate {
        release: Mutex::new(release_rx),
        finished: Mutex::new(finished_tx),
    };
    let model = ScriptedModel::new([
        Turn::tool_call("block_until_released", json!({})),
        Turn::text("never asked"),
    ]);
    let err = Blocker::builder(model)
        .max_execution_time(Duration::from_millis(100))
        .build()
        .run("go", gate)
        .await
        .unwrap_err();
    // The run returned while the tool is still blocked: it has not been released yet.
    assert!(
        matches!(err.kind(), RunErrorKind::LimitExceeded(Limit::Time { .. })),
        "{err:?}"
    );
    assert!(
        finished.try_recv().is_err(),
        "the tool finished before the run returned"
    );
    // The call is answered in the history, and the late result is dropped.
    let answered = err
        .messages()
        .iter()
        .filter(|m| matches!(m, Message::Tool(_)))
        .count();
    assert_eq!(answered, 1);
    release.send(()).unwrap();
    finished.recv_timeout(Duration::from_secs(5)).unwrap();
}

/// A shared resource with a sync method tool.
struct Library {
    meeting: Arc<Meeting>,
}

#[agent]
impl Library {
    /// Blocks until its sibling call is running too.
    #[tool]
    fn shelf(&self) -> String {
        if self.meeting.meet(2) {
            "overlapped".to_string()
        } else {
            "ran alone".to_string()
        }
    }
}

#[tokio::test]
async fn sync_method_tools_of_an_impl_block_agent_overlap_too() {
    let model = ScriptedModel::new([
        Turn::tool_calls([
            ToolCall::new("a", "shelf", "{}"),
            ToolCall::new("b", "shelf", "{}"),
        ]),
        Turn::text("done"),
    ]);
    let library = Library {
        meeting: Arc::new(Meeting::default()),
    };
    let run = library
        .into_builder(model)
        .build()
        .run("go", ())
        .await
        .unwrap();
    let outputs: Vec<String> = run
        .steps
        .iter()
        .map(|s| {
            s.result.as_ref().unwrap().content[0]
                .as_text()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(outputs, ["overlapped", "overlapped"]);
}
