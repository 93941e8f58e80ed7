//! Tools that fail: an unknown tool, bad arguments and a panic answered to the model, a retry
//! budget spent, an error the policy propagates.

use super::*;

#[tokio::test]
async fn recovers_from_an_unknown_tool_bad_arguments_and_a_panicking_tool() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_calls([ToolCall::new("c1", "get_wether", r#"{"city":"Paris"}"#)]),
        Turn::tool_calls([ToolCall::new("c2", "get_weather", r#"{"city": 42}"#)]),
        Turn::tool_calls([ToolCall::new("c3", "explode", "")]),
        Turn::tool_calls([weather("c4", "Paris")]),
        Turn::text("Recovered."),
    ]));
    let agent: TestAgent = agent(model.clone()).build();
    let run = agent.run("Weather?", user()).await.unwrap();
    assert_eq!(run.output, "Recovered.");
    model.assert_complete();

    let results = tool_results(&run.messages);
    assert_eq!(results.len(), 4);
    let texts: Vec<String> = results
        .iter()
        .map(|r| Message::Tool((*r).clone()).text())
        .collect();
    assert!(results[..3].iter().all(|r| r.is_error));
    assert!(
        texts[0].contains("unknown tool `get_wether`")
            && texts[0].contains("get_weather, explode, book, diary"),
        "{}",
        texts[0]
    );
    assert!(texts[1].contains("at `city`"), "{}", texts[1]);
    assert!(
        texts[2].contains("panicked: the tool blew up"),
        "{}",
        texts[2]
    );
    assert!(!results[3].is_error);
    assert!(matches!(
        run.steps[0].result,
        Err(ToolCallError::UnknownTool { .. })
    ));
    assert!(matches!(
        run.steps[1].result,
        Err(ToolCallError::InvalidArguments { .. })
    ));
    assert!(matches!(
        run.steps[2].result,
        Err(ToolCallError::Panicked { .. })
    ));
}

#[tokio::test]
async fn a_tool_that_keeps_failing_exhausts_its_retry_budget() {
    let atlantis = || Turn::tool_calls([weather("c", "Atlantis")]);
    let model = Arc::new(ScriptedModel::new([atlantis(), atlantis(), atlantis()]));
    let agent: TestAgent = agent(model.clone()).max_tool_retries(2).build();
    let err = agent.run("Weather?", user()).await.unwrap_err();
    let RunErrorKind::ToolRetriesExhausted {
        tool,
        failures,
        last,
    } = err.kind()
    else {
        panic!("{err:?}")
    };
    assert_eq!((tool.as_str(), *failures), ("get_weather", 3));
    assert!(last.to_string().contains("no station in Atlantis"));
    // The partial transcript ends with the last tool result.
    assert!(matches!(err.messages().last(), Some(Message::Tool(r)) if r.is_error));
    assert_eq!(err.partial().steps.len(), 3);
}

#[tokio::test]
async fn a_tool_error_propagates_when_the_policy_says_so() {
    let model = Arc::new(ScriptedModel::new([Turn::tool_calls([weather(
        "c", "Atlantis",
    )])]));
    let agent: TestAgent = agent(model).tool_errors(ToolErrorPolicy::Propagate).build();
    let err = agent.run("Weather?", user()).await.unwrap_err();
    assert!(
        matches!(err.kind(), RunErrorKind::Tool(ToolCallError::Failed { .. })),
        "{err}"
    );
    assert!(std::error::Error::source(&err).is_some());
}
