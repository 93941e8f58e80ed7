//! The run's limits and failures: the turn limit, the final-answer policy, the time limit, the
//! token budget, a model error.

use super::*;

#[tokio::test]
async fn the_turn_limit_is_a_typed_error_with_the_partial_transcript() {
    let model = Arc::new(ScriptedModel::new(
        (0..3).map(|i| Turn::tool_calls([weather(&format!("c{i}"), "Paris")])),
    ));
    let agent: TestAgent = agent(model.clone()).max_turns(3).build();
    let err = agent.run("Loop", user()).await.unwrap_err();
    assert!(
        matches!(
            err.kind(),
            RunErrorKind::LimitExceeded(Limit::Turns { max: 3 })
        ),
        "{err}"
    );
    assert_eq!(err.partial().usage.requests, 3);
    assert_eq!(tool_results(err.messages()).len(), 3);
    model.assert_complete();
}

#[tokio::test]
async fn the_final_answer_policy_asks_once_without_tools() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_calls([weather("c0", "Paris")]),
        Turn::text("Best effort: Paris."),
    ]));
    let agent: TestAgent = agent(model.clone())
        .max_turns(1)
        .on_limit(LimitPolicy::FinalAnswer)
        .build();
    let run = agent.run("Loop", user()).await.unwrap();
    assert_eq!(run.output, "Best effort: Paris.");
    assert_eq!(
        run.stop_reason,
        StopReason::LimitReached {
            limit: Limit::Turns { max: 1 }
        }
    );
    let last = &model.requests()[1];
    assert!(last.tools.is_empty(), "the final request offers no tools");
    assert!(
        last.messages
            .last()
            .unwrap()
            .text()
            .contains("Do not call any more tools")
    );
}

#[tokio::test(start_paused = true)]
async fn the_time_limit_cancels_a_slow_model() {
    let model =
        Arc::new(ScriptedModel::new([Turn::text("late")]).with_delay(Duration::from_secs(60)));
    let agent: TestAgent = agent(model)
        .max_execution_time(Duration::from_secs(5))
        .build();
    let err = agent.run("Hurry", user()).await.unwrap_err();
    assert!(
        matches!(err.kind(), RunErrorKind::LimitExceeded(Limit::Time { .. })),
        "{err}"
    );
}

#[tokio::test]
async fn the_token_budget_stops_the_run() {
    let big = Usage {
        input_tokens: 600,
        output_tokens: 500,
        ..Usage::default()
    };
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_calls([weather("c", "Paris")]).with_usage(big),
        Turn::text("unused"),
    ]));
    let agent: TestAgent = agent(model).max_total_tokens(1000).build();
    let err = agent.run("Go", user()).await.unwrap_err();
    assert!(
        matches!(
            err.kind(),
            RunErrorKind::LimitExceeded(Limit::Tokens {
                max: 1000,
                used: 1100
            })
        ),
        "{err}"
    );
}

#[tokio::test]
async fn a_model_error_fails_the_run_with_the_transcript() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_calls([weather("c", "Paris")]),
        Turn::error(ModelError::Server {
            status: 503,
            message: "overloaded".into(),
        }),
    ]));
    let agent: TestAgent = agent(model).build();
    let err = agent.run("Go", user()).await.unwrap_err();
    assert!(matches!(
        err.kind(),
        RunErrorKind::Model(ModelError::Server { status: 503, .. })
    ));
    assert_eq!(err.messages().len(), 4);
}
