//! What the GenAI spans cost a run, off (no subscriber) and on (exported through
//! `tracing-opentelemetry` to the OpenTelemetry SDK's in-memory exporter), against the same
//! job written by hand in the same run, with and without `tracing` spans written by hand
//! around the same calls.
//!
//! The job is the `middleware_overhead` one: model → one `add` call (an `async fn` tool) →
//! model, against an in-process model that answers at once, so what is measured is the loop
//! and its spans. Sides:
//!
//! - `sdk`: one agent run;
//! - `hand`: the job by hand (two model calls, one `serde_json` parse, a direct call);
//! - `hand_spans`: the same with an `invoke_agent` span around it (instrumenting the future)
//!   and an `execute_tool` span around the call, with the attributes the SDK's spans get.
//!
//! Without a subscriber, `sdk` against the `hand` job gives the whole framework's cost and
//! `hand_spans − hand` what disabled spans cost when written by hand. With a subscriber, each
//! side runs under a registry with the `tracing-opentelemetry` layer (filtered at `INFO`, as
//! `OtelConfig` installs it) and a tracer provider exporting to the in-memory exporter: with a simple processor (every span exported as it
//! ends, on the caller's thread) and with the batch processor (spans queued to the
//! processor's thread and exported in batches, as the OpenTelemetry SDK intends; flushed
//! and emptied after every round). CPU time is the process's (getrusage: every thread,
//! the batch processor's included).
//!
//! Run: `cargo bench --bench span_cost` (or `-- ROUNDS RUNS_PER_ROUND`): median per-run CPU
//! time of paired rounds and the ratios.
//!
//! Instructions (callgrind, free of the machine's noise): `cargo bench --bench span_cost
//! --no-run`, then `SPAN_ONLY=<side> valgrind --tool=callgrind <binary> 1 N` for two values of
//! N; the difference of the totals over the difference of N is one run. Sides: `sdk`,
//! `hand`, `hand_spans`, and the same with `_otel` (simple processor) or `_batch` appended.

use std::hint::black_box;
use std::sync::Arc;

use agentry::model::{ChatModel, ChatRequest};
use agentry::prelude::*;
use agentry::testing::FunctionModel;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use tracing::Instrument;
use tracing::field::Empty;
use tracing::level_filters::LevelFilter;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt;

#[path = "shared/process_cpu.rs"]
mod process_cpu;
use process_cpu::cpu_now;

#[path = "shared/adder.rs"]
mod adder;
use adder::{Adder, add};

/// Calls `add` on the first request, answers once the tool result is in.
fn model() -> FunctionModel {
    FunctionModel::new(|req: &ChatRequest| match req.messages.last() {
        Some(Message::Tool(result)) => FunctionModel::text(format!(
            "The sum is {}.",
            Message::Tool(result.clone()).text()
        )),
        _ => FunctionModel::tool_call("add", serde_json::json!({ "a": 2, "b": 3 })),
    })
}

#[derive(serde::Deserialize)]
struct HandArgs {
    a: i64,
    b: i64,
}

/// The job by hand; with `spans`, under hand-written `invoke_agent` and `execute_tool` spans.
async fn by_hand(
    model: &FunctionModel,
    tool_def: &agentry::tool::DefinitionRef,
    spans: bool,
) -> String {
    let job = async {
        let mut messages = vec![
            Message::system("You add numbers with the `add` tool."),
            Message::user("2 + 3?"),
        ];
        let mut request = ChatRequest::new(messages.clone());
        request.tools = vec![tool_def.clone()].into();
        let first = model.invoke(request).await.unwrap();
        let mut usage = first.usage;
        let call = first.message.tool_calls[0].clone();
        messages.push(Message::Assistant(first.message));
        let tool_span = if spans {
            tracing::info_span!(
                "execute_tool",
                otel.name = format!("execute_tool {}", call.name),
                otel.kind = "internal",
                gen_ai.operation.name = "execute_tool",
                gen_ai.tool.name = call.name.as_str(),
                gen_ai.tool.call.id = call.id.as_str(),
                gen_ai.tool.type = "function",
            )
        } else {
            tracing::Span::none()
        };
        let sum = async {
            let args: HandArgs = serde_json::from_str(&call.arguments).unwrap();
            add(args.a, args.b).await
        }
        .instrument(tool_span)
        .await;
        messages.push(Message::tool_result(call.id, call.name, sum.to_string()));
        let mut request = ChatRequest::new(messages);
        request.tools = vec![tool_def.clone()].into();
        let second = model.invoke(request).await.unwrap();
        usage += second.usage;
        tracing::Span::current()
            .record("gen_ai.usage.input_tokens", usage.input_tokens as i64)
            .record("gen_ai.usage.output_tokens", usage.output_tokens as i64);
        second.message.text()
    };
    if !spans {
        return job.await;
    }
    let span = tracing::info_span!(
        "invoke_agent",
        otel.name = "invoke_agent Adder",
        otel.kind = "internal",
        gen_ai.operation.name = "invoke_agent",
        gen_ai.agent.name = "Adder",
        gen_ai.provider.name = model.provider(),
        gen_ai.request.model = model.model_name(),
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
    );
    job.instrument(span).await
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

/// How spans are exported: not at all, or through a processor to the in-memory exporter.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Export {
    Off,
    Simple,
    Batch,
}

/// A subscriber exporting to `exporter` the way `export` says, and its tracer provider.
fn exporting(
    export: Export,
    exporter: &InMemorySpanExporter,
) -> Option<(tracing::Dispatch, SdkTracerProvider)> {
    let provider = match export {
        Export::Off => return None,
        Export::Simple => SdkTracerProvider::builder().with_simple_exporter(exporter.clone()),
        Export::Batch => SdkTracerProvider::builder().with_batch_exporter(exporter.clone()),
    }
    .build();
    // As `OtelConfig::install` composes it: the layer passes spans and events at `INFO` and
    // above (its default level), so the SDK's `debug!` lines are not exported as span events.
    let layer = tracing_opentelemetry::layer()
        .with_tracer(provider.tracer("bench"))
        .with_filter(LevelFilter::INFO);
    let subscriber = tracing_subscriber::registry().with(layer);
    Some((tracing::Dispatch::new(subscriber), provider))
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let rounds = args.first().copied().unwrap_or(15);
    let runs = args.get(1).copied().unwrap_or(2000);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let agent = Adder::builder(Arc::new(model())).build();
    let direct = model();
    let tool_def: agentry::tool::DefinitionRef = <add as Tool>::definition().into();

    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    enum Side {
        Sdk,
        Hand,
        HandSpans,
    }
    let one = |side: Side| {
        let (agent, direct, tool_def) = (&agent, &direct, &tool_def);
        async move {
            match side {
                Side::Sdk => agent.run("2 + 3?", ()).await.unwrap().output,
                Side::Hand => by_hand(direct, tool_def, false).await,
                Side::HandSpans => by_hand(direct, tool_def, true).await,
            }
        }
    };
    // `runs` runs of `side` with spans exported as `export`; the process CPU time per run.
    let measure = |side: Side, export: Export, runs: usize| -> f64 {
        let exporter = InMemorySpanExporter::default();
        let setup = exporting(export, &exporter);
        let go = || {
            let start = cpu_now();
            rt.block_on(async {
                for _ in 0..runs {
                    black_box(one(side).await);
                }
            });
            if let Some((_, provider)) = &setup {
                provider.force_flush().unwrap();
            }
            let spent = cpu_now() - start;
            if export != Export::Off {
                let spans = exporter.get_finished_spans().unwrap();
                let want = if side == Side::Hand { 0 } else { 2 * runs };
                assert_eq!(
                    spans.len(),
                    want,
                    "{side:?}: invoke_agent + execute_tool per run"
                );
                exporter.reset();
            }
            spent.as_nanos() as f64 / runs as f64
        };
        let per_run = match &setup {
            Some((dispatch, _)) => tracing::dispatcher::with_default(dispatch, go),
            None => go(),
        };
        if let Some((_, provider)) = setup {
            provider.shutdown().unwrap();
        }
        per_run
    };

    for side in [Side::Sdk, Side::Hand, Side::HandSpans] {
        assert_eq!(rt.block_on(one(side)), "The sum is 5.", "{side:?}");
    }

    // For instruction counts under callgrind: `SPAN_ONLY=<side>[_otel|_batch]` runs one side.
    if let Ok(only) = std::env::var("SPAN_ONLY") {
        let (name, export) = if let Some(name) = only.strip_suffix("_otel") {
            (name, Export::Simple)
        } else if let Some(name) = only.strip_suffix("_batch") {
            (name, Export::Batch)
        } else {
            (only.as_str(), Export::Off)
        };
        let side = match name {
            "sdk" => Side::Sdk,
            "hand" => Side::Hand,
            "hand_spans" => Side::HandSpans,
            other => panic!("SPAN_ONLY: unknown side {other:?}"),
        };
        black_box(measure(side, export, runs));
        return;
    }

    let cells = [
        (Side::Sdk, Export::Off),
        (Side::Hand, Export::Off),
        (Side::HandSpans, Export::Off),
        (Side::Sdk, Export::Simple),
        (Side::HandSpans, Export::Simple),
        (Side::Sdk, Export::Batch),
        (Side::HandSpans, Export::Batch),
    ];
    // Warm-up.
    for (side, export) in cells {
        black_box(measure(side, export, runs / 4 + 1));
    }
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); cells.len()];
    // Per-round ratios: (numerator cell, denominator cell, label).
    let ratios = [
        (0, 1, "sdk off / hand"),
        (2, 1, "hand spans off / hand"),
        (3, 0, "sdk simple export / sdk off"),
        (4, 2, "hand simple export / hand spans off"),
        (3, 4, "sdk simple export / hand simple export"),
        (5, 0, "sdk batch export / sdk off"),
        (6, 2, "hand batch export / hand spans off"),
        (5, 6, "sdk batch export / hand batch export"),
    ];
    let mut ratio_rounds: Vec<Vec<f64>> = vec![Vec::new(); ratios.len()];
    for round in 0..rounds {
        let mut order: Vec<usize> = (0..cells.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        let mut this = vec![0.0; cells.len()];
        for i in order {
            let (side, export) = cells[i];
            this[i] = measure(side, export, runs);
        }
        for (r, (num, den, _)) in ratios.iter().enumerate() {
            ratio_rounds[r].push(this[*num] / this[*den]);
        }
        for (i, t) in this.into_iter().enumerate() {
            times[i].push(t);
        }
    }
    println!("span_cost: {rounds} paired rounds of {runs} runs, CPU time per run (medians)");
    for (i, (side, export)) in cells.iter().enumerate() {
        println!(
            "  {:<12} {:<8} {:>9.2} µs",
            format!("{side:?}"),
            format!("{export:?}"),
            median(&mut times[i]) / 1000.0
        );
    }
    for (r, (_, _, label)) in ratios.iter().enumerate() {
        println!("  {label:<42} {:.2}×", median(&mut ratio_rounds[r]));
    }
}
