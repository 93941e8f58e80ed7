//! [`trim_messages`]: a conversation cut to a token budget, without a model.

use crate::message::Message;
use crate::middleware::TokenCounter;

/// What [`trim_messages`] keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrimOptions {
    /// The budget, in the counter's tokens.
    pub max_tokens: u64,
    /// Keep the system messages at the start (default: yes).
    pub keep_system: bool,
    /// Keep the first user message, usually the task (default: yes).
    pub keep_first_user: bool,
    /// Keep at most this many of the latest turns (a turn starts at a user message); `None`:
    /// as many as fit.
    pub max_turns: Option<usize>,
}

impl TrimOptions {
    /// A budget of `max_tokens`, keeping the system messages, the first user message and as
    /// many of the latest turns as fit.
    pub fn new(max_tokens: u64) -> Self {
        TrimOptions {
            max_tokens,
            keep_system: true,
            keep_first_user: true,
            max_turns: None,
        }
    }

    /// Whether to keep the first user message.
    pub fn keep_first_user(mut self, keep: bool) -> Self {
        self.keep_first_user = keep;
        self
    }

    /// Whether to keep the system messages at the start.
    pub fn keep_system(mut self, keep: bool) -> Self {
        self.keep_system = keep;
        self
    }

    /// Keep at most the latest `n` turns.
    pub fn last_turns(mut self, n: usize) -> Self {
        self.max_turns = Some(n);
        self
    }
}

/// Why a conversation could not be trimmed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TrimError {
    /// The messages that must be kept (the system messages, the first user message) are
    /// over the budget by themselves.
    #[error("the messages that must be kept take {needed} tokens, over the budget of {budget}")]
    BudgetTooSmall {
        /// The tokens of the messages that must be kept.
        needed: u64,
        /// The budget.
        budget: u64,
    },
}

/// `messages` cut to `options.max_tokens` as `counter` counts them: the system messages at
/// the start and the first user message (unless `options` says otherwise), then the latest
/// messages that fit, starting at a user message. An assistant message's tool calls and
/// their results stay together: both are kept or both dropped, and a result whose call is
/// not kept is dropped. Messages keep their order. A conversation within the budget comes
/// back whole.
///
/// Counts are added up part by part, so a counter that adds framing to each count (see
/// `Tiktoken`) errs on the safe side.
///
/// ```
/// use agentry::history::{TrimOptions, trim_messages};
/// use agentry::middleware::CharCounter;
/// use agentry::{Message, ToolCall};
///
/// let history = vec![
///     Message::system("You check the weather."),
///     Message::user("I am in Paris."),
///     Message::assistant("Noted."),
///     Message::user("Weather?"),
///     Message::assistant_tool_calls(vec![ToolCall::new("c1", "weather", r#"{"city":"Paris"}"#)]),
///     Message::tool_result("c1", "weather", "18°C and sunny"),
///     Message::assistant("18°C and sunny."),
///     Message::user("And tomorrow?"),
/// ];
/// let counter = CharCounter::default();
/// let last_turn = trim_messages(&history, &TrimOptions::new(1_000).last_turns(1), &counter).unwrap();
/// assert_eq!(last_turn.len(), 3); // system, first user, the last question
/// let two_turns = trim_messages(&history, &TrimOptions::new(1_000).last_turns(2), &counter).unwrap();
/// assert_eq!(two_turns[2..], history[3..]); // the call and its result together
/// ```
pub fn trim_messages(
    messages: &[Message],
    options: &TrimOptions,
    counter: &dyn TokenCounter,
) -> Result<Vec<Message>, TrimError> {
    let budget = options.max_tokens;
    if options.max_turns.is_none() && counter.count(messages) <= budget {
        return Ok(messages.to_vec());
    }
    let mut keep = vec![false; messages.len()];
    if options.keep_system {
        for (i, m) in messages.iter().enumerate() {
            if !matches!(m, Message::System { .. }) {
                break;
            }
            keep[i] = true;
        }
    }
    if options.keep_first_user
        && let Some(first) = messages.iter().position(|m| matches!(m, Message::User(_)))
    {
        keep[first] = true;
    }
    let head: Vec<Message> = kept(messages, &keep);
    let needed = if head.is_empty() {
        0
    } else {
        counter.count(&head)
    };
    if needed > budget {
        return Err(TrimError::BudgetTooSmall { needed, budget });
    }

    // The other messages, in blocks that are kept or dropped whole.
    let blocks = blocks(messages, &keep);
    let mut total = needed;
    let mut turns = 0;
    let mut start = blocks.len();
    for (b, block) in blocks.iter().enumerate().rev() {
        let first = &messages[block[0]];
        if matches!(first, Message::Tool(_)) {
            break; // a result whose call is not in the block: its call came before the head
        }
        let starts_turn = matches!(first, Message::User(_));
        if starts_turn && options.max_turns.is_some_and(|max| turns >= max) {
            break;
        }
        let parts: Vec<Message> = block.iter().map(|&i| messages[i].clone()).collect();
        let cost = counter.count(&parts);
        if total + cost > budget {
            break;
        }
        total += cost;
        turns += usize::from(starts_turn);
        start = b;
    }
    // The kept part starts at a user message (a reply without its question is dropped).
    while start < blocks.len() && !matches!(messages[blocks[start][0]], Message::User(_)) {
        start += 1;
    }
    for block in &blocks[start..] {
        for &i in block {
            keep[i] = true;
        }
    }
    Ok(kept(messages, &keep))
}

fn kept(messages: &[Message], keep: &[bool]) -> Vec<Message> {
    messages
        .iter()
        .zip(keep)
        .filter(|(_, k)| **k)
        .map(|(m, _)| m.clone())
        .collect()
}

/// The indices of the messages not already kept, grouped: an assistant message with tool
/// calls and the tool results after it form one block; any other message is a block alone.
fn blocks(messages: &[Message], keep: &[bool]) -> Vec<Vec<usize>> {
    let mut blocks: Vec<Vec<usize>> = Vec::new();
    let mut open_calls = false;
    for (i, m) in messages.iter().enumerate() {
        if keep[i] {
            open_calls = false;
            continue;
        }
        match m {
            Message::Tool(_) if open_calls => {
                if let Some(block) = blocks.last_mut() {
                    block.push(i);
                }
            }
            Message::Assistant(a) if !a.tool_calls.is_empty() => {
                blocks.push(vec![i]);
                open_calls = true;
            }
            _ => {
                blocks.push(vec![i]);
                open_calls = false;
            }
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use crate::middleware::CharCounter;

    /// One token a message, whatever it holds.
    fn per_message(messages: &[Message]) -> u64 {
        messages.len() as u64
    }

    fn conversation() -> Vec<Message> {
        vec![
            Message::system("s"),
            Message::user("task"),
            Message::assistant("a1"),
            Message::user("q2"),
            Message::assistant_tool_calls(vec![
                ToolCall::new("c1", "t", "{}"),
                ToolCall::new("c2", "t", "{}"),
            ]),
            Message::tool_result("c1", "t", "r1"),
            Message::tool_result("c2", "t", "r2"),
            Message::assistant("a2"),
            Message::user("q3"),
            Message::assistant("a3"),
        ]
    }

    #[test]
    fn within_budget_everything_stays() {
        let all = conversation();
        let out = trim_messages(&all, &TrimOptions::new(100), &per_message).unwrap();
        assert_eq!(out, all);
    }

    #[test]
    fn calls_and_results_are_never_split() {
        let all = conversation();
        for budget in 2..=10 {
            let out = trim_messages(&all, &TrimOptions::new(budget), &per_message).unwrap();
            assert!(out.len() as u64 <= budget, "{budget}");
            assert_eq!(out[..2], all[..2], "{budget}");
            if out.len() > 2 && out.len() < all.len() {
                assert!(matches!(out[2], Message::User(_)), "{budget}: {out:?}");
            }
            let calls = out
                .iter()
                .filter(|m| matches!(m, Message::Assistant(a) if !a.tool_calls.is_empty()))
                .count();
            let results = out.iter().filter(|m| matches!(m, Message::Tool(_))).count();
            assert_eq!(results, calls * 2, "{budget}: {out:?}");
        }
        // 7 fit: head (2) + q3, a3 (2) + q2's turn needs 5 more: only the last turn is kept.
        let out = trim_messages(&all, &TrimOptions::new(7), &per_message).unwrap();
        assert_eq!(out.len(), 4);
        let out = trim_messages(&all, &TrimOptions::new(9), &per_message).unwrap();
        assert_eq!(out[2..], all[3..]);
    }

    #[test]
    fn turns_cap_and_options() {
        let all = conversation();
        let out = trim_messages(&all, &TrimOptions::new(100).last_turns(0), &per_message).unwrap();
        assert_eq!(out, all[..2]);
        let out = trim_messages(
            &all,
            &TrimOptions::new(100).last_turns(1).keep_first_user(false),
            &per_message,
        )
        .unwrap();
        assert_eq!(out, [all[0].clone(), all[8].clone(), all[9].clone()]);
        let out = trim_messages(
            &all,
            &TrimOptions::new(100).last_turns(1).keep_system(false),
            &per_message,
        )
        .unwrap();
        assert_eq!(out, [all[1].clone(), all[8].clone(), all[9].clone()]);
    }

    #[test]
    fn a_budget_below_the_head_is_an_error() {
        let all = conversation();
        let err = trim_messages(&all, &TrimOptions::new(1), &per_message).unwrap_err();
        assert_eq!(
            err,
            TrimError::BudgetTooSmall {
                needed: 2,
                budget: 1
            }
        );
        assert!(
            trim_messages(&[], &TrimOptions::new(0), &CharCounter::default())
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn an_orphan_result_is_dropped() {
        // A result without its call (dropped earlier, or never there) is never kept alone.
        let all = vec![
            Message::user("task"),
            Message::tool_result("c0", "t", "orphan"),
            Message::user("q"),
        ];
        let out = trim_messages(&all, &TrimOptions::new(100), &per_message).unwrap();
        assert_eq!(out, all, "within the budget nothing is touched");
        let out = trim_messages(&all, &TrimOptions::new(2), &per_message).unwrap();
        assert_eq!(out, [all[0].clone(), all[2].clone()]);
    }
}
