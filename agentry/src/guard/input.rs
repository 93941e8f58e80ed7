//! The input check: every input guardrail on the user's message, concurrently, raced against
//! the first model request ([`race`]).
//!
//! The driver only awaits [`race`]; what a block or a rewrite does to the run is decided in
//! `RunCore::input_stopped` (`agent/core.rs`).

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;

use futures::future::{BoxFuture, Either};
use futures::stream::{FuturesUnordered, StreamExt};

use super::GuardReason;
use super::Verdict;
use super::set::DynInput;
use crate::message::{ContentBlock, Message};

/// What the input guardrails decided, when it is not a pass.
#[derive(Debug)]
pub(crate) enum Stopped {
    /// A guardrail blocked: the run ends.
    Block {
        /// The guardrail's name.
        name: String,
        /// Its reason.
        reason: GuardReason,
    },
    /// A guardrail rewrote the message: the request is made again with this text.
    Rewrite(String),
}

/// How the race of the check and the first request ended.
pub(crate) enum Raced<A> {
    /// Every guardrail passed; the request's outcome.
    Passed(A),
    /// The guardrails stopped the request: `answer` is `None` when the request was cancelled
    /// in flight (its future dropped), `Some` when it had finished first.
    Stopped {
        /// What the guardrails decided.
        verdict: Stopped,
        /// The request's outcome, if it finished before the check.
        answer: Option<A>,
    },
}

/// The pending check of a run's input, started by [`check`].
pub(crate) type InputCheck<'a> = BoxFuture<'a, Option<Stopped>>;

/// The check of the last user message in `messages` by `guards`, all at once; `None` when
/// there is nothing to check (no guardrails, or no user message).
///
/// The check ends at the first block (the guardrails still running are dropped), or when all
/// have answered. All see the message as the user wrote it; when several rewrite it, the
/// rewrite of the guardrail declared first is used (the others rewrote the same original and
/// cannot be combined with it), and the rest are logged.
pub(crate) fn check<'a, C: Send + Sync + 'static>(
    guards: &'a [Arc<dyn DynInput<C>>],
    messages: &[Message],
    context: Arc<C>,
) -> Option<InputCheck<'a>> {
    if guards.is_empty() {
        return None;
    }
    let message = messages.iter().rev().find_map(|m| match m {
        Message::User(_) => Some(m.text()),
        _ => None,
    })?;
    Some(Box::pin(async move {
        let mut pending: FuturesUnordered<_> = guards
            .iter()
            .enumerate()
            .map(|(i, guard)| {
                let check = guard.check(&message, &context);
                async move { (i, check.await) }
            })
            .collect();
        let mut rewrite: Option<(usize, String)> = None;
        while let Some((i, verdict)) = pending.next().await {
            match verdict {
                Verdict::Pass => {}
                Verdict::Block(reason) => {
                    return Some(Stopped::Block {
                        name: guards[i].name().to_string(),
                        reason,
                    });
                }
                Verdict::Rewrite(text) => match &rewrite {
                    Some((first, _)) if *first < i => {
                        tracing::debug!(
                            guardrail = guards[i].name(),
                            "input rewrite not used: a guardrail declared before it also rewrote the message"
                        );
                    }
                    _ => rewrite = Some((i, text)),
                },
            }
        }
        rewrite.map(|(_, text)| Stopped::Rewrite(text))
    }))
}

/// Awaits `call` (the first model request) and `check` together.
///
/// * The check passes first: the request goes on and its outcome is returned.
/// * The check stops the run first: the request is cancelled (its future dropped, which drops
///   the HTTP request and its connection) and `answer` is `None`.
/// * The request finishes first: the check is awaited before anything else happens, and
///   stops the run or lets the answer through.
///
/// The check is polled before the request, so a guardrail that decides without waiting
/// (a regex, a length) stops the run before the request is even sent.
pub(crate) async fn race<A>(check: InputCheck<'_>, call: impl Future<Output = A>) -> Raced<A> {
    let call = pin!(call);
    match futures::future::select(check, call).await {
        Either::Left((None, call)) => Raced::Passed(call.await),
        // The request's future is dropped when this one returns (it is pinned in this
        // future's state): that is the cancellation.
        Either::Left((Some(verdict), _)) => Raced::Stopped {
            verdict,
            answer: None,
        },
        Either::Right((answer, check)) => match check.await {
            None => Raced::Passed(answer),
            Some(verdict) => Raced::Stopped {
                verdict,
                answer: Some(answer),
            },
        },
    }
}

/// Replaces the text of the last user message in `messages` with `text` (its other blocks,
/// images for example, stay).
pub(crate) fn rewrite_last_user(messages: &mut [Message], text: String) {
    let Some(Message::User(user)) = messages
        .iter_mut()
        .rev()
        .find(|m| matches!(m, Message::User(_)))
    else {
        return;
    };
    let at = user
        .content
        .iter()
        .position(|b| matches!(b, ContentBlock::Text { .. }))
        .unwrap_or(0);
    user.content
        .retain(|b| !matches!(b, ContentBlock::Text { .. }));
    user.content
        .insert(at.min(user.content.len()), ContentBlock::text(text));
}
