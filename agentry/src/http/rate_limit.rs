//! A client-side rate limiter: requests per second and concurrent requests.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// Limits on how fast a model may be called. Both limits are optional.
///
/// ```
/// use agentry::http::RateLimit;
/// let limit = RateLimit::per_second(5.0).max_concurrent(2);
/// assert_eq!(limit.max_concurrent, Some(2));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateLimit {
    /// Requests started per second, evenly spaced (no burst).
    pub requests_per_second: Option<f64>,
    /// Requests in flight at once (a streamed answer counts until its body has been read or
    /// the stream is dropped).
    pub max_concurrent: Option<usize>,
}

impl RateLimit {
    /// At most `rps` requests started per second.
    pub fn per_second(rps: f64) -> Self {
        RateLimit {
            requests_per_second: Some(rps),
            max_concurrent: None,
        }
    }

    /// At most `n` requests at once.
    pub fn max_concurrent(mut self, n: usize) -> Self {
        self.max_concurrent = Some(n);
        self
    }

    /// Whether this limits anything.
    pub fn is_unlimited(&self) -> bool {
        self.requests_per_second.is_none() && self.max_concurrent.is_none()
    }
}

/// A rate limiter shared by every clone (cloning shares the limits; it does not copy them).
#[derive(Clone, Debug)]
pub struct RateLimiter {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    limit: RateLimit,
    interval: Option<Duration>,
    next_slot: Mutex<Option<Instant>>,
    concurrency: Option<Arc<Semaphore>>,
}

/// Held while a request is in flight; dropping it frees a concurrency slot.
#[derive(Debug)]
pub struct RateLimitPermit {
    _permit: Option<OwnedSemaphorePermit>,
}

impl RateLimiter {
    /// A limiter enforcing `limit`. A zero or negative rate and a zero concurrency are treated
    /// as "no limit" (with a warning), never as "never send".
    pub fn new(limit: RateLimit) -> Self {
        let interval = match limit.requests_per_second {
            Some(rps) if rps > 0.0 && rps.is_finite() => Some(Duration::from_secs_f64(1.0 / rps)),
            Some(rps) => {
                tracing::warn!(rps, "ignoring a non-positive requests_per_second limit");
                None
            }
            None => None,
        };
        let concurrency = match limit.max_concurrent {
            Some(0) => {
                tracing::warn!("ignoring a max_concurrent limit of 0");
                None
            }
            Some(n) => Some(Arc::new(Semaphore::new(n))),
            None => None,
        };
        RateLimiter {
            inner: Arc::new(Inner {
                limit,
                interval,
                next_slot: Mutex::new(None),
                concurrency,
            }),
        }
    }

    /// The limits enforced.
    pub fn limit(&self) -> RateLimit {
        self.inner.limit
    }

    /// Waits for a concurrency slot, then for the next request slot.
    pub async fn acquire(&self) -> RateLimitPermit {
        let permit = match &self.inner.concurrency {
            // The semaphore is never closed, so acquiring cannot fail.
            Some(sem) => sem.clone().acquire_owned().await.ok(),
            None => None,
        };
        if let Some(interval) = self.inner.interval {
            let slot = {
                let now = Instant::now();
                let mut next = self
                    .inner
                    .next_slot
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                let slot = match *next {
                    Some(t) if t > now => t,
                    _ => now,
                };
                *next = Some(slot + interval);
                slot
            };
            tokio::time::sleep_until(slot).await;
        }
        RateLimitPermit { _permit: permit }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn spaces_requests_evenly() {
        let limiter = RateLimiter::new(RateLimit::per_second(10.0));
        let start = Instant::now();
        for _ in 0..5 {
            drop(limiter.clone().acquire().await);
        }
        // Four intervals of 100 ms after the first, immediate request (paused clock: exact).
        assert_eq!(start.elapsed(), Duration::from_millis(400));
    }

    #[tokio::test]
    async fn bounds_concurrency_across_clones() {
        let limiter = RateLimiter::new(RateLimit::default().max_concurrent(2));
        let a = limiter.clone().acquire().await;
        let _b = limiter.acquire().await;
        let clone = limiter.clone();
        let mut third = Box::pin(clone.acquire());
        assert!(futures::poll!(third.as_mut()).is_pending());
        drop(a);
        let _c = third.await;
    }
}
