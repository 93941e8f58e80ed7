//! Randomized checks of the ReAct parser, bounded so they run in `cargo test` on stable:
//! - property: replies built from the pieces models write (markers in their variants, JSON,
//!   fences, blank lines, CRLF, unicode) parse without panicking, and streaming them at random
//!   splits gives exactly the one-shot result with consistent events;
//! - fuzz: arbitrary bytes (lossily decoded) never panic either parser.
//!
//! Seeds are fixed so a failure reproduces; the failing input is printed.

use agentry::protocol::react::{ReactStep, parse};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

mod react_support;
use react_support::streamed;

const PIECES: &[&str] = &[
    "Thought:",
    "thought :",
    "**Thought:**",
    "Action:",
    "ACTION:",
    "**Action:**",
    "Action 1:",
    "Action Input:",
    "action  input :",
    "**Action Input**:",
    "Observation:",
    "Final Answer:",
    "final answer:",
    "### Final Answer:",
    "Act",
    "Actionable:",
    " search",
    " `search`",
    " [lookup]",
    " {\"q\": \"x\"}",
    " {\"a\": {\"b\": [1, 2]}}",
    " {\"s\": \"}{\\\"\"}",
    " {",
    "}",
    "\"",
    "\\",
    " {'q': 1}",
    "```json",
    "```",
    "\n",
    "\n",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    " ",
    "  ",
    "text",
    " more text",
    "é",
    "日本",
    "☕",
    ":",
    "*",
    "#",
    "42",
    " done.",
];

fn noise(rng: &mut StdRng, max: usize) -> String {
    let n = rng.random_range(0..max);
    (0..n)
        .map(|_| PIECES[rng.random_range(0..PIECES.len())])
        .collect()
}

fn pick(rng: &mut StdRng, options: &[&'static str]) -> &'static str {
    options[rng.random_range(0..options.len())]
}

/// Half free-form noise, half the skeleton of a real reply with noise in its gaps.
fn random_reply(rng: &mut StdRng) -> String {
    if rng.random_bool(0.4) {
        return noise(rng, 24);
    }
    let nl = |rng: &mut StdRng| pick(rng, &["\n", "\r\n", "\n\n"]);
    let mut s = String::new();
    if rng.random_bool(0.7) {
        s += pick(rng, &["Thought:", "thought :", "**Thought:**", ""]);
        s += &noise(rng, 4);
        s += nl(rng);
    }
    if rng.random_bool(0.6) {
        s += pick(rng, &["Action:", "ACTION :", "**Action:**", "Action 1:"]);
        s += pick(rng, &[" search", " `search`", " [lookup]", "\nsearch", ""]);
        s += nl(rng);
        s += pick(
            rng,
            &["Action Input:", "action input:", "**Action Input**:"],
        );
        s += pick(
            rng,
            &[
                " {\"q\": \"x\"}",
                " ```json\n{\"q\": 1}\n```",
                " plain words",
                " \"quoted\"",
                " {\"a\": [1, {\"b\": \"}\"}]}",
                " {\"broken\": ",
                "",
            ],
        );
    } else {
        s += pick(
            rng,
            &["Final Answer:", "final answer:", "**Final Answer:**"],
        );
        s += pick(rng, &[" 42", " multi\nline", " {\"json\": true}", ""]);
    }
    if rng.random_bool(0.5) {
        s += nl(rng);
        s += &noise(rng, 6);
    }
    s
}

/// Splits `text` at random char boundaries.
fn random_pieces<'a>(rng: &mut StdRng, text: &'a str) -> Vec<&'a str> {
    let mut cuts: Vec<usize> = (0..rng.random_range(0..6))
        .map(|_| rng.random_range(0..=text.len()))
        .filter(|&i| text.is_char_boundary(i))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut out = Vec::new();
    let mut at = 0;
    for c in cuts {
        out.push(&text[at..c]);
        at = c;
    }
    out.push(&text[at..]);
    out
}

#[test]
fn property_random_replies_stream_like_one_shot() {
    let mut rng = StdRng::seed_from_u64(0x5eed_0014);
    let (mut actions, mut finals, mut errors) = (0, 0, 0);
    for _ in 0..4000 {
        let reply = random_reply(&mut rng);
        let whole = parse(&reply);
        match &whole {
            Ok(r) if matches!(r.step, ReactStep::Action(_)) => actions += 1,
            Ok(_) => finals += 1,
            Err(_) => errors += 1,
        }
        let pieces = random_pieces(&mut rng, &reply);
        assert_eq!(
            streamed(&pieces),
            whole,
            "reply {reply:?} split as {pieces:?}"
        );
    }
    eprintln!("outcomes: {actions} actions, {finals} final answers, {errors} corrections");
    // The generator reaches every outcome, so the invariance is checked on each.
    assert!(
        actions > 200 && finals > 200 && errors > 200,
        "actions {actions}, finals {finals}, errors {errors}"
    );
}

#[test]
fn fuzz_arbitrary_bytes_never_panic() {
    let mut rng = StdRng::seed_from_u64(0xf022);
    let mut bytes = Vec::new();
    for _ in 0..3000 {
        bytes.clear();
        let len = rng.random_range(0..256);
        // Bias toward the bytes the parser cares about.
        const HOT: &[u8] = b"{}[]\"\\:\n\r*`#_ ActionInputFinalAnswerObservationThought";
        for _ in 0..len {
            let b = if rng.random_bool(0.7) {
                HOT[rng.random_range(0..HOT.len())]
            } else {
                rng.random()
            };
            bytes.push(b);
        }
        let text = String::from_utf8_lossy(&bytes);
        let whole = parse(&text);
        let pieces = random_pieces(&mut rng, &text);
        assert_eq!(streamed(&pieces), whole, "input {text:?}");
    }
}
