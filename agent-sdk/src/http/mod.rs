//! The provider-neutral HTTP layer every provider shares.
//!
//! * [`RetryPolicy`]: exponential backoff with jitter for retryable errors only, honouring the
//!   server's `Retry-After` / `retry-after-ms` hint.
//! * [`RateLimit`] / [`RateLimiter`]: a client-side limit on requests per second and on
//!   concurrent requests, shared by every clone of a model.
//! * [`ApiKey`]: a secret whose `Debug` output is redacted and which is scrubbed from error
//!   messages.
//! * [`deny_real_network`]: a process-wide switch, for test suites, that refuses any request
//!   to a host other than the loopback interface.
//! * [`ResponseLimits`]: caps on body, event, stream and tool-call sizes against hostile
//!   or broken servers.
//! * [`sse`]: Server-Sent Events decoding of a response body.
//! * [`status`]: mapping an HTTP status, headers and a provider's error body to a
//!   [`ModelError`](crate::model::ModelError).

mod guard;
pub(crate) mod limits;
mod rate_limit;
mod retry;
pub(crate) mod secret;
pub mod sse;
pub mod status;
mod transport;

pub use guard::{allow_real_network, check_url, deny_real_network, is_real_network_denied};
pub use limits::{ResponseLimit, ResponseLimits};
pub use rate_limit::{RateLimit, RateLimitPermit, RateLimiter};
pub use retry::{RetryPolicy, retry};
pub use secret::ApiKey;
pub use transport::{Timeouts, map_body_error, map_reqwest_error};
