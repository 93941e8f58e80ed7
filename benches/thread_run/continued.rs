//! A chat continued turn after turn: each side keeps [`THREADS`] conversations and runs
//! [`TURNS`] new turns on each, round-robin, so every conversation grows the same way on every
//! side. The thread sides continue their threads from the agent's decoded-thread cache (a
//! run loads only what is newer than what it holds); the baseline keeps the histories itself,
//! as a program without a checkpointer would, and hands each run its history by hand.

use super::*;

/// Conversations per side (under the agent's cache of 64 threads).
const THREADS: usize = 20;
/// New turns per conversation and round.
const TURNS: usize = 10;
const ROUNDS: usize = 3;

/// Prints CPU time per run of the four sides, continuing conversations, interleaved rounds.
pub(super) fn continued_table(rt: &tokio::runtime::Runtime, name: &str, setup: &Setup) {
    let sides = [
        &setup.plain,
        &setup.memory,
        &setup.sqlite,
        &setup.sqlite_exit,
    ];
    let mut cpu = [std::time::Duration::ZERO; 4];
    for _ in 0..ROUNDS {
        for (i, agent) in sides.into_iter().enumerate() {
            cpu[i] += if i == 0 {
                by_hand(rt, agent)
            } else {
                in_threads(rt, agent)
            };
        }
    }
    let runs = (THREADS * TURNS * ROUNDS) as f64;
    let per = |d: std::time::Duration| d.as_secs_f64() * 1e6 / runs;
    println!(
        "\n{name}, continued: per run, {THREADS} conversations x {TURNS} new turns, {ROUNDS} \
         interleaved rounds (threads from the agent's cache)"
    );
    for (i, label) in SIDES.into_iter().enumerate() {
        println!(
            "  {label:<16} CPU {:>8.1} µs ({:.2}x)",
            per(cpu[i]),
            per(cpu[i]) / per(cpu[0])
        );
    }
}

/// The baseline: the program keeps each conversation and hands it to the run.
fn by_hand(rt: &tokio::runtime::Runtime, agent: &AdderAgent) -> std::time::Duration {
    let mut histories = vec![history(); THREADS];
    let c0 = cpu_now();
    rt.block_on(async {
        for _ in 0..TURNS {
            for kept in &mut histories {
                let input = Input::with_history(std::mem::take(kept), black_box("2 + 3?"));
                let run = agent.run(input, ()).await.unwrap();
                *kept = kept_history(&run.messages);
            }
        }
    });
    cpu_now() - c0
}

/// A thread side: fresh forks of the template (not timed), then the turns.
fn in_threads(rt: &tokio::runtime::Runtime, agent: &AdderAgent) -> std::time::Duration {
    let ids: Vec<String> = (0..THREADS).map(|_| fork(rt, agent)).collect();
    let c0 = cpu_now();
    rt.block_on(async {
        for _ in 0..TURNS {
            for id in &ids {
                let thread = agent.thread(id.as_str());
                black_box(thread.run(black_box("2 + 3?"), ()).await.unwrap());
            }
        }
    });
    cpu_now() - c0
}
