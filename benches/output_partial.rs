//! Streaming structured output, timed end to end against hand-written baselines.
//!
//! 1. `model.structured::<Report>().stream()`: a scripted model streaming the answer as
//!    deltas of 64 bytes, the incremental parse, a partial value per delta (each read), the
//!    final parse and validation. Its baseline, written by hand: the same deltas through
//!    `PartialJson`, the value read after each, one `serde_json::from_str` of the whole text.
//! 2. The agent-level partial stream: an agent with `output = Report` (native mode) streamed
//!    with `agent.stream`, every `AgentEvent::PartialOutput` read, then the run's output. Its
//!    baseline, written by hand: the scripted model's event stream read directly, the text
//!    deltas through `PartialJson`, the value read after each, one typed parse of the answer.
//! 3. The parser alone: a ~1 MB answer in 10,000 deltas against one `serde_json::from_str`
//!    of the complete text (target: at most 3x).
//!
//! Cases 1 and 2 run at 2,000 / 4,000 / 8,000 deltas, all cases interleaved in each round;
//! each figure is the median over rounds, each ratio the median of per-round ratios. The
//! growth from 2,000 to 8,000 deltas is what the stream adds per delta as the text grows:
//! linear is 4.0x, the target at most 4.2x for both SDK paths.
//!
//! Modes (`cargo bench --bench output_partial -- <flags>`):
//! - no flag: wall time, `OUTPUT_PARTIAL_RUNS` rounds (default 7);
//! - `--instructions`: instructions per run under callgrind (valgrind), each case at 2,000
//!   and 8,000 deltas, differenced to cancel start-up and input building:
//!   (I(2 runs) - I(1 run));
//! - `--case NAME --deltas N [--repeat R]`: one case R times and nothing else (what
//!   `--instructions` runs under valgrind; NAME is `stream`, `baseline`, `agent` or
//!   `agent-baseline`).

#[path = "output_partial/cases.rs"]
mod cases;

use std::hint::black_box;
use std::process::Command;
use std::time::{Duration, Instant};

use agentry::output::PartialJson;
use cases::{Case, Input};
use serde_json::Value;

const SIZES: [usize; 3] = [2_000, 4_000, 8_000];
const TARGET_GROWTH: f64 = 4.2;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn rounds() -> usize {
    std::env::var("OUTPUT_PARTIAL_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(7)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// One timed run of `case`: the time and the partial values seen.
fn timed(rt: &tokio::runtime::Runtime, case: Case, input: &Input) -> (f64, usize) {
    let mut elapsed = Duration::ZERO;
    let partials = cases::run(rt, case, input, &mut |job| {
        let started = Instant::now();
        let partials = job();
        elapsed = started.elapsed();
        partials
    });
    (ms(elapsed), partials)
}

fn wall_time(rounds: usize) {
    let rt = runtime();
    let inputs: Vec<Input> = SIZES.iter().map(|&n| Input::new(n)).collect();
    // times[size][case][round]
    let mut times = vec![vec![Vec::new(); Case::ALL.len()]; SIZES.len()];
    for input in &inputs {
        for case in Case::ALL {
            let (_, partials) = timed(&rt, case, input); // warm-up
            assert!(partials > 0, "{} saw no partial value", case.name());
        }
    }
    for _ in 0..rounds {
        for (s, input) in inputs.iter().enumerate() {
            for (c, case) in Case::ALL.into_iter().enumerate() {
                times[s][c].push(timed(&rt, case, input).0);
            }
        }
    }
    println!(
        "streamed structured output, deltas of 64 bytes, median of {rounds} interleaved rounds:"
    );
    println!(
        "  {:<15} {:>7} {:>9} {:>10} {:>9}",
        "case", "deltas", "bytes", "ms", "/ hand"
    );
    for (c, case) in Case::ALL.into_iter().enumerate() {
        let b = Case::ALL
            .iter()
            .position(|&x| x == case.baseline())
            .unwrap();
        for (s, input) in inputs.iter().enumerate() {
            let ratio = median(
                times[s][c]
                    .iter()
                    .zip(&times[s][b])
                    .map(|(t, base)| t / base)
                    .collect(),
            );
            println!(
                "  {:<15} {:>7} {:>9} {:>10.2} {:>8.2}x",
                case.name(),
                input.parts.len(),
                input.doc.len(),
                median(times[s][c].clone()),
                ratio
            );
        }
    }
    println!(
        "  growth 8k / 2k deltas (median of per-round ratios; linear 4.00x, target <= {TARGET_GROWTH:.2}x for the SDK paths):"
    );
    for (c, case) in Case::ALL.into_iter().enumerate() {
        let growth = median(
            times[2][c]
                .iter()
                .zip(&times[0][c])
                .map(|(big, small)| big / small)
                .collect(),
        );
        println!("    {:<15} {growth:.2}x", case.name());
    }
}

/// Instructions of one `--case` child under callgrind.
fn instructions_of(case: Case, deltas: usize, repeat: usize) -> u64 {
    let exe = std::env::current_exe().expect("the bench's own path");
    let out = std::env::temp_dir().join(format!(
        "output-partial-{}-{}-{deltas}-{repeat}.callgrind",
        std::process::id(),
        case.name()
    ));
    let status = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("-q")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(&exe)
        .args(["--case", case.name(), "--deltas"])
        .arg(deltas.to_string())
        .arg("--repeat")
        .arg(repeat.to_string())
        .status()
        .expect("valgrind is installed (apt-get install valgrind)");
    assert!(status.success(), "the callgrind child failed");
    let text = std::fs::read_to_string(&out).expect("callgrind's output file");
    let _ = std::fs::remove_file(&out);
    let find = |prefix: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(prefix))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
    };
    find("totals:")
        .or_else(|| find("summary:"))
        .expect("a callgrind total")
}

fn instructions() {
    println!("instructions per run (callgrind), I(2 runs) - I(1 run), deltas of 64 bytes:");
    println!(
        "  {:<15} {:>14} {:>14} {:>8} {:>9} {:>9}",
        "case", "2,000 deltas", "8,000 deltas", "growth", "/hand 2k", "/hand 8k"
    );
    let mut per_run = Vec::new();
    for case in Case::ALL {
        let counts: Vec<u64> = [SIZES[0], SIZES[2]]
            .iter()
            .map(|&n| instructions_of(case, n, 2).saturating_sub(instructions_of(case, n, 1)))
            .collect();
        per_run.push((case, counts));
    }
    let of = |case: Case| {
        per_run
            .iter()
            .find(|(c, _)| *c == case)
            .map(|(_, counts)| counts.clone())
            .unwrap()
    };
    for (case, counts) in &per_run {
        let base = of(case.baseline());
        println!(
            "  {:<15} {:>14} {:>14} {:>7.2}x {:>8.2}x {:>8.2}x",
            case.name(),
            counts[0],
            counts[1],
            counts[1] as f64 / counts[0] as f64,
            counts[0] as f64 / base[0] as f64,
            counts[1] as f64 / base[1] as f64,
        );
    }
}

/// `--case NAME --deltas N --repeat R`: the case R times, for a profiler.
fn one_case(args: &[String]) {
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .map(String::as_str)
    };
    let case = arg("--case")
        .and_then(Case::parse)
        .expect("--case stream|baseline|agent|agent-baseline");
    let deltas = arg("--deltas")
        .and_then(|n| n.parse().ok())
        .expect("--deltas N");
    let repeat: usize = arg("--repeat").and_then(|n| n.parse().ok()).unwrap_or(1);
    let rt = runtime();
    let input = Input::new(deltas);
    for _ in 0..repeat {
        let partials = cases::run(&rt, case, &input, &mut |job| job());
        assert!(partials > 0);
    }
}

fn parser_alone(runs: usize) {
    let text = cases::text_of(1_000_000);
    let size = text.len().div_ceil(10_000);
    let parts = cases::deltas(&text, size);
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
    let mut ratios = Vec::new();
    let (mut partial_ms, mut serde_ms) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let started = Instant::now();
        black_box(serde_json::from_str::<Value>(black_box(&text)).unwrap());
        let serde = ms(started.elapsed());
        let started = Instant::now();
        let mut p = PartialJson::new();
        for part in &parts {
            p.push(black_box(part)).unwrap();
        }
        black_box(p.finish().unwrap());
        let partial = ms(started.elapsed());
        ratios.push(partial / serde);
        partial_ms.push(partial);
        serde_ms.push(serde);
    }
    println!(
        "parser alone, {} bytes in {} deltas: PartialJson {:.2} ms, serde_json::from_str {:.2} ms, \
         ratio {:.2}x (median of {runs} paired rounds; target: at most 3x)",
        text.len(),
        parts.len(),
        median(partial_ms),
        median(serde_ms),
        median(ratios)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--case") {
        return one_case(&args);
    }
    if args.iter().any(|a| a == "--instructions") {
        return instructions();
    }
    // `cargo test --benches` runs bench binaries with `--bench` absent; keep that quick.
    let quick = !args.iter().any(|a| a == "--bench");
    let rounds = if quick { 1 } else { rounds() };
    wall_time(rounds);
    parser_alone(rounds);
}
