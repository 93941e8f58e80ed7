//! Validation of a 20-field structured output: schema (typed deserialization with JSON paths),
//! constraints and a custom validator, in ns per value.

use std::hint::black_box;

use agentry::output::{StructuredOutput, parse_output};
use agentry::prelude::{Deserialize, JsonSchema};
use criterion::{Criterion, criterion_group, criterion_main};

/// A 20-field record with constraints on most fields.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
#[output(validate = dates_in_order)]
struct Record {
    #[output(length(min = 1, max = 80))]
    title: String,
    #[output(length(max = 400))]
    summary: String,
    #[output(pattern = "^[A-Z]{3}$")]
    currency: String,
    #[output(pattern = r"^[a-z0-9._-]+@[a-z0-9.-]+$")]
    email: String,
    #[output(range(min = 0, max = 1000000))]
    price: f64,
    #[output(range(min = 0, max = 100))]
    discount: f64,
    #[output(range(min = 1, max = 10))]
    rating: u8,
    #[output(range(min = 0))]
    stock: u32,
    #[output(range(min = 1900, max = 2100))]
    start_year: u16,
    #[output(range(min = 1900, max = 2100))]
    end_year: u16,
    #[output(length(min = 1, max = 10))]
    tags: Vec<String>,
    #[output(length(max = 5))]
    related: Vec<u32>,
    active: bool,
    featured: bool,
    #[output(length(min = 2, max = 2))]
    country: String,
    city: String,
    #[output(range(min = -90, max = 90))]
    lat: f64,
    #[output(range(min = -180, max = 180))]
    lon: f64,
    note: Option<String>,
    #[output(range(min = 0, max = 5))]
    priority: Option<u8>,
}

fn dates_in_order(r: &Record) -> Result<(), String> {
    if r.start_year <= r.end_year {
        Ok(())
    } else {
        Err("start_year is after end_year".into())
    }
}

const JSON: &str = r#"{"title":"Trail shoes","summary":"Light shoes for rocky trails.","currency":"EUR",
"email":"shop@example.com","price":129.9,"discount":15,"rating":8,"stock":42,"start_year":2021,
"end_year":2024,"tags":["outdoor","running"],"related":[1,2,3],"active":true,"featured":false,
"country":"FR","city":"Lyon","lat":45.76,"lon":4.83,"note":null,"priority":2}"#;

fn bench(c: &mut Criterion) {
    let record: Record = parse_output(JSON, false).expect("the sample is valid");
    let mut group = c.benchmark_group("output_validate_20_fields");
    group.bench_function("serde_json_from_str_only", |b| {
        b.iter(|| serde_json::from_str::<Record>(black_box(JSON)).unwrap())
    });
    group.bench_function("constraints_and_validator_only", |b| {
        b.iter(|| black_box(&record).validate().unwrap())
    });
    group.bench_function("parse_output_schema_constraints_validator", |b| {
        b.iter(|| parse_output::<Record>(black_box(JSON), false).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
