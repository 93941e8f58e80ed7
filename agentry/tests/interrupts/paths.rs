//! The same question through a sealed pause, a pause resumed once, a stream, a thread's
//! checkpoint and the ReAct protocol.

use super::*;

#[tokio::test]
async fn a_sealed_pause_with_a_question_resumes_and_a_changed_one_does_not() {
    let key = || PauseKey::new(*b"0123456789abcdef0123456789abcdef");
    let agent: DeskAgent = Desk::builder(model()).pause_key(key()).build();
    let pause = refund_a7(&agent, Shop::default()).await;
    assert!(pause.seal.is_some());
    // Changing the saved result of the call that ran breaks the seal.
    let mut forged = pause.clone();
    forged.calls[0].result.as_mut().unwrap().content = vec![ContentBlock::text("A7: unpaid")];
    let answer = pause.questions().next().unwrap().answer(yes()).unwrap();
    let err = agent
        .resume(forged, [answer.clone()], Shop::default())
        .await
        .unwrap_err();
    assert!(matches!(
        err.kind(),
        RunErrorKind::Resume(ResumeError::BadSeal)
    ));
    let text = serde_json::to_string_pretty(&pause).unwrap();
    let pause: Pause<Ledger> = serde_json::from_str(&text).unwrap();
    let run = agent
        .resume(pause, [answer], Shop::default())
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(run.state.refunded, ["A7"]);
}

#[tokio::test]
async fn a_pause_with_a_question_resumes_once() {
    let cp = Arc::new(InMemoryCheckpointer::default());
    let agent: DeskAgent = Desk::builder(model())
        .shared_checkpointer(Arc::clone(&cp) as Arc<dyn Checkpointer>)
        .build();
    let pause = refund_a7(&agent, Shop::default()).await;
    assert!(pause.id.is_some());
    let answer = pause.questions().next().unwrap().answer(yes()).unwrap();
    agent
        .resume(pause.clone(), [answer.clone()], Shop::default())
        .await
        .unwrap();
    let err = agent
        .resume(pause, [answer], Shop::default())
        .await
        .unwrap_err();
    assert!(matches!(
        err.kind(),
        RunErrorKind::Resume(ResumeError::AlreadyResumed { .. })
    ));
}

#[tokio::test]
async fn a_stream_ends_with_the_question_and_resume_streams_on() {
    let agent: DeskAgent = Desk::builder(model()).build();
    let mut stream = agent.stream("Refund A7", Shop::default());
    let mut results = Vec::new();
    let mut last = None;
    while let Some(event) = stream.next().await {
        let event = event.unwrap();
        if let AgentEvent::ToolResult(step) = &event {
            results.push(step.call.id.clone());
        }
        last = Some(event);
    }
    assert_eq!(results, ["l1"], "the call that asked has no result yet");
    let Some(AgentEvent::Paused(pause)) = last else {
        panic!("the last event is Paused");
    };
    let answer = pause.questions().next().unwrap().answer(yes()).unwrap();
    let mut resumed = agent.resume_stream(*pause, [answer], Shop::default());
    let mut results = Vec::new();
    while let Some(event) = resumed.next().await {
        if let AgentEvent::ToolResult(step) = event.unwrap() {
            results.push(step.call.id.clone());
        }
    }
    assert_eq!(results, ["l1", "r1"]);
    assert_eq!(resumed.result().await.unwrap().output, "Done.");
}

#[tokio::test]
async fn a_thread_checkpoint_holds_the_question_and_the_thread_resumes_it() {
    a_thread_holds_the_question(agentry::agent::Durability::Step).await;
}

/// A run that saves only its end saves the pause at a question too, and the thread resumes it
/// the same way (the results that came before the question travel in the pause).
#[tokio::test]
async fn a_question_is_saved_and_resumed_when_runs_save_only_their_end() {
    a_thread_holds_the_question(agentry::agent::Durability::Exit).await;
}

async fn a_thread_holds_the_question(durability: agentry::agent::Durability) {
    let cp = Arc::new(InMemoryCheckpointer::default());
    let model = model();
    let agent: DeskAgent = Desk::builder(Arc::clone(&model))
        .shared_checkpointer(Arc::clone(&cp) as Arc<dyn Checkpointer>)
        .durability(durability)
        .build();
    let outcome = agent
        .thread("t")
        .run_or_pause("Refund A7", Shop::default())
        .await
        .unwrap();
    assert!(matches!(outcome, Outcome::Paused(_)));
    // Another agent value over the same checkpointer reads the saved pause.
    let agent: DeskAgent = Desk::builder(Arc::clone(&model))
        .shared_checkpointer(Arc::clone(&cp) as Arc<dyn Checkpointer>)
        .durability(durability)
        .build();
    let thread = agent.thread("t");
    assert_eq!(thread.status().await.unwrap(), ThreadStatus::Paused);
    let pause = thread.pending().await.unwrap().expect("a saved pause");
    let question = pause.questions().next().unwrap();
    assert_eq!(question.question.kind, QuestionKind::Ask);
    let answer = question.answer(yes()).unwrap();
    let shop = Arc::new(Shop::default());
    let run = thread
        .resume([answer], Arc::clone(&shop))
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(run.state.refunded, ["A7"]);
    assert_eq!(run.state.looked_up, 1);
    assert_eq!(
        shop.lookups.load(Ordering::SeqCst),
        0,
        "the lookup ran before the pause"
    );
    assert_eq!(thread.status().await.unwrap(), ThreadStatus::Idle);
    // user, the answer, two results, the final answer.
    assert_eq!(thread.messages().await.unwrap().len(), 5);
}

/// You handle refunds, thinking aloud.
#[agent(tools(refund, lookup), context = Shop, state = Ledger, protocol = react)]
struct ReactDesk;

#[tokio::test]
async fn a_question_pauses_a_react_run_too() {
    let model = Arc::new(ScriptedModel::new([
        Turn::text("Thought: I must refund it.\nAction: refund\nAction Input: {\"order\": \"A7\"}"),
        Turn::text("Thought: I now know the final answer.\nFinal Answer: Refunded."),
    ]));
    let agent: Agent<ReactDesk, TextOutput, Shop, Ledger> =
        ReactDesk::builder(Arc::clone(&model)).build();
    let pause = paused(
        agent
            .run_or_pause("Refund A7", Shop::default())
            .await
            .unwrap(),
    );
    let answer = pause.questions().next().unwrap().answer(yes()).unwrap();
    let run = agent
        .resume(pause, [answer], Shop::default())
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(run.output, "Refunded.");
    assert_eq!(run.state.refunded, ["A7"]);
    let second = model.requests()[1].messages.last().unwrap().text();
    assert!(
        second.contains("Observation: refunded A7 (ok by Ada)"),
        "{second}"
    );
}
