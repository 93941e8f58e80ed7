//! A smoke run of every fuzz target in every `cargo test`: the properties the targets check
//! (`fuzz/src/`, the same functions the libFuzzer binaries call) over each target's committed
//! seeds (`fuzz/corpus/<target>/`) and a fixed number of deterministic mutations of them.
//!
//! This is not coverage-guided fuzzing (that is `fuzz/run.sh`, which needs a separate
//! instrumented build too slow for CI); it keeps the targets compiling and their properties
//! true on the seeds, and catches what simple mutations of the recorded bodies find. A failing
//! input is written to `target/fuzz-smoke/<target>-<n>` so that the libFuzzer binary can
//! replay it (`fuzz/target/.../release/<target> target/fuzz-smoke/<target>-<n>`).

#[path = "../fuzz/src/lib.rs"]
mod agentry_fuzz;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// Mutated inputs per target, on top of the seeds.
const MUTATIONS: usize = 2000;

/// Failing inputs reported per target before moving on to the next one.
const MAX_FAILURES: usize = 3;

fn seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no seeds in {}", dir.display());
    files.iter().map(|f| std::fs::read(f).unwrap()).collect()
}

/// xorshift64*: deterministic, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One seed changed a little: bytes flipped, inserted, removed or repeated, a cut, or a
/// splice with another seed (libFuzzer's simplest mutations).
fn mutate(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut data = seeds[rng.below(seeds.len())].clone();
    for _ in 0..1 + rng.below(4) {
        let len = data.len();
        match rng.below(6) {
            0 if len > 0 => {
                let at = rng.below(len);
                data[at] ^= 1 << rng.below(8);
            }
            1 => {
                let at = rng.below(len + 1);
                let byte = b"{}[]\":,\n\\0aZ \xff"[rng.below(14)];
                data.insert(at, byte);
            }
            2 if len > 0 => {
                let at = rng.below(len);
                let end = (at + 1 + rng.below(16)).min(len);
                data.drain(at..end);
            }
            3 if len > 0 => {
                let at = rng.below(len);
                let end = (at + 1 + rng.below(32)).min(len);
                let piece = data[at..end].to_vec();
                let to = rng.below(len + 1);
                data.splice(to..to, piece);
            }
            4 => data.truncate(rng.below(len + 1)),
            _ => {
                let other = &seeds[rng.below(seeds.len())];
                let from = rng.below(other.len() + 1);
                let at = rng.below(len + 1);
                data.truncate(at);
                data.extend_from_slice(&other[from..]);
            }
        }
    }
    data
}

fn failed(target: &str, n: usize, input: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-smoke");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{target}-{n}"));
    std::fs::write(&path, input).unwrap();
    path
}

#[test]
fn every_target_holds_on_its_seeds_and_their_mutations() {
    let mut failures = Vec::new();
    for (target, check) in agentry_fuzz::TARGETS {
        let seeds = seeds(target);
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ target.len() as u64);
        let inputs = seeds
            .iter()
            .cloned()
            .chain((0..MUTATIONS).map(|_| mutate(&mut rng, &seeds)));
        let mut failed_here = 0;
        for (n, input) in inputs.enumerate() {
            if catch_unwind(AssertUnwindSafe(|| check(&input))).is_err() {
                failures.push(format!("{target}: {}", failed(target, n, &input).display()));
                failed_here += 1;
                if failed_here == MAX_FAILURES {
                    break;
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "properties failed on:\n{}",
        failures.join("\n")
    );
}

#[test]
fn a_broken_property_is_reported() {
    // The harness itself: a check that panics on one input is caught and reported.
    let check: fn(&[u8]) = |d| assert!(d != b"boom", "boom");
    assert!(catch_unwind(|| check(b"boom")).is_err());
    assert!(catch_unwind(|| check(b"fine")).is_ok());
    let mut rng = Rng(1);
    let seeds = vec![b"{\"a\":1}".to_vec()];
    let mutated: Vec<_> = (0..50).map(|_| mutate(&mut rng, &seeds)).collect();
    assert!(
        mutated.iter().any(|m| m != &seeds[0]),
        "the mutator changes inputs"
    );
}
