//! Retrying retryable failures with exponential backoff and jitter.

use std::future::Future;
use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBuilder};

use crate::model::ModelError;

/// When and how often a failed request is tried again.
///
/// Only errors for which [`ModelError::is_retryable`] holds are retried (rate limits, server
/// errors, timeouts, network failures); a bad request or a wrong key fails at once. When the
/// server says how long to wait (`Retry-After`, `retry-after-ms`), that wait is used instead of
/// the backoff delay, unless it is longer than [`max_server_wait`](Self::max_server_wait), in
/// which case the error is returned at once.
///
/// ```
/// use std::time::Duration;
/// use agentry::http::RetryPolicy;
///
/// let policy = RetryPolicy::default().max_retries(5).initial_delay(Duration::from_millis(100));
/// let delays: Vec<Duration> = policy.backoff().collect();
/// assert_eq!(delays.len(), 5);
/// // With jitter each delay lies in [d, 2d) for the exponential d.
/// assert!(delays[0] >= Duration::from_millis(100) && delays[0] < Duration::from_millis(200));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0: no retry).
    pub max_retries: u32,
    /// The first backoff delay.
    pub initial_delay: Duration,
    /// The longest backoff delay.
    pub max_delay: Duration,
    /// The growth factor between delays.
    pub factor: f32,
    /// Whether to add a random delay in `[0, d)` to each delay `d`.
    pub jitter: bool,
    /// The longest server-requested wait that is honoured; a longer one fails at once.
    pub max_server_wait: Duration,
}

impl Default for RetryPolicy {
    /// Two retries, 500 ms then 1 s (plus jitter), delays capped at 30 s, server waits up to 60 s.
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            initial_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            factor: 2.0,
            jitter: true,
            max_server_wait: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        }
    }

    /// Sets the number of retries.
    pub fn max_retries(mut self, n: u32) -> Self {
        self.max_retries = n;
        self
    }

    /// Sets the first backoff delay.
    pub fn initial_delay(mut self, d: Duration) -> Self {
        self.initial_delay = d;
        self
    }

    /// Sets the longest backoff delay.
    pub fn max_delay(mut self, d: Duration) -> Self {
        self.max_delay = d;
        self
    }

    /// Enables or disables jitter.
    pub fn jitter(mut self, on: bool) -> Self {
        self.jitter = on;
        self
    }

    /// Sets the longest server-requested wait that is honoured.
    pub fn max_server_wait(mut self, d: Duration) -> Self {
        self.max_server_wait = d;
        self
    }

    /// The backoff delays, one per retry.
    pub fn backoff(&self) -> impl Iterator<Item = Duration> + Send + use<> {
        let mut builder = ExponentialBuilder::new()
            .with_min_delay(self.initial_delay)
            .with_max_delay(self.max_delay)
            .with_factor(self.factor)
            .with_max_times(self.max_retries as usize);
        if self.jitter {
            builder = builder.with_jitter();
        }
        builder.build()
    }
}

/// Runs `attempt` (given the attempt number, from 0) until it succeeds, fails with an error
/// that is not retryable, or the policy's retries are spent. `what` names the operation in logs.
///
/// Not an `async fn`, which would keep its arguments twice in its state: this future is part
/// of every request's.
#[allow(clippy::manual_async_fn)] // on purpose: see above
pub fn retry<'a, T, F, Fut>(
    policy: &'a RetryPolicy,
    what: &'a str,
    mut attempt: F,
) -> impl Future<Output = Result<T, ModelError>> + 'a
where
    F: FnMut(u32) -> Fut + 'a,
    Fut: Future<Output = Result<T, ModelError>> + 'a,
{
    async move {
        // Built on the first failure (most calls succeed at once), and boxed so that it takes
        // no room in the future of a call that does.
        let mut delays: Option<Box<dyn Iterator<Item = Duration> + Send>> = None;
        let mut n = 0u32;
        loop {
            let err = match attempt(n).await {
                Ok(v) => return Ok(v),
                Err(err) => err,
            };
            if !err.is_retryable() {
                return Err(err);
            }
            let delays = delays.get_or_insert_with(|| Box::new(policy.backoff()));
            let Some(backoff) = delays.next() else {
                if n > 0 {
                    tracing::warn!(%what, attempts = n + 1, error = %err, "giving up after retries");
                }
                return Err(err);
            };
            let wait = match err.retry_after() {
                Some(server) if server > policy.max_server_wait => {
                    tracing::warn!(%what, ?server, "server asked to wait longer than max_server_wait; not retrying");
                    return Err(err);
                }
                Some(server) => server,
                None => backoff,
            };
            tracing::warn!(%what, attempt = n + 1, ?wait, error = %err, "retrying");
            tokio::time::sleep(wait).await;
            n += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    fn fast() -> RetryPolicy {
        RetryPolicy::default()
            .max_retries(3)
            .initial_delay(Duration::from_millis(1))
            .max_delay(Duration::from_millis(2))
    }

    #[tokio::test]
    async fn retries_retryable_until_success() {
        let calls = AtomicU32::new(0);
        let out = retry(&fast(), "test", |n| {
            calls.fetch_add(1, Ordering::SeqCst);
            async move {
                if n < 2 {
                    Err(ModelError::Server {
                        status: 503,
                        message: "busy".into(),
                    })
                } else {
                    Ok(n)
                }
            }
        })
        .await;
        assert_eq!(out, Ok(2));
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn does_not_retry_non_retryable() {
        let calls = AtomicU32::new(0);
        let out: Result<(), _> = retry(&fast(), "test", |_| {
            calls.fetch_add(1, Ordering::SeqCst);
            async {
                Err(ModelError::Authentication {
                    message: "no".into(),
                })
            }
        })
        .await;
        assert!(matches!(out, Err(ModelError::Authentication { .. })));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn gives_up_after_budget() {
        let calls = AtomicU32::new(0);
        let out: Result<(), _> = retry(&fast(), "test", |_| {
            calls.fetch_add(1, Ordering::SeqCst);
            async { Err(ModelError::Network("reset".into())) }
        })
        .await;
        assert!(matches!(out, Err(ModelError::Network(_))));
        assert_eq!(calls.load(Ordering::SeqCst), 4);
    }

    #[tokio::test]
    async fn too_long_server_wait_is_not_retried() {
        let calls = AtomicU32::new(0);
        let policy = fast().max_server_wait(Duration::from_millis(10));
        let out: Result<(), _> = retry(&policy, "test", |_| {
            calls.fetch_add(1, Ordering::SeqCst);
            async {
                Err(ModelError::RateLimited {
                    message: "slow down".into(),
                    retry_after: Some(Duration::from_secs(3600)),
                })
            }
        })
        .await;
        assert!(matches!(out, Err(ModelError::RateLimited { .. })));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }
}
