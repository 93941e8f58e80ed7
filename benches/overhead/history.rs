//! `--client <mode> --history K`: one conversation of K prior messages, continued by every
//! run. Each client keeps ONE conversation and reuses it: before each run it is cut back to
//! the system message and the K prior messages (no per-run copy of the history on either
//! side), then the question is appended.
//!
//! The prior messages alternate user / assistant text of about 100 characters, built once
//! and deterministically. The SDK is given them without a system message and inserts its
//! instructions on the first (warm-up) run; from then on it gets back its own `messages`
//! (system message first, which it refreshes in place), as a program continuing a
//! conversation would. The baseline sends the same: its system message, then the history.

use std::sync::Arc;
use std::time::Instant;

use agentry::Message;
use agentry::agent::Input;

use crate::args::Mode;
use crate::baseline::{Baseline, OutMessage};
use crate::job;
use crate::measure::{self, Measurement, Phase, Plan};
use crate::sdk::Sdk;

/// The text of prior message `i` (even: the user's, odd: the assistant's), ~100 characters.
pub fn text(i: usize) -> String {
    let who = if i.is_multiple_of(2) {
        "user"
    } else {
        "assistant"
    };
    format!(
        "Message {i:05} from the {who}: the forecast for day {} mentioned light wind, dry air, mild sun.",
        i / 2 + 1
    )
}

/// One client holding one conversation.
enum Conversation {
    Sdk {
        sdk: Arc<Sdk>,
        messages: Vec<Message>,
    },
    Baseline {
        client: Arc<Baseline>,
        messages: Vec<OutMessage>,
    },
}

impl Conversation {
    fn new(mode: Mode, url: &str, k: usize) -> Result<Conversation, String> {
        Ok(match mode {
            Mode::Sdk => Conversation::Sdk {
                sdk: Arc::new(Sdk::new(url).map_err(|e| e.to_string())?),
                messages: (0..k)
                    .map(|i| match i % 2 {
                        0 => Message::user(text(i)),
                        _ => Message::assistant(text(i)),
                    })
                    .collect(),
            },
            Mode::Baseline => {
                let mut messages = Vec::with_capacity(k + 1);
                messages.push(OutMessage::System {
                    content: job::INSTRUCTIONS.to_owned(),
                });
                messages.extend((0..k).map(|i| match i % 2 {
                    0 => OutMessage::User { content: text(i) },
                    _ => OutMessage::Assistant {
                        content: Some(text(i)),
                        tool_calls: Vec::new(),
                    },
                }));
                Conversation::Baseline {
                    client: Arc::new(Baseline::new(url).map_err(|e| e.to_string())?),
                    messages,
                }
            }
        })
    }

    /// One run continuing the conversation; then the conversation is cut back to the system
    /// message and the `k` prior messages.
    async fn turn(&mut self, k: usize) -> Result<String, String> {
        match self {
            Conversation::Sdk { sdk, messages } => {
                let history = std::mem::take(messages);
                let result = sdk
                    .agent()
                    .run(Input::with_history(history, job::QUESTION), ())
                    .await
                    .map_err(|e| e.to_string())?;
                *messages = result.messages.into_vec();
                // The agent put its instructions first.
                messages.truncate(k + 1);
                Ok(result.output)
            }
            Conversation::Baseline { client, messages } => {
                messages.push(OutMessage::User {
                    content: job::QUESTION.to_owned(),
                });
                let answer = client.converse(messages, false).await;
                messages.truncate(k + 1);
                answer.map_err(|e| e.to_string())
            }
        }
    }
}

/// Warm up, then `plan.sequential` runs of the conversation, measured like the sequential
/// phase of the other modes.
pub async fn measure(mode: Mode, url: &str, k: usize, plan: Plan) -> Result<Measurement, String> {
    let mut conversation = Conversation::new(mode, url, k)?;
    for _ in 0..plan.warmup {
        measure::check("warm-up", conversation.turn(k).await).map_err(|e| e.to_string())?;
    }
    let (wall, cpu) = (
        Instant::now(),
        measure::cpu_time().map_err(|e| e.to_string())?,
    );
    for _ in 0..plan.sequential {
        measure::check("sequential", conversation.turn(k).await).map_err(|e| e.to_string())?;
    }
    let sequential = Phase {
        runs: plan.sequential,
        wall_s: wall.elapsed().as_secs_f64(),
        cpu_s: (measure::cpu_time().map_err(|e| e.to_string())? - cpu).as_secs_f64(),
    };
    Ok(Measurement {
        mode: mode.name().to_owned(),
        sequential,
        concurrent: Phase {
            runs: 0,
            wall_s: 0.0,
            cpu_s: 0.0,
        },
        peak_rss_kib: measure::peak_rss_kib(),
        rss_split_kib: measure::rss_split_kib(),
        sockets: measure::open_sockets(),
    })
}
