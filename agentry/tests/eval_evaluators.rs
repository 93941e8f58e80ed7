//! Every builtin evaluator, on passing and failing cases, and on cases it cannot judge.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentry::cost::Cost;
use agentry::eval::{
    Case, Contains, Equals, EvalContext, Evaluator, JudgeVerdict, Limits, LlmJudge, Observed,
    Order, PathCheck, Rubric, ToolTrajectory, Verdict, evaluator_fn,
};
use agentry::model::{ChatRequest, ModelError, SharedModel};
use agentry::prelude::*;
use agentry::testing::{FunctionModel, ScriptedModel, Turn};
use serde_json::{Value, json};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Plan {
    city: String,
    days: Vec<String>,
}

fn plan(city: &str, days: &[&str]) -> Plan {
    Plan {
        city: city.into(),
        days: days.iter().map(|d| d.to_string()).collect(),
    }
}

/// Judges `output` for `case` with `evaluator`, the task having taken `latency`.
async fn judge<I: Sync, O: Sync>(
    evaluator: &dyn Evaluator<I, O>,
    case: &Case<I, O>,
    observed: &Observed<O>,
) -> Result<Verdict, agentry::eval::EvaluatorError> {
    let ctx = EvalContext {
        case,
        observed,
        latency: Duration::from_millis(20),
    };
    evaluator.evaluate(&ctx).await
}

fn case(expected: Option<Plan>) -> Case<String, Plan> {
    let mut case = Case::new("lisbon", "Two days in Lisbon".to_string())
        .meta("city", "Lisbon")
        .meta("must_mention", json!(["Lisbon", "museum"]));
    case.expected = expected;
    case
}

#[tokio::test]
async fn equals_compares_with_the_expected_output() {
    let out = Observed::new(plan("Lisbon", &["walk", "museum"]));
    let same = case(Some(plan("Lisbon", &["walk", "museum"])));
    assert_eq!(judge(&Equals, &same, &out).await.unwrap(), Verdict::pass());

    let other = case(Some(plan("Lisbon", &["walk"])));
    let verdict = judge(&Equals, &other, &out).await.unwrap();
    assert!(!verdict.passed);
    assert_eq!(verdict.score, 0.0);
    assert!(verdict.reason.unwrap().contains("expected Plan"));

    let err = judge(&Equals, &case(None), &out).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("case `lisbon` has no expected output"),
        "{err}"
    );
}

#[tokio::test]
async fn path_checks_select_with_jsonpath() {
    let out = Observed::new(plan("Lisbon", &["walk", "museum"]));
    let c = case(Some(plan("Lisbon", &["walk", "garden"])));
    let check = |p: PathCheck| {
        let (c, out) = (c.clone(), out.clone());
        async move { judge(&p, &c, &out).await.unwrap() }
    };

    assert!(check(PathCheck::exists("$.days[1]").unwrap()).await.passed);
    let missing = check(PathCheck::exists("$.days[5]").unwrap()).await;
    assert_eq!(
        missing.reason.as_deref(),
        Some("`$.days[5]` selects nothing")
    );

    assert!(
        check(PathCheck::equals("$.city", json!("Lisbon")).unwrap())
            .await
            .passed
    );
    let wrong = check(PathCheck::equals("$.city", json!("Porto")).unwrap()).await;
    assert_eq!(
        wrong.reason.as_deref(),
        Some(r#"`$.city` is "Lisbon", expected "Porto""#)
    );

    assert!(
        check(PathCheck::matches_expected("$.city").unwrap())
            .await
            .passed
    );
    assert!(
        check(PathCheck::matches_expected("$.days[0]").unwrap())
            .await
            .passed
    );
    let day2 = check(PathCheck::matches_expected("$.days[1]").unwrap()).await;
    assert!(!day2.passed);
    assert!(
        day2.reason
            .unwrap()
            .contains(r#"is ["museum"], expected ["garden"]"#)
    );
    // Nothing selected is not a match, even when the expected output has nothing there.
    let nothing = check(PathCheck::matches_expected("$.hotel").unwrap()).await;
    assert_eq!(nothing.reason.as_deref(), Some("`$.hotel` selects nothing"));

    assert!(
        check(PathCheck::equals_metadata("$.city", "city").unwrap())
            .await
            .passed
    );

    let short = PathCheck::all("$.days[*]", "short", |v| {
        v.as_str().is_some_and(|s| s.len() <= 4)
    })
    .unwrap();
    let half = check(short).await;
    assert_eq!(half.score, 0.5);
    assert!(!half.passed);
    assert_eq!(
        half.reason.as_deref(),
        Some("1 of 2 nodes at `$.days[*]` fail `short`")
    );

    let err = PathCheck::exists("$.days[").unwrap_err();
    assert!(
        err.to_string().starts_with("invalid JSONPath `$.days[`"),
        "{err}"
    );
    let no_meta = PathCheck::equals_metadata("$.city", "nope").unwrap();
    let err = judge(&no_meta, &case(None), &Observed::new(plan("Lisbon", &[])))
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "case `lisbon` has no metadata `nope`");
    let name = <PathCheck as Evaluator<String, Plan>>::name(
        &PathCheck::equals("$.city", json!("Lisbon")).unwrap(),
    );
    assert_eq!(name, r#"$.city == "Lisbon""#);
}

#[tokio::test]
async fn contains_scores_the_share_of_needles_found() {
    let text_out: Observed<String> = Observed::new("A walk in Lisbon, then the Museum.".into());
    let c: Case<String, String> =
        Case::new("t", String::new()).meta("must_mention", json!(["Lisbon", "museum", "tram"]));
    let found = judge(&Contains::new("Lisbon"), &c, &text_out)
        .await
        .unwrap();
    assert!(found.passed);
    let exact = judge(&Contains::new("museum"), &c, &text_out)
        .await
        .unwrap();
    assert!(!exact.passed, "case matters by default");
    let folded = judge(&Contains::new("museum").ignore_case(), &c, &text_out)
        .await
        .unwrap();
    assert!(folded.passed);
    let meta = judge(
        &Contains::from_metadata("must_mention").ignore_case(),
        &c,
        &text_out,
    )
    .await
    .unwrap();
    assert!((meta.score - 2.0 / 3.0).abs() < 1e-9, "{meta:?}");
    assert_eq!(meta.reason.as_deref(), Some("missing `tram`"));

    // A structured output is searched in its JSON text; no metadata entry: nothing required.
    let out = Observed::new(plan("Lisbon", &["museum"]));
    assert!(
        judge(
            &Contains::all(["\"city\":\"Lisbon\"", "museum"]),
            &case(None),
            &out
        )
        .await
        .unwrap()
        .passed
    );
    let none: Case<String, Plan> = Case::new("n", String::new());
    assert!(
        judge(&Contains::from_metadata("must_mention"), &none, &out)
            .await
            .unwrap()
            .passed
    );
    let bad = Case::new("b", String::new()).meta("must_mention", json!([1, 2]));
    let err = judge(&Contains::from_metadata("must_mention"), &bad, &out)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("not a list of strings"), "{err}");
}

#[tokio::test]
async fn a_custom_function_returns_a_verdict_a_bool_or_an_error() {
    let out = Observed::new(plan("Lisbon", &["walk", "museum"]));
    let c = case(None);
    let two_days = evaluator_fn("two days", |ctx: &EvalContext<'_, String, Plan>| {
        ctx.output().days.len() == 2
    });
    assert!(judge(&two_days, &c, &out).await.unwrap().passed);
    assert_eq!(<_ as Evaluator<String, Plan>>::name(&two_days), "two days");
    let scored = evaluator_fn("brevity", |ctx: &EvalContext<'_, String, Plan>| {
        Verdict::scored(1.0 / ctx.output().days.len() as f64, 0.6).because("one over days")
    });
    let v = judge(&scored, &c, &out).await.unwrap();
    assert_eq!((v.score, v.passed), (0.5, false));
    let erring = evaluator_fn("erring", |ctx: &EvalContext<'_, String, Plan>| {
        ctx.expected().map(|e| e == ctx.output())
    });
    let err = judge(&erring, &c, &out).await.unwrap_err();
    assert!(err.to_string().contains("no expected output"));
}

/// Suggest activities.
///
/// # Arguments
/// * `city` - The city.
/// * `outdoor` - Outdoor ones.
#[tool]
fn find_activities(city: String, outdoor: bool) -> String {
    format!("{} in {city}", if outdoor { "a walk" } else { "a museum" })
}

/// Get the weather.
///
/// # Arguments
/// * `city` - The city.
#[tool]
fn get_weather(city: String) -> String {
    format!("{city}: 20°C")
}

/// Plans trips.
#[agent(tools(get_weather, find_activities))]
struct Planner;

/// A real run whose calls the trajectory reads: weather, then two activity searches.
async fn planned_run() -> Observed<String> {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("get_weather", json!({ "city": "Lisbon" })),
        Turn::tool_calls([
            ToolCall::new(
                "a",
                "find_activities",
                r#"{"city":"Lisbon","outdoor":true}"#,
            ),
            ToolCall::new(
                "b",
                "find_activities",
                r#"{"city":"Lisbon","outdoor":false}"#,
            ),
        ]),
        Turn::text("A walk, then a museum."),
    ]));
    let run = Planner::builder(model)
        .build()
        .run("Plan Lisbon", ())
        .await
        .unwrap();
    Observed::from(run)
}

#[tokio::test]
async fn a_trajectory_reads_the_runs_calls_in_order_with_their_arguments() {
    let out = planned_run().await;
    let names: Vec<&str> = out.tool_calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["get_weather", "find_activities", "find_activities"]);
    assert_eq!(out.turns(), 3);
    let c: Case<String, String> = Case::new("lisbon", String::new());
    let verdict = |t: ToolTrajectory| {
        let (c, out) = (c.clone(), out.clone());
        async move { judge(&t, &c, &out).await.unwrap() }
    };

    let any = ToolTrajectory::new()
        .call_with("find_activities", json!({ "outdoor": false }))
        .call("get_weather");
    assert!(verdict(any.clone()).await.passed, "any order");
    let in_order = verdict(any.order(Order::InOrder)).await;
    // The indoor search comes last: nothing is left after it for the weather.
    assert_eq!((in_order.score, in_order.passed), (0.5, false));
    assert!(in_order.reason.unwrap().contains(
        r#"expected [find_activities({"outdoor":false}), get_weather] in order, made [get_weather, find_activities, find_activities]"#
    ));
    let ordered = ToolTrajectory::new()
        .call("get_weather")
        .call_with("find_activities", json!({ "outdoor": false }))
        .order(Order::InOrder);
    assert!(
        verdict(ordered.clone()).await.passed,
        "calls may come between"
    );
    let exact = verdict(ordered.order(Order::Exact)).await;
    // Position 1 holds the outdoor call: one of three positions matches.
    assert!((exact.score - 1.0 / 3.0).abs() < 1e-9, "{exact:?}");
    let full = ToolTrajectory::new()
        .call_with("get_weather", json!({ "city": "Lisbon" }))
        .call_with(
            "find_activities",
            json!({ "city": "Lisbon", "outdoor": true }),
        )
        .call("find_activities")
        .order(Order::Exact);
    assert!(verdict(full).await.passed);
    let wrong_args = ToolTrajectory::new().call_with("get_weather", json!({ "city": "Porto" }));
    assert!(!verdict(wrong_args).await.passed);

    let forbidden = verdict(ToolTrajectory::new().forbid("find_activities")).await;
    assert_eq!(
        forbidden.reason.as_deref(),
        Some("called the forbidden tool `find_activities`")
    );
    let too_many = verdict(ToolTrajectory::new().max_calls(2)).await;
    assert!(too_many.reason.unwrap().starts_with("3 calls, at most 2"));

    let from_meta: Case<String, String> = Case::new("m", String::new()).meta(
        "tools",
        json!(["get_weather", { "tool": "find_activities", "arguments": { "outdoor": true } }]),
    );
    let t = ToolTrajectory::from_metadata("tools").order(Order::InOrder);
    assert!(judge(&t, &from_meta, &out).await.unwrap().passed);
    let bad: Case<String, String> = Case::new("bad", String::new()).meta("tools", json!(3));
    let err = judge(&t, &bad, &out).await.unwrap_err();
    assert!(
        err.to_string().contains("metadata `tools` of case `bad`"),
        "{err}"
    );
}

#[tokio::test]
async fn limits_bound_turns_tokens_cost_and_latency() {
    let mut out = Observed::new("done".to_string());
    out.usage = Usage {
        input_tokens: 900,
        output_tokens: 200,
        requests: 3,
        ..Usage::default()
    };
    let c: Case<String, String> = Case::new("c", String::new());
    let within = Limits::new()
        .max_turns(3)
        .max_tokens(1100)
        .max_latency(Duration::from_millis(20));
    assert!(judge(&within, &c, &out).await.unwrap().passed);
    let tight = Limits::new()
        .max_turns(2)
        .max_tokens(1000)
        .max_latency(Duration::from_millis(10));
    let v = judge(&tight, &c, &out).await.unwrap();
    assert!(!v.passed);
    assert_eq!(
        v.reason.as_deref(),
        Some("3 turns > 2; 1100 tokens > 1000; latency 20ms > 10ms")
    );

    let cost = Limits::new().max_cost(Cost::from_usd(0.01));
    let err = judge(&cost, &c, &out).await.unwrap_err();
    assert!(err.to_string().contains("has no cost to check"), "{err}");
    let cheap = out.clone().with_cost(Cost::from_usd(0.005));
    assert!(judge(&cost, &c, &cheap).await.unwrap().passed);
    let dear = out.with_cost(Cost::from_usd(0.02));
    let v = judge(&cost, &c, &dear).await.unwrap();
    assert_eq!(v.reason.as_deref(), Some("cost $0.020000 > $0.010000"));
}

/// A judge model answering `verdict` (in whichever way the request asks for it) and keeping
/// each request it got.
fn judge_model(verdict: Value, seen: Arc<Mutex<Vec<ChatRequest>>>) -> SharedModel {
    Arc::new(FunctionModel::new(move |req: &ChatRequest| {
        seen.lock().unwrap().push(req.clone());
        if req.response_format.is_some() {
            Ok(FunctionModel::text(verdict.to_string()))
        } else if let Some(tool) = req.tools.iter().next() {
            Ok(FunctionModel::tool_call(&tool.name, verdict.clone()))
        } else {
            Err(ModelError::Network("no way to answer".into()))
        }
    }))
}

fn rubric() -> Rubric {
    Rubric::new()
        .criterion("grounded", "Uses only what the tools returned.")
        .criterion("complete", "Has one entry per day asked.")
        .pass_score(0.75)
}

#[tokio::test]
async fn a_judge_grades_with_a_typed_rubric_and_verdict() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let verdict = json!({
        "scores": [
            { "criterion": "grounded", "score": 1.0, "reason": "all from tools" },
            { "criterion": "complete", "score": 0.6, "reason": "one day short" }
        ],
        "reasoning": "Mostly good."
    });
    let judge_eval = LlmJudge::new(judge_model(verdict, seen.clone()), rubric()).named("quality");
    assert_eq!(<_ as Evaluator<String, Plan>>::name(&judge_eval), "quality");
    let out = Observed::new(plan("Lisbon", &["walk"]));
    let c = case(Some(plan("Lisbon", &["walk", "museum"])));
    let v = judge(&judge_eval, &c, &out).await.unwrap();
    assert!((v.score - 0.8).abs() < 1e-9, "{v:?}");
    assert!(v.passed);
    assert_eq!(v.reason.as_deref(), Some("complete 0.60: one day short"));

    // The judge saw the rubric, the input, the expected output and the output.
    let requests = seen.lock().unwrap();
    let prompt: String = requests[0].messages.iter().map(|m| m.text()).collect();
    for needle in [
        "Uses only what the tools returned.",
        "\"pass_score\": 0.75",
        "Two days in Lisbon",
        "\"expected_output\"",
        "\"walk\"",
    ] {
        assert!(prompt.contains(needle), "{needle} not in {prompt}");
    }
}

#[tokio::test]
async fn a_criterion_the_judge_left_out_counts_zero_and_a_failed_judge_is_an_error() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let partial = json!({
        "scores": [{ "criterion": "grounded", "score": 1.0, "reason": "ok" }],
        "reasoning": "Only one."
    });
    let judge_eval = LlmJudge::new(judge_model(partial, seen), rubric());
    let out = Observed::new(plan("Lisbon", &["walk"]));
    let v = judge(&judge_eval, &case(None), &out).await.unwrap();
    assert_eq!((v.score, v.passed), (0.5, false));

    let broken: SharedModel = Arc::new(FunctionModel::new(|_: &ChatRequest| {
        Err::<agentry::model::ChatResponse, _>(ModelError::Network("judge offline".into()))
    }));
    let err = judge(&LlmJudge::new(broken, rubric()), &case(None), &out)
        .await
        .unwrap_err();
    assert!(err.to_string().starts_with("the judge failed:"), "{err}");
    assert!(err.to_string().contains("judge offline"), "{err}");
}

#[test]
fn the_verdict_is_a_validated_structured_output() {
    // A score outside 0..=1 is refused by the derived checks (and the judge asked again).
    let bad: JudgeVerdict = serde_json::from_value(json!({
        "scores": [{ "criterion": "x", "score": 3.0, "reason": "" }],
        "reasoning": ""
    }))
    .unwrap();
    let err = bad.validate().unwrap_err().to_string();
    assert!(err.contains("$.scores[0].score"), "{err}");
}
