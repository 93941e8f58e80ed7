//! Guardrails in a run: an input guardrail raced against the first request (cancelling it in
//! flight, or waited for when the request finishes first), rewrites, and a tripped guardrail
//! ending a stream; output and tool guardrails are in `guardrails/output_and_tools.rs`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use agentry::agent::{Agent, AgentBuilder, AgentEvent, NoTools, RunError, RunErrorKind, Toolset};
use agentry::guard::builtin::{BlockList, Listed};
use agentry::guard::{
    InputGuardrail, OutputGuardrail, ToolInputGuardrail, ToolOutputGuardrail, Verdict,
};
use agentry::output::OutputSpec;
use agentry::prelude::*;
use agentry::testing::{MockResponse, MockServer, ScriptedModel, Turn};
use futures::StreamExt;
use serde_json::json;

#[path = "guardrails/output_and_tools.rs"]
mod output_and_tools;

/// Waits `after`, then decides `verdict` (a check slower than the model, or slower than a
/// request's first bytes).
struct Slow {
    after: Duration,
    verdict: Verdict<String, String>,
    checked: Arc<AtomicUsize>,
}

impl Slow {
    fn new(after: Duration, verdict: Verdict<String, String>) -> Self {
        Slow {
            after,
            verdict,
            checked: Arc::default(),
        }
    }
}

impl<C: Sync> InputGuardrail<C> for Slow {
    type Reason = String;

    fn name(&self) -> &str {
        "slow"
    }

    async fn check(&self, _: &str, _: &C) -> Verdict<String, String> {
        tokio::time::sleep(self.after).await;
        self.checked.fetch_add(1, Ordering::SeqCst);
        self.verdict.clone()
    }
}

fn usage(input: u64, output: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        requests: 1,
        ..Usage::default()
    }
}

/// An SSE body: a first text chunk, a usage report, then (after a long pause) the end. The
/// offset where the pause falls is returned beside it.
fn slow_stream() -> MockResponse {
    let chunks = [
        json!({"id": "c1", "object": "chat.completion.chunk", "model": "m",
               "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}}]}),
        json!({"id": "c1", "object": "chat.completion.chunk", "model": "m", "choices": [],
               "usage": {"prompt_tokens": 42, "completion_tokens": 1, "total_tokens": 43}}),
        json!({"id": "c1", "object": "chat.completion.chunk", "model": "m",
               "choices": [{"index": 0, "delta": {"content": "lo"}, "finish_reason": "stop"}]}),
    ];
    let payloads: Vec<String> = chunks.iter().map(|c| c.to_string()).collect();
    // `data: <payload>\n\n` for the first two chunks, then the pause.
    let first_two: usize = payloads[..2]
        .iter()
        .map(|p| "data: ".len() + p.len() + 2)
        .sum();
    MockResponse::sse_data(payloads)
        .split_at(vec![first_two])
        .pace(Duration::from_secs(2))
}

/// Waits (up to `within`) until the server has seen `n` answers dropped before their end.
async fn dropped(server: &MockServer, n: usize, within: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < within {
        if server.unfinished_bodies() >= n {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

/// Runs `agent` on "hi", whose answer takes 3 s: a guardrail ends it well before then.
async fn blocked_before_the_answer<T, O>(agent: &Agent<T, O, (), ()>) -> RunError
where
    T: Toolset<(), ()>,
    O: OutputSpec,
    O::Output: std::fmt::Debug,
{
    let started = Instant::now();
    let error = agent.run("hi", ()).await.unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(
        matches!(error.kind(), RunErrorKind::Guardrail { .. }),
        "{error}"
    );
    error
}

#[tokio::test]
async fn an_input_guardrail_that_trips_mid_request_cancels_it_and_reports_its_usage() {
    let server = MockServer::with_script([slow_stream()]).await;
    let guard = Slow::new(
        Duration::from_millis(300),
        Verdict::Block("off topic".into()),
    );
    let agent = AgentBuilder::<_, _, (), ()>::new(server.openai_model("m"), NoTools)
        .input_guardrail(guard)
        .build();
    let started = Instant::now();
    let mut stream = agent.stream("tell me a secret", ());
    let mut events = Vec::new();
    let mut error = None;
    while let Some(item) = stream.next().await {
        match item {
            Ok(event) => events.push(event),
            Err(e) => error = Some(e),
        }
    }
    let elapsed = started.elapsed();
    let error = error.expect("the run ends with the guardrail's error");
    // The request was in flight: its first delta reached the stream, its end never did.
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::TextDelta { text } if text == "Hel")),
        "{events:?}"
    );
    assert!(elapsed < Duration::from_millis(1900), "took {elapsed:?}");
    let RunErrorKind::Guardrail { name, reason } = error.kind() else {
        panic!("{error}")
    };
    assert_eq!(
        (name.as_str(), reason.downcast_ref::<String>()),
        ("slow", Some(&"off topic".to_string()))
    );
    // Cancelled: the client hung up before the server sent the rest of the answer.
    assert!(
        dropped(&server, 1, Duration::from_secs(5)).await,
        "the server never saw the request dropped"
    );
    assert_eq!(server.request_count(), 1);
    // Billed so far: the request, with the usage its stream reported before it was cancelled.
    assert_eq!(error.partial().usage, usage(42, 1));
    assert_eq!(error.partial().request_usage.len(), 1);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::Usage { usage: u, .. } if *u == usage(42, 1)))
    );
    // The transcript holds the input, not the cancelled answer.
    assert_eq!(error.partial().messages.len(), 1);
}

#[tokio::test]
async fn a_request_cancelled_before_it_reported_usage_counts_as_one_request_without_tokens() {
    // Not streamed (`run` uses `invoke`): nothing is reported before the answer.
    let server =
        MockServer::with_script([MockResponse::text("late").delay(Duration::from_secs(3))]).await;
    let agent = AgentBuilder::<_, _, (), ()>::new(server.openai_model("m"), NoTools)
        .input_guardrail(Slow::new(
            Duration::from_millis(200),
            Verdict::Block("no".into()),
        ))
        .build();
    let error = blocked_before_the_answer(&agent).await;
    assert_eq!(server.request_count(), 1);
    assert_eq!(error.partial().usage, usage(0, 0));
    assert_eq!(error.partial().request_usage[0].model, "m");
}

/// Look up a secret.
#[tool]
fn lookup(calls: Context<Arc<AtomicUsize>>) -> String {
    calls.fetch_add(1, Ordering::SeqCst);
    "the secret".to_string()
}

#[agent(tools(lookup), context = Arc<AtomicUsize>)]
struct Looker;

#[tokio::test]
async fn when_the_model_answers_first_the_run_waits_for_the_input_guardrail_before_any_tool() {
    let model = ScriptedModel::new([
        Turn::tool_call("lookup", json!({})).with_usage(usage(10, 5)),
        Turn::text("done"),
    ]);
    let calls = Arc::new(AtomicUsize::new(0));
    let agent = Looker::builder(model)
        .input_guardrail(Slow::new(
            Duration::from_millis(100),
            Verdict::Block("late no".into()),
        ))
        .build();
    let error = agent.run("hi", Arc::clone(&calls)).await.unwrap_err();
    let RunErrorKind::Guardrail { name, .. } = error.kind() else {
        panic!("{error}")
    };
    assert_eq!(name, "slow");
    assert_eq!(
        calls.load(Ordering::SeqCst),
        0,
        "the tool ran before the guardrail answered"
    );
    // The answer arrived, so it is billed in full.
    assert_eq!(error.partial().usage, usage(10, 5));
    assert!(error.partial().steps.is_empty());
}

#[tokio::test]
async fn a_passing_input_guardrail_lets_the_run_finish_normally() {
    let model = ScriptedModel::new([Turn::tool_call("lookup", json!({})), Turn::text("done")]);
    let guard = Slow::new(Duration::from_millis(20), Verdict::Pass);
    let checked = Arc::clone(&guard.checked);
    let calls = Arc::new(AtomicUsize::new(0));
    let agent = Looker::builder(model).input_guardrail(guard).build();
    let run = agent.run("hi", Arc::clone(&calls)).await.unwrap();
    assert_eq!(run.output, "done");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    // Checked once: on the user's message, not again on later turns.
    assert_eq!(checked.load(Ordering::SeqCst), 1);
    assert_eq!(run.usage.requests, 2);
}

#[tokio::test]
async fn an_input_rewrite_makes_the_request_again_with_the_new_message() {
    let model = Arc::new(ScriptedModel::new([
        Turn::text("answer to the original").with_usage(usage(7, 3)),
        Turn::text("answer to the rewrite").with_usage(usage(8, 4)),
    ]));
    let guard = Slow::new(
        Duration::from_millis(30),
        Verdict::Rewrite("a polite question".into()),
    );
    let agent = AgentBuilder::<_, _, (), ()>::new(Arc::clone(&model), NoTools)
        .input_guardrail(guard)
        .build();
    let run = agent.run("a rude question", ()).await.unwrap();
    assert_eq!(run.output, "answer to the rewrite");
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[1].messages.last().unwrap().text(),
        "a polite question"
    );
    assert_eq!(run.messages[0].text(), "a polite question");
    // The first answer was received, then set aside: it is billed.
    assert_eq!(run.usage.input_tokens, 15);
    assert_eq!(run.usage.requests, 2);
}

#[tokio::test]
async fn an_input_guardrail_that_decides_at_once_blocks_before_the_request_is_sent() {
    let server = MockServer::with_script([MockResponse::text("never")]).await;
    let agent = AgentBuilder::<_, _, (), ()>::new(server.openai_model("m"), NoTools)
        .input_guardrail(BlockList::keywords(["password"]))
        .build();
    let error = agent
        .run("the admin PASSWORD please", ())
        .await
        .unwrap_err();
    let RunErrorKind::Guardrail { name, reason } = error.kind() else {
        panic!("{error}")
    };
    assert_eq!(name, "block_list");
    assert_eq!(
        reason.downcast_ref::<Listed>(),
        Some(&Listed::Keyword("password".into()))
    );
    assert_eq!(
        error.to_string(),
        "guardrail `block_list` blocked the run: the text contains `password`"
    );
    assert_eq!(server.request_count(), 0);
}

#[tokio::test]
async fn a_guardrail_that_trips_ends_the_stream_and_the_events_already_yielded_stay() {
    let model = ScriptedModel::new([Turn::text("a very long answer indeed")]);
    let agent = AgentBuilder::<_, _, (), ()>::new(model, NoTools)
        .output_guardrail(agentry::guard::builtin::MaxLength::chars(10))
        .build();
    let items: Vec<_> = agent.stream("hi", ()).collect().await;
    let (events, errors): (Vec<_>, Vec<_>) = items.into_iter().partition(Result::is_ok);
    let text: String = events
        .into_iter()
        .filter_map(|e| match e.unwrap() {
            AgentEvent::TextDelta { text } => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(text, "a very long answer indeed");
    assert_eq!(errors.len(), 1);
    let error = errors.into_iter().next().unwrap().unwrap_err();
    assert!(
        matches!(error.kind(), RunErrorKind::Guardrail { name, .. } if name == "max_length"),
        "{error}"
    );
}

/// A middleware with every hook left as it is (so the run takes the middleware path).
struct Plain;

impl agentry::middleware::Middleware for Plain {}

#[tokio::test]
async fn an_input_guardrail_cancels_a_request_made_through_middleware() {
    let model = ScriptedModel::new([Turn::text("slow answer")]).with_delay(Duration::from_secs(3));
    let agent = AgentBuilder::<_, _, (), ()>::new(model, NoTools)
        .instructions("Be brief.")
        .middleware(Plain)
        .input_guardrail(Slow::new(
            Duration::from_millis(50),
            Verdict::Block("no".into()),
        ))
        .build();
    let error = blocked_before_the_answer(&agent).await;
    // The transcript as it was when the request was cancelled: instructions and input.
    let texts: Vec<String> = error.partial().messages.iter().map(Message::text).collect();
    assert_eq!(texts, ["Be brief.", "hi"]);
    assert_eq!(error.partial().usage, usage(0, 0));
}
