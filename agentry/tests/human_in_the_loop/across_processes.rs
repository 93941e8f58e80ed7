//! A pause written as JSON by one process and resumed by another (the test binary run again as
//! a child), ending like an approval given in process.

use super::*;

const CHILD_PAUSE: &str = "AGENTRY_HITL_CHILD_PAUSE";

const CHILD_OUT: &str = "AGENTRY_HITL_CHILD_OUT";

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Finished {
    output: String,
    messages: Vec<Message>,
    state: Outbox,
    usage: Usage,
}

impl Finished {
    fn of(run: RunResult<String, Outbox>) -> Self {
        Finished {
            output: run.output,
            messages: run.messages.into_vec(),
            state: run.state,
            usage: run.usage,
        }
    }
}

/// The child side: runs only when re-executed by
/// `a_pause_resumes_in_a_new_process_like_inline_approval` with the pause's path in the
/// environment. It rebuilds the agent from scratch (a new runtime, a new model serving only
/// the answer after the pause) and resumes.
#[test]
fn child_process_resumes_a_pause() {
    let (Ok(pause_path), Ok(out_path)) = (std::env::var(CHILD_PAUSE), std::env::var(CHILD_OUT))
    else {
        return; // Not the child.
    };
    let json = std::fs::read_to_string(pause_path).unwrap();
    let pause: Pause<Outbox> = serde_json::from_str(&json).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // Only the answer after the pause: the paused answer travels in the pause and is never
    // asked for again (asking would take this turn, and the run would then fail).
    let rest = ScriptedModel::new([Turn::text("All done.").with_usage(Usage {
        input_tokens: 20,
        output_tokens: 3,
        requests: 1,
        ..Usage::default()
    })]);
    let model = Arc::new(rest);
    let run = runtime
        .block_on(agent(Arc::clone(&model)).resume(
            pause,
            [("e1".to_string(), Decision::Approve)],
            Mailer::default(),
        ))
        .unwrap()
        .finished()
        .unwrap();
    model.assert_complete();
    std::fs::write(out_path, serde_json::to_string(&Finished::of(run)).unwrap()).unwrap();
}

#[test]
fn a_pause_resumes_in_a_new_process_like_inline_approval() {
    let dir = std::env::temp_dir().join(format!("agentry-hitl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pause_path = dir.join("pause.json");
    let out_path = dir.join("finished.json");

    // Inline: pause and approve in one process.
    let inline = {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async {
            let model = Arc::new(model());
            let pause = paused(Arc::clone(&model)).await;
            let run = agent(model)
                .resume(
                    pause,
                    [("e1".to_string(), Decision::Approve)],
                    Mailer::default(),
                )
                .await
                .unwrap()
                .finished()
                .unwrap();
            Finished::of(run)
        })
    };

    // Across processes: pause here, serialize, drop the agent and the runtime.
    {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let pause = runtime.block_on(paused(Arc::new(model())));
        std::fs::write(&pause_path, serde_json::to_string(&pause).unwrap()).unwrap();
    }
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "across_processes::child_process_resumes_a_pause",
            "--nocapture",
        ])
        .env(CHILD_PAUSE, &pause_path)
        .env(CHILD_OUT, &out_path)
        .status()
        .unwrap();
    assert!(status.success(), "the child process failed: {status}");
    let child: Finished =
        serde_json::from_str(&std::fs::read_to_string(&out_path).unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(child, inline);
    assert_eq!(child.output, "All done.");
    assert_eq!(child.usage.requests, 2);
    assert_eq!(child.state.sent.len(), 2);
}
