//! ReAct parser throughput on a 1 MB reply, against a plain `str::find` scan (the baseline:
//! what a minimal parser that handles none of the model quirks does).
//!
//! Run: `cargo bench -p agentry --bench react_parse`. Criterion reports MiB/s per input;
//! the ratio to the baseline is what matters.

use std::hint::black_box;
use std::time::Duration;

use agentry::protocol::react::{ReactStep, ReactStream, parse};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Map, Value};

const MB: usize = 1 << 20;

/// A long scratchpad-like thought (about 1 MB of prose and JSON fragments), then the action.
fn thought_then_action() -> String {
    let mut s = String::with_capacity(MB + 256);
    let mut i = 0;
    while s.len() < MB {
        s.push_str(&format!(
            "Thought: step {i}: the last result mentions several candidates worth a look.\n\
             The search for item {i} returned {{\"hits\": [1, 2, 3], \"next\": \"page {i}\"}} so far.\n"
        ));
        i += 1;
    }
    s.push_str("Action: search\nAction Input: {\"query\": \"the final one\", \"limit\": 5}\n");
    s
}

/// A final answer of about 1 MB (every line checked for a stray `Action:`).
fn long_final_answer() -> String {
    let mut s = String::from("Thought: I know it now.\nFinal Answer: ");
    let mut i = 0;
    while s.len() < MB {
        s.push_str(&format!(
            "Line {i} of the report: revenue grew in every region, see table {i}.\n"
        ));
        i += 1;
    }
    s
}

/// The baseline for an action: find the markers, parse the rest of the input line.
fn find_action(t: &str) -> Option<(&str, Map<String, Value>)> {
    let a = t.find("\nAction:")? + "\nAction:".len();
    let rest = &t[a..];
    let nl = rest.find('\n')?;
    let tool = rest[..nl].trim();
    let ai = rest.find("\nAction Input:")? + "\nAction Input:".len();
    let input = &rest[ai..];
    let end = input.find('\n').unwrap_or(input.len());
    serde_json::from_str(input[..end].trim())
        .ok()
        .map(|m| (tool, m))
}

/// The baseline for a final answer: find the marker, reject a later `Action:`.
fn find_final(t: &str) -> Option<&str> {
    let f = t.find("Final Answer:")? + "Final Answer:".len();
    let rest = &t[f..];
    if rest.contains("\nAction:") {
        return None;
    }
    Some(rest.trim())
}

fn bench(c: &mut Criterion) {
    let action = thought_then_action();
    let answer = long_final_answer();
    // Both parsers agree on what they find.
    let Ok(reply) = parse(&action) else { panic!() };
    let ReactStep::Action(a) = &reply.step else {
        panic!()
    };
    assert_eq!(Some(a.tool.as_str()), find_action(&action).map(|x| x.0));
    let Ok(reply) = parse(&answer) else { panic!() };
    assert_eq!(
        reply.step,
        ReactStep::FinalAnswer(find_final(&answer).unwrap().to_string())
    );

    let mut g = c.benchmark_group("react_parse_1mb");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    g.throughput(Throughput::Bytes(action.len() as u64));
    g.bench_function("action/parse", |b| b.iter(|| parse(black_box(&action))));
    g.bench_function("action/stream_64b_deltas", |b| {
        b.iter(|| {
            let mut s = ReactStream::new();
            let bytes = black_box(&action).as_bytes();
            for chunk in bytes.chunks(64) {
                // The generated text is ASCII, so every 64-byte chunk is a str.
                black_box(s.push(std::str::from_utf8(chunk).unwrap()));
            }
            s.finish()
        })
    });
    g.bench_function("action/baseline_find", |b| {
        b.iter(|| find_action(black_box(&action)))
    });
    g.throughput(Throughput::Bytes(answer.len() as u64));
    g.bench_function("final/parse", |b| b.iter(|| parse(black_box(&answer))));
    g.bench_function("final/baseline_find", |b| {
        b.iter(|| find_final(black_box(&answer)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
