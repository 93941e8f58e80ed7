//! Streaming partial parse of a ~1 MB structured output delivered in ~10,000 deltas, against
//! one `serde_json::from_str` of the complete text (target: at most 3x).

use std::hint::black_box;

use agent_sdk::output::PartialJson;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};

/// A ~1 MB JSON text shaped like a large structured answer.
fn document() -> String {
    let rows: Vec<Value> = (0..4_400)
        .map(|i| {
            json!({
                "id": i,
                "title": format!("Item number {i} with a reasonably long title"),
                "summary": "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do \
                            eiusmod tempor \"incididunt\" ut labore et dolore magna aliqua.\n",
                "score": (i as f64) * 0.25 - 12.5,
                "ratio": 1.0 / (i as f64 + 1.0),
                "tags": ["alpha", "beta", "gamma"],
                "done": i % 3 == 0,
                "owner": null,
            })
        })
        .collect();
    serde_json::to_string(&json!({ "rows": rows, "total": rows.len() })).unwrap()
}

/// `text` split into `n` deltas at char boundaries.
fn deltas(text: &str, n: usize) -> Vec<&str> {
    let size = text.len().div_ceil(n);
    let mut out = Vec::with_capacity(n);
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

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            (x - y).abs() <= 1e-12 * x.abs().max(1.0)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn bench(c: &mut Criterion) {
    let text = document();
    let parts = deltas(&text, 10_000);
    // The parser must agree with serde_json before it is timed.
    let mut check = PartialJson::new();
    for part in &parts {
        check.push(part).unwrap();
    }
    // (serde_json's default float parser may differ from a correctly rounded parse in the last
    // bit, so floats are compared with a tolerance.)
    assert!(
        same(
            &check.finish().unwrap(),
            &serde_json::from_str::<Value>(&text).unwrap()
        ),
        "the incremental parser disagrees with serde_json"
    );
    eprintln!("document: {} bytes in {} deltas", text.len(), parts.len());

    let mut group = c.benchmark_group("output_partial");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(30);
    group.bench_function("serde_json_from_str_whole", |b| {
        b.iter(|| serde_json::from_str::<Value>(black_box(&text)).unwrap())
    });
    group.bench_function("partial_json_10k_deltas", |b| {
        b.iter(|| {
            let mut p = PartialJson::new();
            for part in &parts {
                p.push(black_box(part)).unwrap();
            }
            p.finish().unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
