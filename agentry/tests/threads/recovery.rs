//! Recovering a thread's run whose future died mid-batch: idempotent calls run again, the others
//! are reported to the model as not completed.

use super::*;

/// Runs `agent` on thread `id` until `charge` is inside its body, then drops the run (a
/// crash with the call in flight).
async fn crash_in_charge(agent: &Till, id: &str, shop: Arc<Shop>) {
    let started = Arc::clone(&shop.started);
    let thread = agent.thread(id);
    tokio::select! {
        _ = thread.run("Buy tea", shop) => panic!("the run finished"),
        _ = started.notified() => {}
    }
}

#[tokio::test]
async fn recovery_reruns_idempotent_calls_and_tells_the_model_the_others_did_not_complete() {
    let cp: Arc<dyn agentry::persist::Checkpointer> = Arc::new(InMemoryCheckpointer::default());
    let first = ScriptedModel::new([Turn::tool_calls([
        call("l1", "lookup", json!({"key": "tea"})),
        call("c1", "charge", json!({"amount": 5})),
    ])]);
    let shop = Arc::new(Shop {
        gate: Some(Arc::new(Notify::new())),
        ..Shop::default()
    });
    crash_in_charge(&till(first, Arc::clone(&cp)), "t", Arc::clone(&shop)).await;
    assert_eq!(shop.charges.load(Ordering::SeqCst), 1);

    // A new agent (a new process) finds the run unfinished.
    let model = Arc::new(ScriptedModel::new([Turn::text(
        "Sorry, please check your card.",
    )]));
    let agent = till(Arc::clone(&model), cp);
    let thread = agent.thread("t");
    assert_eq!(thread.status().await.unwrap(), ThreadStatus::Running);
    let err = thread.run("hello?", Shop::default()).await.unwrap_err();
    assert!(
        matches!(
            err.kind(),
            RunErrorKind::Thread(ThreadError::Status {
                found: ThreadStatus::Running,
                ..
            })
        ),
        "{err}"
    );
    assert!(err.to_string().contains("recover"), "{err}");

    let shop2 = Arc::new(Shop::default());
    let run = thread
        .recover(Arc::clone(&shop2))
        .await
        .unwrap()
        .finished()
        .unwrap();
    // The answer was replayed, not asked again: one request, for the final answer.
    assert_eq!(model.request_count(), 1);
    // The idempotent lookup ran again; the charge did not.
    assert_eq!(shop2.lookups.load(Ordering::SeqCst), 1);
    assert_eq!(shop2.charges.load(Ordering::SeqCst), 0);
    assert_eq!(run.state.looked_up, ["tea"]);
    assert_eq!(run.state.charged, 0);
    let results: Vec<(String, bool, String)> = run
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool(t) => Some((t.call_id.clone(), t.is_error, m.text())),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 2, "{results:?}");
    assert_eq!(results[0], ("l1".into(), false, "tea costs 5".into()));
    assert!(
        results[1].1 && results[1].2.contains(NOT_COMPLETED),
        "{results:?}"
    );
    // The model read the same.
    let sent = &model.requests()[0].messages;
    assert!(sent.iter().any(|m| m.text().contains(NOT_COMPLETED)));
    // Each call answered once; the assistant's answer stored once.
    let stored = thread.messages().await.unwrap();
    let answers = stored
        .iter()
        .filter(|m| matches!(m, Message::Assistant(a) if !a.tool_calls.is_empty()))
        .count();
    assert_eq!(answers, 1);
    assert_eq!(thread.status().await.unwrap(), ThreadStatus::Idle);
    // Recovering again has nothing to do.
    let err = thread.recover(Shop::default()).await.unwrap_err();
    assert!(matches!(
        err.kind(),
        RunErrorKind::Thread(ThreadError::Status {
            found: ThreadStatus::Idle,
            ..
        })
    ));
}

#[tokio::test]
async fn an_idempotent_dyn_tool_reruns_and_a_plain_one_does_not() {
    let cp: Arc<dyn agentry::persist::Checkpointer> = Arc::new(InMemoryCheckpointer::default());
    let runs = Arc::new(AtomicUsize::new(0));
    let gate = Arc::new(Notify::new());
    let started = Arc::new(Notify::new());
    let tool = |name: &'static str, idempotent: bool, block: bool| {
        let (runs, gate, started) = (Arc::clone(&runs), Arc::clone(&gate), Arc::clone(&started));
        let t = FnTool::new(
            ToolDefinition::new(
                name,
                "Do it.",
                json!({"type": "object", "properties": {}}),
                false,
            ),
            move |_args: serde_json::Value, _rt: &agentry::ToolRuntime<(), ()>| {
                let (runs, gate, started) =
                    (Arc::clone(&runs), Arc::clone(&gate), Arc::clone(&started));
                async move {
                    runs.fetch_add(1, Ordering::SeqCst);
                    if block {
                        started.notify_one();
                        gate.notified().await;
                    }
                    Ok(ToolOutput::text(format!("{name} done")))
                }
            },
        );
        if idempotent { t.idempotent() } else { t }
    };
    let build = |model: Arc<ScriptedModel>, block: bool| {
        agentry::agent::AgentBuilder::<_, _, (), ()>::new(model, agentry::agent::NoTools)
            .shared_checkpointer(Arc::clone(&cp))
            .dyn_tool(tool("again", true, block))
            .dyn_tool(tool("once", false, block))
            .build()
    };
    let first = Arc::new(ScriptedModel::new([Turn::tool_calls([
        call("a", "again", json!({})),
        call("o", "once", json!({})),
    ])]));
    let agent = build(first, true);
    let thread = agent.thread("d");
    tokio::select! {
        _ = thread.run("go", ()) => panic!("finished"),
        _ = started.notified() => {}
    }
    let before = runs.load(Ordering::SeqCst);
    let model = Arc::new(ScriptedModel::new([Turn::text("ok")]));
    let agent = build(Arc::clone(&model), false);
    let run = agent
        .thread("d")
        .recover(())
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(
        runs.load(Ordering::SeqCst) - before,
        1,
        "only `again` ran again"
    );
    let texts: Vec<String> = run
        .messages
        .iter()
        .filter(|m| matches!(m, Message::Tool(_)))
        .map(Message::text)
        .collect();
    assert_eq!(texts[0], "again done");
    assert!(texts[1].contains(NOT_COMPLETED), "{texts:?}");
}

#[test]
fn idempotent_is_a_tool_attribute() {
    const { assert!(<lookup as Tool>::IDEMPOTENT) };
    const { assert!(!<charge as Tool>::IDEMPOTENT) };
}
