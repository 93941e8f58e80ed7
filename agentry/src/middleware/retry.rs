//! [`ModelRetry`]: retries a failed model call with exponential backoff.

use std::sync::Arc;
use std::time::Duration;

use super::{Hook, Middleware, ModelNext, ModelRequest, RunCx};
use crate::model::{ChatResponse, ModelError};

/// Which errors are worth another try.
pub type RetryOn = dyn Fn(&ModelError) -> bool + Send + Sync;

/// Retries a failed model call with exponential backoff (LangChain's
/// `ModelRetryMiddleware`), on top of whatever the HTTP layer already retried.
///
/// By default it retries the errors [`ModelError::is_retryable`] names (rate limits, server
/// errors, timeouts, network errors), waits the server's `retry_after` when it gave one, and
/// otherwise `initial_delay`, doubled after each attempt up to `max_delay`.
///
/// ```
/// use agentry::middleware::ModelRetry;
/// use std::time::Duration;
///
/// let retry = ModelRetry::new(3).initial_delay(Duration::from_millis(200));
/// assert_eq!(retry.max_retries(), 3);
/// ```
#[derive(Clone)]
pub struct ModelRetry {
    max_retries: u32,
    initial_delay: Duration,
    max_delay: Duration,
    factor: u32,
    retry_on: Arc<RetryOn>,
}

impl ModelRetry {
    /// Up to `max_retries` more attempts after the first.
    pub fn new(max_retries: u32) -> Self {
        ModelRetry {
            max_retries,
            initial_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            factor: 2,
            retry_on: Arc::new(ModelError::is_retryable),
        }
    }

    /// The wait before the first retry (default 500 ms).
    pub fn initial_delay(mut self, delay: Duration) -> Self {
        self.initial_delay = delay;
        self
    }

    /// The longest wait between attempts (default 30 s).
    pub fn max_delay(mut self, delay: Duration) -> Self {
        self.max_delay = delay;
        self
    }

    /// The factor the wait grows by after each attempt (default 2; 1 for a fixed wait).
    pub fn backoff_factor(mut self, factor: u32) -> Self {
        self.factor = factor.max(1);
        self
    }

    /// Retries the errors `retry_on` accepts instead.
    pub fn retry_on(
        mut self,
        retry_on: impl Fn(&ModelError) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.retry_on = Arc::new(retry_on);
        self
    }

    /// The number of retries after the first attempt.
    pub fn max_retries(&self) -> u32 {
        self.max_retries
    }

    /// The wait before retry number `retry` (0-based), unless the server asked for another.
    fn delay(&self, retry: u32, error: &ModelError) -> Duration {
        if let Some(wait) = error.retry_after() {
            return wait.min(self.max_delay);
        }
        let grown = self
            .initial_delay
            .saturating_mul(self.factor.saturating_pow(retry));
        grown.min(self.max_delay)
    }
}

impl std::fmt::Debug for ModelRetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelRetry")
            .field("max_retries", &self.max_retries)
            .field("initial_delay", &self.initial_delay)
            .field("max_delay", &self.max_delay)
            .field("factor", &self.factor)
            .finish_non_exhaustive()
    }
}

impl<C, S> Middleware<C, S> for ModelRetry
where
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    fn name(&self) -> &str {
        "ModelRetry"
    }

    fn wrap_model_call<'a>(
        &'a self,
        request: ModelRequest,
        _cx: &'a RunCx<'a, C, S>,
        next: ModelNext<'a, C, S>,
    ) -> Hook<'a, Result<ChatResponse, ModelError>> {
        Hook::boxed(async move {
            let mut retry = 0;
            loop {
                match next.run(request.clone()).await {
                    Err(error) if retry < self.max_retries && (self.retry_on)(&error) => {
                        let wait = self.delay(retry, &error);
                        tracing::debug!(%error, retry = retry + 1, ?wait, "model call failed; retrying");
                        tokio::time::sleep(wait).await;
                        retry += 1;
                    }
                    answer => return answer,
                }
            }
        })
    }
}
