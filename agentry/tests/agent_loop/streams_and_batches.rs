//! A streamed run against a plain one, a batch of inputs under a concurrency cap, and a dropped
//! run cancelling its tools.

use super::*;

#[tokio::test]
async fn a_streamed_run_gives_the_same_result_as_a_plain_run() {
    let script = || {
        vec![
            Turn::tool_calls([weather("a", "Paris"), weather("b", "Rome")])
                .with_reasoning("Check both.")
                .with_text("Checking."),
            Turn::tool_calls([ToolCall::new("k", "book", r#"{"city":"Rome"}"#)]),
        ]
    };
    let plain: TestAgent = agent(Arc::new(ScriptedModel::new(script()))).build();
    let streamed: TestAgent = agent(Arc::new(ScriptedModel::new(script()))).build();
    let a = plain.run("Go", user()).await.unwrap();
    let mut stream = streamed.stream("Go", user());
    let events: Vec<_> = stream.by_ref().collect().await;

    let Some(Ok(AgentEvent::Done { .. })) = events.last() else {
        panic!("last event: {:?}", events.last())
    };
    let b = stream.result().await.unwrap();
    assert_eq!(a.output, b.output);
    assert_eq!(a.state, b.state);
    assert_eq!(a.messages, b.messages);
    assert_eq!(a.usage, b.usage);
    assert_eq!(a.stop_reason, b.stop_reason);

    let kinds: Vec<&str> = events
        .iter()
        .map(|e| match e.as_ref().unwrap() {
            AgentEvent::TurnStart { .. } => "turn",
            AgentEvent::TextDelta { .. } => "text",
            AgentEvent::ReasoningDelta { .. } => "reasoning",
            AgentEvent::ToolCallStart { .. } => "call",
            AgentEvent::ToolCallDelta { .. } => "args",
            AgentEvent::Usage { .. } => "usage",
            AgentEvent::Response { .. } => "response",
            AgentEvent::ToolResult(_) => "result",
            AgentEvent::Custom(_) => "custom",
            AgentEvent::Done { .. } => "done",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds.first(), Some(&"turn"));
    for kind in [
        "reasoning",
        "text",
        "call",
        "args",
        "usage",
        "response",
        "result",
        "custom",
        "done",
    ] {
        assert!(kinds.contains(&kind), "no {kind} event in {kinds:?}");
    }
    // The custom event the booking tool wrote comes before that tool's result.
    let custom = kinds.iter().position(|k| *k == "custom").unwrap();
    assert_eq!(kinds[custom + 1], "result");
    let Ok(AgentEvent::Custom(event)) = &events[custom] else {
        unreachable!()
    };
    assert_eq!(event.call_id, "k");
    assert_eq!(event.data["city"], "Rome");
}

#[tokio::test]
async fn a_streamed_run_ends_in_the_error_of_a_failed_run() {
    let model = Arc::new(ScriptedModel::new([Turn::error(ModelError::Network(
        "reset".into(),
    ))]));
    let agent: TestAgent = agent(model).build();
    let err = agent.stream("Go", user()).result().await.unwrap_err();
    assert!(matches!(
        err.kind(),
        RunErrorKind::Model(ModelError::Network(_))
    ));
}

#[tokio::test]
async fn batch_runs_inputs_with_a_concurrency_cap_in_input_order() {
    let in_flight = Arc::new(AtomicUsize::new(0));
    let max = Arc::new(AtomicUsize::new(0));
    let model = FunctionModel::new(|req: &ChatRequest| {
        FunctionModel::text(format!("echo: {}", req.messages.last().unwrap().text()))
    })
    .yielding();
    let agent = AgentBuilder::<_, _, (), ()>::new(
        CountingModel {
            inner: model,
            in_flight: in_flight.clone(),
            max: max.clone(),
        },
        agentry::agent::NoTools,
    )
    .build();
    let inputs: Vec<(String, ())> = (0..10).map(|i| (format!("q{i}"), ())).collect();
    let results = agent.batch(inputs, 3).await;
    let outputs: Vec<String> = results.into_iter().map(|r| r.unwrap().output).collect();
    assert_eq!(
        outputs,
        (0..10).map(|i| format!("echo: q{i}")).collect::<Vec<_>>()
    );
    assert_eq!(max.load(Ordering::SeqCst), 3);
}

/// Wraps a model to observe how many requests are in flight.
struct CountingModel {
    inner: FunctionModel,
    in_flight: Arc<AtomicUsize>,
    max: Arc<AtomicUsize>,
}

impl agentry::model::ChatModel for CountingModel {
    fn model_name(&self) -> &str {
        self.inner.model_name()
    }
    fn provider(&self) -> &str {
        "counting"
    }
    fn profile(&self) -> &agentry::model::ModelProfile {
        self.inner.profile()
    }
    fn invoke(
        &self,
        request: ChatRequest,
    ) -> futures::future::BoxFuture<'_, Result<agentry::model::ChatResponse, ModelError>> {
        Box::pin(async move {
            let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            self.max.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(5)).await;
            let r = self.inner.invoke(request).await;
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            r
        })
    }
    fn stream(&self, request: ChatRequest) -> agentry::model::EventStream {
        self.inner.stream(request)
    }
}

#[tokio::test]
async fn dropping_the_run_cancels_in_flight_tools() {
    struct Guard(Arc<AtomicUsize>);
    impl Drop for Guard {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let dropped = Arc::new(AtomicUsize::new(0));
    let started = Arc::new(AtomicUsize::new(0));
    let (d, s) = (dropped.clone(), started.clone());
    let hang = FnTool::new(
        agentry::ToolDefinition::new(
            "hang",
            "Never returns.",
            json!({ "type": "object", "properties": {} }),
            false,
        ),
        move |_args: serde_json::Value, _rt: &ToolRuntime<User, Trip>| {
            let guard = Guard(d.clone());
            s.fetch_add(1, Ordering::SeqCst);
            async move {
                let _guard = guard;
                futures::future::pending::<()>().await;
                Ok(ToolOutput::text("never"))
            }
        },
    );
    let model = Arc::new(ScriptedModel::new([Turn::tool_calls([
        ToolCall::new("h1", "hang", "{}"),
        ToolCall::new("h2", "hang", "{}"),
    ])]));
    let agent: TestAgent = agent(model).dyn_tool(hang).build();
    let result = tokio::time::timeout(Duration::from_millis(50), agent.run("Go", user())).await;
    assert!(result.is_err(), "the run hangs until it is dropped");
    assert_eq!(started.load(Ordering::SeqCst), 2);
    assert_eq!(
        dropped.load(Ordering::SeqCst),
        2,
        "both tool futures were dropped with the run"
    );
}
