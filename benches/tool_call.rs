//! Tool-call overhead: a 5-argument sync tool called from model JSON through the SDK
//! (`tool::invoke`: parse with JSON-path errors, inject, call, convert the result) against a
//! hand-written `serde_json::from_str` + direct call of the same function; and the cost of
//! fetching a tool's cached definition.
//!
//! Run: `cargo bench --bench tool_call`

use std::hint::black_box;

use agentry::prelude::*;
use agentry::tool::invoke;
use criterion::{Criterion, criterion_group, criterion_main};
use futures::FutureExt;

#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Class {
    Economy,
    Business,
}

/// Price a flight.
///
/// # Arguments
/// * `from` - Departure airport code.
/// * `to` - Arrival airport code.
/// * `passengers` - Number of travellers.
/// * `class` - Cabin class.
/// * `flexible` - Whether the dates may move.
#[tool]
fn price_flight(from: String, to: String, passengers: u32, class: Class, flexible: bool) -> String {
    let base = match class {
        Class::Economy => 100,
        Class::Business => 400,
    };
    let total = base * passengers + if flexible { 50 } else { 0 };
    format!("{from}-{to}: {total} EUR")
}

/// What a hand-written integration would deserialize into.
#[derive(Deserialize)]
struct HandArgs {
    from: String,
    to: String,
    passengers: u32,
    class: Class,
    flexible: bool,
}

const ARGS: &str = r#"{"from":"CDG","to":"JFK","passengers":2,"class":"business","flexible":true}"#;

fn bench(c: &mut Criterion) {
    let call = ToolCall::new("call_1", "price_flight", ARGS);
    let rt = ToolRuntime::new();
    let mut group = c.benchmark_group("tool_call_5_args");
    group.bench_function("hand_written", |b| {
        b.iter(|| {
            let args: HandArgs = serde_json::from_str(black_box(ARGS)).unwrap();
            black_box(price_flight(
                args.from,
                args.to,
                args.passengers,
                args.class,
                args.flexible,
            ))
        })
    });
    group.bench_function("sdk_invoke", |b| {
        b.iter(|| {
            let out = invoke(&price_flight {}, black_box(&call), &rt)
                .now_or_never()
                .expect("a sync tool completes on first poll")
                .unwrap();
            black_box(out)
        })
    });
    group.finish();

    let _ = <price_flight as Tool>::definition();
    let mut group = c.benchmark_group("tool_definition");
    group.bench_function("cached_definition", |b| {
        b.iter(|| black_box(<price_flight as Tool>::definition()))
    });
    group.bench_function("cached_openai_strict_parameters", |b| {
        let def = <price_flight as Tool>::definition();
        b.iter(|| black_box(def.parameters_for(black_box(Dialect::OpenAiStrict)).is_ok()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
