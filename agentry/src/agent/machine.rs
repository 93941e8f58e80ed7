//! The loop's decisions, without I/O: given what just happened, what to do next.
//!
//! The async driver asks the [`Machine`] before each model request, after each answer and
//! after each tool batch, and does what it is told. Everything here is synchronous and
//! deterministic, so each rule is tested directly.

use std::time::Duration;

use crate::cost::Cost;
use crate::message::Message;
use crate::output::OutputParse;
pub(super) use crate::run::Counters;
use crate::run::{Limit, LimitPolicy, RunErrorKind, RunPolicy, StopReason, ToolErrorPolicy};
use crate::tool::{ToolCallError, ToolOutput};
use crate::usage::Usage;

/// The state of one run's decisions.
#[derive(Debug)]
pub(super) struct Machine {
    policy: RunPolicy,
    turns: u32,
    usage: Usage,
    cost: Cost,
    /// Consecutive failures per tool name; few tools, so a vector beats a map.
    tool_failures: Vec<(String, u32)>,
    output_failures: u32,
    finalizing: Option<Limit>,
}

/// What to do before the next model request.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Next {
    /// Make request number `turn` (1-based), offering the tools.
    Request {
        /// The request's number.
        turn: u32,
    },
    /// A limit was reached: make one last request without tools, asking for a final answer.
    FinalRequest {
        /// The request's number.
        turn: u32,
        /// The limit that was reached.
        limit: Limit,
        /// The message to append, asking for the final answer.
        prompt: String,
    },
    /// Stop the run.
    Stop(Stop),
}

/// Why the run stops before a request (kept small and comparable for tests).
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// A limit was reached and the policy is to fail.
    Limit(Limit),
}

/// What to do with a model's answer.
#[derive(Debug)]
pub(super) enum AfterResponse<T> {
    /// The run is over.
    Finish {
        /// The final answer.
        output: T,
        /// Why the run ended.
        stop_reason: StopReason,
    },
    /// Run the answer's tool calls.
    RunTools,
    /// The answer was invalid: append these messages and ask again.
    Correct(Vec<Message>),
    /// Stop the run with this error.
    Fail(RunErrorKind),
}

/// What to do after a batch of tool calls.
#[derive(Debug)]
pub(super) enum AfterTools {
    /// Ask the model again.
    Continue,
    /// End the run with the output of the call at this index of the batch (a `return_direct`
    /// tool that succeeded).
    ReturnDirect(usize),
    /// Stop the run with this error.
    Fail(RunErrorKind),
}

/// One call's outcome, as the machine sees it.
#[derive(Debug)]
pub(super) struct CallOutcome<'a> {
    /// The tool name the model used.
    pub tool: &'a str,
    /// Whether the tool is `return_direct`.
    pub return_direct: bool,
    /// The call's result.
    pub result: &'a Result<ToolOutput, ToolCallError>,
}

impl Machine {
    /// A run that has not started.
    pub(super) fn new(policy: RunPolicy) -> Self {
        Machine {
            policy,
            turns: 0,
            usage: Usage::default(),
            cost: Cost::ZERO,
            tool_failures: Vec::new(),
            output_failures: 0,
            finalizing: None,
        }
    }

    /// Usage so far.
    pub(super) fn usage(&self) -> Usage {
        self.usage
    }

    /// The counters, as a value that serializes (part of a run snapshot).
    pub(super) fn counters(&self) -> Counters {
        Counters {
            turns: self.turns,
            usage: self.usage,
            tool_failures: self.tool_failures.clone(),
            output_failures: self.output_failures,
            cost: self.cost,
        }
    }

    /// A machine that goes on from `counters` (a run resumed from a snapshot).
    pub(super) fn from_counters(policy: RunPolicy, counters: Counters) -> Self {
        Machine {
            policy,
            turns: counters.turns,
            usage: counters.usage,
            cost: counters.cost,
            tool_failures: counters.tool_failures,
            output_failures: counters.output_failures,
            finalizing: None,
        }
    }

    /// Whether the current request is the last one, asked without tools at a limit.
    pub(super) fn is_finalizing(&self) -> bool {
        self.finalizing.is_some()
    }

    /// Counts an answer's usage without deciding anything (an answer a middleware set aside).
    pub(super) fn add_usage(&mut self, usage: Usage) {
        self.usage += usage;
    }

    /// Counts what an answer cost (for [`Limits::max_cost`](super::Limits::max_cost)).
    pub(super) fn add_cost(&mut self, cost: Cost) {
        self.cost += cost;
    }

    /// Decides whether the next request may be made, `elapsed` after the run started.
    pub(super) fn before_request(&mut self, elapsed: Duration) -> Next {
        let limits = self.policy.limits;
        let reached = if let Some(limit) = self.finalizing {
            // The final request was answered with more tool calls; never loop again.
            Some(limit)
        } else if self.turns >= limits.max_turns {
            Some(Limit::Turns {
                max: limits.max_turns,
            })
        } else if let Some(max) = limits.max_execution_time.filter(|max| elapsed >= *max) {
            Some(Limit::Time { max })
        } else {
            limits
                .max_total_tokens
                .filter(|max| self.usage.total_tokens() >= *max)
                .map(|max| Limit::Tokens {
                    max,
                    used: self.usage.total_tokens(),
                })
                .or_else(|| {
                    limits
                        .max_cost
                        .filter(|max| self.cost >= *max)
                        .map(|max| Limit::Cost {
                            max,
                            used: self.cost,
                        })
                })
        };
        let Some(limit) = reached else {
            self.turns += 1;
            return Next::Request { turn: self.turns };
        };
        if self.finalizing.is_some() || self.policy.on_limit == LimitPolicy::Error {
            tracing::debug!(%limit, "run stopped at a limit");
            return Next::Stop(Stop::Limit(limit));
        }
        tracing::debug!(%limit, "limit reached; asking for a final answer");
        self.finalizing = Some(limit);
        self.turns += 1;
        Next::FinalRequest {
            turn: self.turns,
            limit,
            prompt: final_answer_prompt(limit),
        }
    }

    /// Decides what an answer means, given its usage and how the output spec parsed it.
    pub(super) fn after_response<T>(
        &mut self,
        usage: Usage,
        parse: OutputParse<T>,
    ) -> AfterResponse<T> {
        self.usage += usage;
        match parse {
            OutputParse::Done(output) => AfterResponse::Finish {
                output,
                stop_reason: match self.finalizing {
                    Some(limit) => StopReason::LimitReached { limit },
                    None => StopReason::FinalAnswer,
                },
            },
            OutputParse::Refused(reason) => AfterResponse::Fail(RunErrorKind::Refused(reason)),
            OutputParse::Retry { feedback, error } => {
                self.output_failures += 1;
                if self.output_failures > self.policy.max_output_retries
                    || self.finalizing.is_some()
                {
                    AfterResponse::Fail(RunErrorKind::OutputRetriesExhausted {
                        attempts: self.output_failures,
                        error,
                    })
                } else {
                    tracing::debug!(%error, attempt = self.output_failures, "invalid final answer; asking for a correction");
                    crate::telemetry::spans::reask(self.output_failures);
                    AfterResponse::Correct(feedback)
                }
            }
            OutputParse::Continue => match self.finalizing {
                Some(limit) => AfterResponse::Fail(RunErrorKind::LimitExceeded(limit)),
                None => AfterResponse::RunTools,
            },
        }
    }

    /// Decides what a batch of tool results means, in the order the model emitted the calls.
    ///
    /// A call that stopped at a question is neither a success nor a failure (it runs again
    /// when the run is resumed), and a batch with one does not end the run with a
    /// `return_direct` output: the run pauses after the answer's calls.
    pub(super) fn after_tools(&mut self, outcomes: &[CallOutcome<'_>]) -> AfterTools {
        let mut direct = None;
        let mut asked = false;
        for (index, outcome) in outcomes.iter().enumerate() {
            match outcome.result {
                Err(ToolCallError::Interrupted { .. }) => asked = true,
                Ok(_) => {
                    self.tool_failures.retain(|(name, _)| name != outcome.tool);
                    if outcome.return_direct && direct.is_none() {
                        direct = Some(index);
                    }
                }
                Err(ToolCallError::Blocked {
                    guardrail, reason, ..
                }) => {
                    return AfterTools::Fail(RunErrorKind::Guardrail {
                        name: guardrail.clone(),
                        reason: reason.clone(),
                    });
                }
                Err(error) => {
                    if error.is_tool_fault()
                        && self.policy.tool_errors == ToolErrorPolicy::Propagate
                    {
                        return AfterTools::Fail(RunErrorKind::Tool(error.clone()));
                    }
                    let failures = self.record_failure(outcome.tool);
                    if failures > self.policy.max_tool_retries {
                        return AfterTools::Fail(RunErrorKind::ToolRetriesExhausted {
                            tool: outcome.tool.to_string(),
                            failures,
                            last: error.clone(),
                        });
                    }
                }
            }
        }
        match direct {
            Some(index) if !asked => AfterTools::ReturnDirect(index),
            _ => AfterTools::Continue,
        }
    }

    fn record_failure(&mut self, tool: &str) -> u32 {
        if let Some((_, n)) = self.tool_failures.iter_mut().find(|(name, _)| name == tool) {
            *n += 1;
            *n
        } else {
            self.tool_failures.push((tool.to_string(), 1));
            1
        }
    }
}

/// The message that asks for a final answer when a limit is reached.
pub(super) fn final_answer_prompt(limit: Limit) -> String {
    format!(
        "You have reached the {limit}. Do not call any more tools: give your final answer now, \
         using the information you already have."
    )
}
