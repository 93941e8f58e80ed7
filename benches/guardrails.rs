//! What a passing input guardrail adds to time-to-first-token.
//!
//! The same agent, with and without input guardrails, streams one answer from a local
//! OpenAI-compatible mock server (`agentry::testing::MockServer`, over HTTP on 127.0.0.1)
//! that waits `MODEL_MS` before it answers, as a provider's time to first token would. The
//! time measured is from `agent.stream(..)` to the first text delta. Three sides:
//!
//! * `plain`: no guardrail;
//! * `cheap`: a block list, a length limit and a PII check (they decide without waiting);
//! * `slow`: the same, plus a check that takes `CHECK_MS` (shorter than the model), standing
//!   in for a remote moderation call or a small judge model.
//!
//! An input guardrail runs beside the first request, so neither should add the check's time.
//! The machine is shared, so the sides are measured in paired rounds (the order rotating each
//! round) and the report gives each side's median and the ratio of the medians.
//!
//! Run: `cargo bench --bench guardrails` (or `-- ROUNDS MODEL_MS CHECK_MS`).

use std::time::{Duration, Instant};

use agentry::agent::{Agent, AgentBuilder, AgentEvent, NoTools};
use agentry::guard::builtin::{BlockList, MaxLength, PiiCheck};
use agentry::guard::{InputGuardrail, Verdict};
use agentry::middleware::PiiKind;
use agentry::model::SharedModel;
use agentry::testing::{MockResponse, MockServer};
use futures::StreamExt;

/// A check that takes a while and passes.
struct Takes(Duration);

impl InputGuardrail for Takes {
    type Reason = String;

    fn name(&self) -> &str {
        "takes"
    }

    async fn check(&self, _: &str, _: &()) -> Verdict<String, String> {
        tokio::time::sleep(self.0).await;
        Verdict::Pass
    }
}

/// Milliseconds from the start of a streamed run to its first text delta.
async fn ttft(agent: &Agent<NoTools>) -> f64 {
    let start = Instant::now();
    let mut stream = agent.stream("Say hello to the traveller, please.", ());
    let mut first = None;
    while let Some(event) = stream.next().await {
        if first.is_none() && matches!(event.as_ref().unwrap(), AgentEvent::TextDelta { .. }) {
            first = Some(start.elapsed());
        }
    }
    first.expect("a text delta").as_secs_f64() * 1e3
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let rounds = args.first().copied().unwrap_or(101) as usize;
    let model_ms = args.get(1).copied().unwrap_or(20);
    let check_ms = args.get(2).copied().unwrap_or(10);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let delay = Duration::from_millis(model_ms);
        let server = MockServer::with_handler(move |_| {
            MockResponse::text("Hello there, traveller.").delay(delay)
        })
        .await;
        let model: SharedModel = std::sync::Arc::new(server.openai_model("mock"));
        let build = || AgentBuilder::<_, _, (), ()>::new(model.clone(), NoTools);
        let cheap = |b: AgentBuilder<NoTools>| {
            b.input_guardrail(BlockList::keywords(["password", "drop table"]))
                .input_guardrail(MaxLength::chars(4000))
                .input_guardrail(PiiCheck::block([PiiKind::CreditCard, PiiKind::ApiKey]))
        };
        let agents = [
            ("plain", build().build()),
            ("cheap", cheap(build()).build()),
            (
                "slow",
                cheap(build())
                    .input_guardrail(Takes(Duration::from_millis(check_ms)))
                    .build(),
            ),
        ];
        // Warm-up: connections, lazy regexes.
        for (_, agent) in &agents {
            for _ in 0..5 {
                ttft(agent).await;
            }
        }
        let mut samples: Vec<Vec<f64>> = vec![Vec::new(); agents.len()];
        for round in 0..rounds {
            for k in 0..agents.len() {
                let i = (round + k) % agents.len();
                samples[i].push(ttft(&agents[i].1).await);
            }
        }
        let medians: Vec<f64> = samples.iter_mut().map(|s| median(s)).collect();
        println!(
            "guardrails: time to first token, {rounds} paired rounds, model answers after {model_ms} ms, slow check {check_ms} ms (medians)"
        );
        for ((name, _), m) in agents.iter().zip(&medians) {
            println!(
                "  {name:<6} {m:>8.2} ms   ratio to plain {:.3}",
                m / medians[0]
            );
        }
    });
}
