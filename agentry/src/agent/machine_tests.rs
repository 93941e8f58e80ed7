//! The loop's decisions ([`Machine`](super::machine::Machine)), tested without I/O.

use std::time::Duration;

use super::machine::{AfterResponse, AfterTools, CallOutcome, Machine, Next, Stop};
use crate::output::OutputParse;
use crate::run::{
    Limit, LimitPolicy, Limits, RunErrorKind, RunPolicy, StopReason, ToolErrorPolicy,
};
use crate::tool::{ToolCallError, ToolError, ToolOutput};
use crate::{Message, Usage};

fn policy(max_turns: u32) -> RunPolicy {
    RunPolicy {
        limits: Limits {
            max_turns,
            ..Limits::default()
        },
        ..RunPolicy::default()
    }
}

fn tokens(n: u64) -> Usage {
    Usage {
        input_tokens: n,
        requests: 1,
        ..Usage::default()
    }
}

fn ok() -> Result<ToolOutput, ToolCallError> {
    Ok(ToolOutput::text("fine"))
}

fn failed(tool: &str) -> Result<ToolOutput, ToolCallError> {
    Err(ToolCallError::Failed {
        tool: tool.into(),
        source: ToolError::new("boom"),
    })
}

fn outcome<'a>(tool: &'a str, result: &'a Result<ToolOutput, ToolCallError>) -> CallOutcome<'a> {
    CallOutcome {
        tool,
        return_direct: false,
        result,
    }
}

#[test]
fn the_default_is_ten_turns_then_a_typed_limit() {
    let mut m = Machine::new(RunPolicy::default());
    for turn in 1..=10 {
        assert_eq!(m.before_request(Duration::ZERO), Next::Request { turn });
    }
    assert_eq!(
        m.before_request(Duration::ZERO),
        Next::Stop(Stop::Limit(Limit::Turns { max: 10 }))
    );
}

#[test]
fn final_answer_policy_makes_one_last_request_then_stops() {
    let mut m = Machine::new(RunPolicy {
        on_limit: LimitPolicy::FinalAnswer,
        ..policy(1)
    });
    assert_eq!(m.before_request(Duration::ZERO), Next::Request { turn: 1 });
    let Next::FinalRequest {
        turn: 2,
        limit: Limit::Turns { max: 1 },
        prompt,
    } = m.before_request(Duration::ZERO)
    else {
        panic!("expected a final request");
    };
    assert!(prompt.contains("Do not call any more tools"), "{prompt}");
    // The model answers: the run ends with the limit as its stop reason.
    let AfterResponse::Finish {
        output,
        stop_reason,
    } = m.after_response(tokens(1), OutputParse::Done("ok"))
    else {
        panic!("expected the run to finish");
    };
    assert_eq!(output, "ok");
    assert_eq!(
        stop_reason,
        StopReason::LimitReached {
            limit: Limit::Turns { max: 1 }
        }
    );
}

#[test]
fn tools_called_in_the_final_request_fail_the_run() {
    let mut m = Machine::new(RunPolicy {
        on_limit: LimitPolicy::FinalAnswer,
        ..policy(0)
    });
    assert!(matches!(
        m.before_request(Duration::ZERO),
        Next::FinalRequest { turn: 1, .. }
    ));
    let after = m.after_response::<()>(tokens(1), OutputParse::Continue);
    assert!(
        matches!(
            after,
            AfterResponse::Fail(RunErrorKind::LimitExceeded(Limit::Turns { max: 0 }))
        ),
        "{after:?}"
    );
    assert_eq!(
        m.before_request(Duration::ZERO),
        Next::Stop(Stop::Limit(Limit::Turns { max: 0 }))
    );
}

#[test]
fn time_and_token_limits() {
    let mut m = Machine::new(RunPolicy {
        limits: Limits {
            max_turns: 100,
            max_execution_time: Some(Duration::from_secs(5)),
            max_total_tokens: Some(50),
            ..Limits::default()
        },
        ..RunPolicy::default()
    });
    assert_eq!(
        m.before_request(Duration::from_secs(4)),
        Next::Request { turn: 1 }
    );
    assert_eq!(
        m.before_request(Duration::from_secs(5)),
        Next::Stop(Stop::Limit(Limit::Time {
            max: Duration::from_secs(5)
        }))
    );
    let mut m = Machine::new(RunPolicy {
        limits: Limits {
            max_total_tokens: Some(50),
            ..Limits::default()
        },
        ..RunPolicy::default()
    });
    assert_eq!(m.before_request(Duration::ZERO), Next::Request { turn: 1 });
    let _ = m.after_response::<()>(tokens(49), OutputParse::Continue);
    assert_eq!(m.before_request(Duration::ZERO), Next::Request { turn: 2 });
    let _ = m.after_response::<()>(tokens(1), OutputParse::Continue);
    assert_eq!(
        m.before_request(Duration::ZERO),
        Next::Stop(Stop::Limit(Limit::Tokens { max: 50, used: 50 }))
    );
    assert_eq!(m.usage().input_tokens, 50);
}

#[test]
fn answers_map_to_decisions() {
    let mut m = Machine::new(policy(10));
    assert!(matches!(
        m.after_response::<u8>(tokens(1), OutputParse::Continue),
        AfterResponse::RunTools
    ));
    assert!(matches!(
        m.after_response::<u8>(tokens(1), OutputParse::Refused("no".into())),
        AfterResponse::Fail(RunErrorKind::Refused(r)) if r == "no"
    ));
    let AfterResponse::Finish {
        output: 7,
        stop_reason: StopReason::FinalAnswer,
    } = m.after_response(tokens(1), OutputParse::Done(7u8))
    else {
        panic!("expected a finish");
    };
}

#[test]
fn invalid_answers_are_corrected_within_the_output_budget() {
    let mut m = Machine::new(RunPolicy {
        max_output_retries: 2,
        ..policy(10)
    });
    let retry = || OutputParse::<()>::Retry {
        feedback: vec![Message::user("fix it")],
        error: "missing `days`".into(),
    };
    for _ in 0..2 {
        let AfterResponse::Correct(feedback) = m.after_response(tokens(1), retry()) else {
            panic!("expected a correction")
        };
        assert_eq!(feedback, vec![Message::user("fix it")]);
    }
    let after = m.after_response(tokens(1), retry());
    assert!(
        matches!(&after, AfterResponse::Fail(RunErrorKind::OutputRetriesExhausted { attempts: 3, error }) if error == "missing `days`"),
        "{after:?}"
    );
}

#[test]
fn tool_failures_count_per_tool_and_reset_on_success() {
    let mut m = Machine::new(RunPolicy {
        max_tool_retries: 2,
        ..policy(10)
    });
    let bad = failed("search");
    let good = ok();
    // Two failures of `search`, interleaved with another tool's, are within budget.
    assert!(matches!(
        m.after_tools(&[outcome("search", &bad), outcome("lookup", &good)]),
        AfterTools::Continue
    ));
    assert!(matches!(
        m.after_tools(&[outcome("search", &bad)]),
        AfterTools::Continue
    ));
    // A success resets the count.
    assert!(matches!(
        m.after_tools(&[outcome("search", &good)]),
        AfterTools::Continue
    ));
    assert!(matches!(
        m.after_tools(&[outcome("search", &bad)]),
        AfterTools::Continue
    ));
    assert!(matches!(
        m.after_tools(&[outcome("search", &bad)]),
        AfterTools::Continue
    ));
    let verdict = m.after_tools(&[outcome("search", &bad)]);
    assert!(
        matches!(&verdict, AfterTools::Fail(RunErrorKind::ToolRetriesExhausted { tool, failures: 3, .. }) if tool == "search"),
        "{verdict:?}"
    );
}

#[test]
fn unknown_tools_and_bad_arguments_count_but_never_propagate() {
    let mut m = Machine::new(RunPolicy {
        tool_errors: ToolErrorPolicy::Propagate,
        max_tool_retries: 1,
        ..policy(10)
    });
    let unknown = Err(ToolCallError::UnknownTool {
        name: "serch".into(),
        available: vec!["search".into()],
    });
    assert!(matches!(
        m.after_tools(&[outcome("serch", &unknown)]),
        AfterTools::Continue
    ));
    assert!(matches!(
        m.after_tools(&[outcome("serch", &unknown)]),
        AfterTools::Fail(RunErrorKind::ToolRetriesExhausted { .. })
    ));

    let mut m = Machine::new(RunPolicy {
        tool_errors: ToolErrorPolicy::Propagate,
        ..policy(10)
    });
    let bad = failed("search");
    assert!(matches!(
        m.after_tools(&[outcome("search", &bad)]),
        AfterTools::Fail(RunErrorKind::Tool(ToolCallError::Failed { .. }))
    ));
}

#[test]
fn the_first_successful_return_direct_call_ends_the_run() {
    let mut m = Machine::new(policy(10));
    let (good, bad) = (ok(), failed("a"));
    let outcomes = [
        CallOutcome {
            tool: "a",
            return_direct: true,
            result: &bad,
        },
        CallOutcome {
            tool: "b",
            return_direct: false,
            result: &good,
        },
        CallOutcome {
            tool: "c",
            return_direct: true,
            result: &good,
        },
        CallOutcome {
            tool: "d",
            return_direct: true,
            result: &good,
        },
    ];
    assert!(matches!(
        m.after_tools(&outcomes),
        AfterTools::ReturnDirect(2)
    ));
}

#[test]
fn a_call_that_asked_neither_fails_nor_lets_the_batch_return_direct() {
    let mut m = Machine::new(RunPolicy {
        tool_errors: ToolErrorPolicy::Propagate,
        max_tool_retries: 0,
        ..policy(10)
    });
    let asked = Err(ToolCallError::Interrupted {
        tool: "confirm".into(),
        question: Box::new(crate::tool::Question {
            question: serde_json::json!("ok?"),
            answered: Vec::new(),
            kind: crate::tool::QuestionKind::Ask,
        }),
    });
    let good = ok();
    // Not counted as a failure, even with no retries allowed and errors propagated.
    assert!(matches!(
        m.after_tools(&[outcome("confirm", &asked)]),
        AfterTools::Continue
    ));
    let outcomes = [
        CallOutcome {
            tool: "confirm",
            return_direct: false,
            result: &asked,
        },
        CallOutcome {
            tool: "finish",
            return_direct: true,
            result: &good,
        },
    ];
    assert!(matches!(m.after_tools(&outcomes), AfterTools::Continue));
}

#[test]
fn a_call_blocked_by_a_guardrail_ends_the_run_whatever_the_tool_error_policy() {
    let blocked: Result<ToolOutput, ToolCallError> = Err(ToolCallError::Blocked {
        tool: "shell".into(),
        guardrail: "block_list".into(),
        reason: crate::guard::GuardReason::new("rm -rf"),
    });
    let good = ok();
    // Under the default policy a tool's error goes back to the model; a block does not.
    let mut m = Machine::new(policy(10));
    let verdict = m.after_tools(&[outcome("lookup", &good), outcome("shell", &blocked)]);
    assert!(
        matches!(&verdict, AfterTools::Fail(RunErrorKind::Guardrail { name, reason }) if name == "block_list" && reason.to_string() == "rm -rf"),
        "{verdict:?}"
    );
}
