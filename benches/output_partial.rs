//! Streaming structured output, timed end to end.
//!
//! 1. `structured().stream()` — the whole path: a scripted model streaming the answer as
//!    deltas of 64 bytes, the incremental parse, a partial value per delta, the final parse
//!    and validation — at 2,000 / 4,000 / 8,000 deltas, against a hand-written baseline in the
//!    same run (the same deltas pushed through `PartialJson`, reading the value after each,
//!    then one `serde_json::from_str` of the whole text into the type). The growth from 2k to
//!    8k deltas is reported; linear is 4.0x (target: at most 4.5x).
//! 2. The parser alone: a ~1 MB answer in 10,000 deltas against one `serde_json::from_str`
//!    of the complete text (target: at most 3x).
//!
//! Run: `cargo bench --bench output_partial` (`OUTPUT_PARTIAL_RUNS` sets the runs per case,
//! default 15). The fastest run of each case is reported: on a shared machine the other runs
//! measure the neighbours, not this code.

use std::hint::black_box;
use std::time::{Duration, Instant};

use agentry::model::StreamEvent;
use agentry::output::{OutputMode, PartialJson, StructuredEvent, StructuredExt};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use futures::StreamExt;
use serde_json::{Value, json};

/// One row of the streamed answer.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct Row {
    /// Position.
    id: u64,
    /// A title.
    title: String,
    /// A longer text.
    summary: String,
    /// A score.
    score: f64,
    /// Labels.
    tags: Vec<String>,
    /// Whether it is done.
    done: bool,
}

/// A large structured answer.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct Report {
    /// The rows.
    rows: Vec<Row>,
}

/// A JSON text of at least `bytes` bytes, shaped like a large structured answer.
fn report_text(bytes: usize) -> String {
    let mut rows = Vec::new();
    let mut len = 0;
    let mut i = 0u64;
    while len < bytes {
        let row = json!({
            "id": i,
            "title": format!("Item number {i} with a reasonably long title"),
            "summary": "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do \
                        eiusmod tempor \"incididunt\" ut labore et dolore magna aliqua.\n",
            "score": (i as f64) * 0.25 - 12.5,
            "tags": ["alpha", "beta", "gamma"],
            "done": i.is_multiple_of(3),
        });
        len += row.to_string().len() + 1;
        rows.push(row);
        i += 1;
    }
    serde_json::to_string(&json!({ "rows": rows })).unwrap()
}

/// `text` in deltas of about `size` bytes, split at char boundaries.
fn deltas(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::with_capacity(text.len() / size + 1);
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[start..end]);
        start = end;
    }
    out
}

fn runs() -> usize {
    std::env::var("OUTPUT_PARTIAL_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(15)
}

/// The fastest of `runs` timings of `f` (after one warm-up run).
fn fastest(runs: usize, mut f: impl FnMut() -> Duration) -> Duration {
    f();
    (0..runs).map(|_| f()).min().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The whole `structured().stream()` path over `parts`; returns the time and the partial
/// values seen.
fn time_stream(rt: &tokio::runtime::Runtime, parts: &[&str]) -> (Duration, usize) {
    let events: Vec<_> = parts
        .iter()
        .map(|p| {
            Ok(StreamEvent::TextDelta {
                text: p.to_string(),
            })
        })
        .collect();
    let model = ScriptedModel::new([Turn::chunks(events)]);
    rt.block_on(async {
        let started = Instant::now();
        let mut stream = model
            .structured::<Report>()
            .mode(OutputMode::Native)
            .stream(vec![Message::user("report")]);
        let mut partials = 0;
        let mut rows = 0;
        while let Some(event) = stream.next().await {
            match event.expect("the scripted answer is valid") {
                StructuredEvent::Partial(p) => {
                    partials += 1;
                    black_box(p.get("rows"));
                }
                StructuredEvent::Done { value, .. } => rows = value.rows.len(),
                StructuredEvent::Retry(a) => panic!("unexpected retry: {}", a.error),
            }
        }
        assert!(rows > 0);
        (started.elapsed(), partials)
    })
}

/// The hand-written baseline: the same deltas through the parser, the value read after each,
/// then one typed parse of the whole text.
fn time_baseline(text: &str, parts: &[&str]) -> Duration {
    let started = Instant::now();
    let mut parser = PartialJson::new();
    for part in parts {
        if parser.push(black_box(part)).unwrap() {
            black_box(parser.value().map(|v| v.get("rows")));
        }
    }
    let report: Report = serde_json::from_str(black_box(text)).unwrap();
    black_box(report.rows.len());
    started.elapsed()
}

fn stream_growth(rt: &tokio::runtime::Runtime, runs: usize) {
    println!("structured().stream(), deltas of 64 bytes, fastest of {runs} runs:");
    println!(
        "  {:>7}  {:>9}  {:>12}  {:>12}  {:>7}",
        "deltas", "bytes", "stream ms", "baseline ms", "ratio"
    );
    let mut results = Vec::new();
    for n in [2_000usize, 4_000, 8_000] {
        let text = report_text(n * 64);
        let parts = deltas(&text, 64);
        let parts = &parts[..parts.len().min(n)];
        let text = parts.concat();
        let text = text.as_str();
        // Whole rows only: cut after the last complete row and close the document.
        let cut = text.rfind("},{").map_or(text.len(), |i| i + 1);
        let doc = format!("{}]}}", &text[..cut]);
        let parts = deltas(&doc, 64);
        let mut partials = 0;
        let stream = fastest(runs, || {
            let (t, p) = time_stream(rt, &parts);
            partials = p;
            t
        });
        let baseline = fastest(runs, || time_baseline(&doc, &parts));
        println!(
            "  {:>7}  {:>9}  {:>12.2}  {:>12.2}  {:>6.2}x",
            parts.len(),
            doc.len(),
            ms(stream),
            ms(baseline),
            ms(stream) / ms(baseline)
        );
        assert!(partials > 0);
        results.push((stream, baseline));
    }
    let growth = ms(results[2].0) / ms(results[0].0);
    let base_growth = ms(results[2].1) / ms(results[0].1);
    println!(
        "  growth 8k / 2k deltas: stream {growth:.2}x, baseline {base_growth:.2}x \
         (linear: 4.00x; target for the stream: at most 4.50x)"
    );
}

fn parser_alone(runs: usize) {
    let text = report_text(1_000_000);
    let size = text.len().div_ceil(10_000);
    let parts = deltas(&text, size);
    let mut check = PartialJson::new();
    for part in &parts {
        check.push(part).unwrap();
    }
    let parsed = check.finish().unwrap();
    let whole: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        parsed["rows"].as_array().map(Vec::len),
        whole["rows"].as_array().map(Vec::len),
        "the incremental parser disagrees with serde_json"
    );
    let serde = fastest(runs, || {
        let started = Instant::now();
        black_box(serde_json::from_str::<Value>(black_box(&text)).unwrap());
        started.elapsed()
    });
    let partial = fastest(runs, || {
        let started = Instant::now();
        let mut p = PartialJson::new();
        for part in &parts {
            p.push(black_box(part)).unwrap();
        }
        black_box(p.finish().unwrap());
        started.elapsed()
    });
    println!(
        "parser alone, {} bytes in {} deltas: PartialJson {:.2} ms, serde_json::from_str {:.2} ms, \
         ratio {:.2}x (target: at most 3x)",
        text.len(),
        parts.len(),
        ms(partial),
        ms(serde),
        ms(partial) / ms(serde)
    );
}

fn main() {
    // `cargo test --benches` runs bench binaries with `--bench` absent; keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 1 } else { runs() };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    stream_growth(&rt, runs);
    parser_alone(runs);
}
