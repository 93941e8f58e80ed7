//! The public paths of values that moved between rooms keep resolving: the run's values
//! (now in the private `run` room) under `agent`, `middleware` and `multi`, and the provider
//! registry (now in `providers`) under `model` and the crate root. A path that stops
//! resolving fails this file's build.

#![allow(unused_imports)]

use agentry::agent::{
    AgentEvent, Counters, DEFAULT_MAX_TURNS, IntermediateStep, IntoSharedModel, Limit, LimitPolicy,
    Limits, ModelSettings, Outcome, PAUSE_FORMAT_VERSION, PartialRun, Pause, PausedAnswer,
    PendingCall, RequestUsage, ResumeError, RunError, RunErrorKind, RunPolicy, RunResult,
    RunSnapshot, Step, StopReason, ThreadError, ThreadStatus, ToolErrorPolicy, intermediate_steps,
};
use agentry::middleware::human::{Allowed as HumanAllowed, Decision as HumanDecision};
use agentry::middleware::{
    Allowed, Decision, DecisionKind, HumanInTheLoop, MiddlewareError, ReviewRequest,
};
use agentry::multi::{SubAgentEvent, SubAgentOptions};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};

#[test]
fn moved_values_are_the_same_types_under_every_path() {
    fn same<T>(_: &T, _: &T) {}
    let counters = Counters::default();
    same(&counters, &agentry::agent::Counters::default());

    let decision = Decision::Approve;
    let human_decision: HumanDecision = HumanDecision::Approve;
    same(&decision, &human_decision);
    let allowed: HumanAllowed = DecisionKind::Approve | DecisionKind::Reject;
    assert!(allowed.contains(DecisionKind::Reject));

    assert_eq!(
        StopReason::FinalAnswer,
        agentry::prelude::StopReason::FinalAnswer
    );
    let _ = MiddlewareError::new("m", "why");
    let _ = SubAgentOptions::new().max_turns(2);
    assert_eq!(ModelSettings::default().seed, None);
}

#[test]
fn the_registry_answers_under_its_old_paths() {
    let via_model = agentry::model::init_chat_model("ollama:llama3.2").unwrap();
    let via_root = agentry::init_chat_model("ollama:llama3.2").unwrap();
    let via_providers = agentry::providers::init_chat_model("ollama:llama3.2").unwrap();
    for model in [via_model, via_root, via_providers] {
        assert_eq!(
            (model.provider(), model.model_name()),
            ("ollama", "llama3.2")
        );
    }
    assert!(agentry::model::chat_model_builder("ollama:llama3.2").is_ok());
}

#[test]
fn a_runtime_built_by_hand_still_takes_a_model() {
    let model = ScriptedModel::new([Turn::text("hi")]);
    let runtime = ToolRuntime::new().with_model(model);
    assert!(format!("{runtime:?}").contains("ToolRuntime"));
    let shared = IntoSharedModel::into_shared_model(ScriptedModel::new([]));
    assert_eq!(shared.provider(), ScriptedModel::new([]).provider());
}
