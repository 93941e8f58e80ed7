//! A question asked inside a sub-agent pauses its parent, plain and streamed; the answers re-run
//! the sub-agent.

use super::*;

/// You count fruit for another agent.
#[agent(tools(two_questions))]
struct Counter;

/// You delegate counting.
#[agent(tools(Counter))]
struct Boss;

#[tokio::test]
async fn a_sub_agent_question_pauses_the_parent_and_its_answers_rerun_the_sub_agent() {
    // The sub-agent runs on the parent's model: the script holds both conversations. Each
    // resume re-runs the sub-agent call from its start (its model is asked again), and the
    // sub-agent's first asking call takes the answers.
    let sub_asks = || Turn::tool_call("two_questions", json!({}));
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("counter", json!({"prompt": "Count the fruit."})),
        sub_asks(),
        sub_asks(),
        sub_asks(),
        Turn::text("3 apples, 5 pears."),
        Turn::text("You have 8 fruit."),
    ]));
    let agent = Boss::builder(Arc::clone(&model)).build();
    let first = paused(agent.run_or_pause("Count", ()).await.unwrap());
    let q = first.questions().next().unwrap();
    assert_eq!(q.call.name, "counter", "the parent's call asks");
    assert_eq!(q.question(), &json!("how many apples?"));
    let answer = q.answer(3u32).unwrap();
    let second = paused(agent.resume(first.clone(), [answer], ()).await.unwrap());
    let q = second.questions().next().unwrap();
    assert_eq!(q.question(), &json!("how many pears?"));
    assert_eq!(q.question.answered, [json!(3)]);
    let answer = q.answer(5u32).unwrap();
    let run = agent
        .resume(second, [answer], ())
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(run.output, "You have 8 fruit.");
    assert_eq!(
        run.steps[0].result.as_ref().unwrap().text_content(),
        "3 apples, 5 pears."
    );
    model.assert_complete();
    // The sub-agent's requests of every attempt are counted in the parent's run: one before
    // each pause, two in the last attempt.
    let sub_requests = run
        .request_usage
        .iter()
        .filter(|r| r.agent.as_deref() == Some("counter"))
        .count();
    assert_eq!(sub_requests, 4);
}

#[tokio::test]
async fn a_streamed_parent_pauses_at_its_sub_agent_question() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("counter", json!({"prompt": "Count the fruit."})),
        Turn::tool_call("two_questions", json!({})),
    ]));
    let agent = Boss::builder(Arc::clone(&model)).build();
    let mut stream = agent.stream("Count", ());
    let mut nested = 0;
    let mut last = None;
    while let Some(event) = stream.next().await {
        let event = event.unwrap();
        if matches!(event, AgentEvent::SubAgent(_)) {
            nested += 1;
        }
        last = Some(event);
    }
    assert!(nested > 0, "the sub-agent's events are forwarded");
    let Some(AgentEvent::Paused(pause)) = last else {
        panic!("the last event is Paused");
    };
    let q = pause.questions().next().unwrap();
    assert_eq!(
        (q.call.name.as_str(), q.question()),
        ("counter", &json!("how many apples?"))
    );
}
