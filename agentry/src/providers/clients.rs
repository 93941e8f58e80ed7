//! The HTTP clients a model sends with, and how each kind of request is timed.
//!
//! A whole (non-streamed) request is bounded by [`Timeouts::request`] from connecting to the
//! last byte of the answer; a streamed one only until its headers arrive (its body is bounded
//! by the idle timeout instead). reqwest can time a request either way, but a per-request
//! timeout costs a map of request extensions on every request. So a client built here carries
//! the request timeout itself, and streams go through a second client without it, built on
//! the first stream. A client the user supplied is used for both, with per-request timeouts.

use std::sync::OnceLock;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue, USER_AGENT};

use crate::http::Timeouts;
use crate::model::ModelError;

/// The `user-agent` of the requests sent through clients built here.
const SDK_USER_AGENT: &str = concat!("agentry/", env!("CARGO_PKG_VERSION"));

/// [`SDK_USER_AGENT`] as a header value: static, so that each request copies it without a
/// reference count.
pub(crate) fn sdk_user_agent() -> HeaderValue {
    HeaderValue::from_static(SDK_USER_AGENT)
}

/// The clients of one model.
pub(crate) enum Clients {
    /// Built by the SDK.
    Own {
        /// Times whole requests ([`Timeouts::request`]).
        timed: reqwest::Client,
        /// Without a total timeout, for streams; built on first use.
        streams: OnceLock<reqwest::Client>,
        /// The default headers both send.
        headers: HeaderMap,
        /// The connect timeout both use.
        connect: Duration,
        /// Whether requests carry [`SDK_USER_AGENT`] (the user's headers name no client).
        user_agent: bool,
    },
    /// The user's client; `headers` are added to each request.
    Given {
        client: reqwest::Client,
        headers: HeaderMap,
    },
}

/// A client and what each request through it must add.
pub(crate) struct Picked<'a> {
    pub(crate) client: &'a reqwest::Client,
    /// Headers to add to the request (only with a user-supplied client).
    pub(crate) headers: Option<&'a HeaderMap>,
    /// A total timeout to set on the request (only with a user-supplied client, for whole
    /// requests).
    pub(crate) timeout: Option<Duration>,
    /// Whether to add the SDK's `user-agent` ([`sdk_user_agent`]).
    pub(crate) user_agent: bool,
}

impl Clients {
    /// The clients for `headers` (sent with every request): `given`, or built here.
    pub(crate) fn new(
        given: Option<reqwest::Client>,
        headers: HeaderMap,
        timeouts: &Timeouts,
    ) -> Result<Clients, ModelError> {
        Ok(match given {
            Some(client) => Clients::Given { client, headers },
            None => Clients::Own {
                timed: build(&headers, timeouts.connect, Some(timeouts.request))?,
                streams: OnceLock::new(),
                user_agent: !headers.contains_key(USER_AGENT),
                headers,
                connect: timeouts.connect,
            },
        })
    }

    /// The headers every request carries (the key's, the fixed and the extra ones).
    pub(crate) fn headers(&self) -> &HeaderMap {
        match self {
            Clients::Own { headers, .. } | Clients::Given { headers, .. } => headers,
        }
    }

    /// The client for a whole request (`stream == false`) or a streamed one.
    pub(crate) fn pick(&self, stream: bool, timeouts: &Timeouts) -> Result<Picked<'_>, ModelError> {
        Ok(match self {
            Clients::Own {
                timed, user_agent, ..
            } if !stream => Picked {
                client: timed,
                headers: None,
                timeout: None,
                user_agent: *user_agent,
            },
            Clients::Own {
                streams,
                headers,
                connect,
                user_agent,
                ..
            } => {
                let client = match streams.get() {
                    Some(client) => client,
                    None => {
                        let built = build(headers, *connect, None)?;
                        streams.get_or_init(|| built)
                    }
                };
                Picked {
                    client,
                    headers: None,
                    timeout: None,
                    user_agent: *user_agent,
                }
            }
            Clients::Given { client, headers } => Picked {
                client,
                headers: Some(headers),
                timeout: (!stream).then_some(timeouts.request),
                user_agent: false,
            },
        })
    }
}

/// A client sending `headers`, with an optional total timeout per request.
fn build(
    headers: &HeaderMap,
    connect: Duration,
    timeout: Option<Duration>,
) -> Result<reqwest::Client, ModelError> {
    // The SDK's `user-agent` is added to each request (see `Picked::user_agent`), not set
    // here: `ClientBuilder::user_agent` would override the user's, and as a default header
    // the connector keeps a copy (for a proxy's `CONNECT`) that it clones five times a request.
    let mut builder = crate::http::tls::client_builder()
        .default_headers(headers.clone())
        .connect_timeout(connect)
        // Refused requests are resent by the transport (see `http::refused`); reqwest's own
        // layer for that copies every request in case it is refused.
        .retry(reqwest::retry::never().max_retries_per_request(0));
    if let Some(timeout) = timeout {
        builder = builder.timeout(timeout);
    }
    builder
        .build()
        .map_err(|e| ModelError::Configuration(format!("could not build the HTTP client: {e}")))
}
