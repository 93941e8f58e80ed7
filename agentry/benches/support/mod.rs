//! Shared by the benches: reading criterion's estimates back to print ratios.

#![allow(dead_code)]

pub mod thread;

use std::path::PathBuf;

/// Where criterion writes its results.
fn criterion_home() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("criterion");
    }
    // `cargo bench` runs a bench in its package's directory; criterion writes to the
    // workspace's target directory.
    let here = PathBuf::from("target").join("criterion");
    let workspace = PathBuf::from("..").join("target").join("criterion");
    if !here.exists() && workspace.exists() {
        return workspace;
    }
    here
}

/// The median estimate (ns per iteration) criterion just measured for `group/id`.
pub fn median_ns(group: &str, id: &str) -> Option<f64> {
    let path = criterion_home()
        .join(group)
        .join(id)
        .join("new")
        .join("estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["median"]["point_estimate"].as_f64()
}

/// Prints `ours / baseline` for two ids of a group.
pub fn print_ratio(group: &str, ours: &str, baseline: &str, target: f64, what: &str) {
    match (median_ns(group, ours), median_ns(group, baseline)) {
        (Some(a), Some(b)) => {
            let ratio = a / b;
            println!(
                "RATIO {group}: {ours} / {baseline} = {ratio:.3}x ({what}; target <= {target}x: {})",
                if ratio <= target { "met" } else { "NOT met" }
            );
        }
        _ => println!("RATIO {group}: estimates not found (was the group filtered out?)"),
    }
}

/// `a`'s cost over `b`'s, measured in alternation (`rounds` rounds of `iters` calls each,
/// the order flipped every round) so that load from other processes hits both alike; the
/// median of the per-round ratios. `clock` is wall time or thread CPU time.
pub fn interleaved_ratio(
    mut a: impl FnMut(),
    mut b: impl FnMut(),
    clock: fn() -> std::time::Duration,
    rounds: usize,
    iters: usize,
) -> f64 {
    let time = |f: &mut dyn FnMut()| {
        let start = clock();
        for _ in 0..iters {
            f();
        }
        (clock() - start).as_secs_f64()
    };
    let mut ratios: Vec<f64> = (0..rounds)
        .map(|round| {
            if round % 2 == 0 {
                let ta = time(&mut a);
                ta / time(&mut b)
            } else {
                let tb = time(&mut b);
                time(&mut a) / tb
            }
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

/// Wall-clock time since the first call, as a `Duration` (for [`interleaved_ratio`]).
pub fn wall() -> std::time::Duration {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed()
}
