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
//! * Server-Sent Events decoding and the mapping of HTTP errors to
//!   [`ModelError`](crate::model::ModelError) are shared by the providers and hidden from
//!   this documentation.

mod guard;
pub(crate) mod limits;
mod rate_limit;
pub(crate) mod refused;
mod retry;
pub(crate) mod secret;
// Wire-level helpers the providers share. The SSE decoder is public for authors of providers
// over other SSE APIs (a decoder with a size cap on lines and events).
pub mod sse;
pub(crate) mod status;
pub(crate) mod tls;
mod transport;

pub(crate) use guard::check_url;
pub use guard::{allow_real_network, deny_real_network, is_real_network_denied};
pub use limits::{ResponseLimit, ResponseLimits};
pub use rate_limit::{RateLimit, RateLimitPermit, RateLimiter};
pub use retry::{RetryPolicy, retry};
pub use secret::ApiKey;
pub use transport::Timeouts;
pub(crate) use transport::{map_body_error, map_reqwest_error};
