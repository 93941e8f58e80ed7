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

/// The `user-agent` of the clients built here.
const SDK_USER_AGENT: &str = concat!("agent-sdk/", env!("CARGO_PKG_VERSION"));

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
                headers,
                connect: timeouts.connect,
            },
        })
    }

    /// The client for a whole request (`stream == false`) or a streamed one.
    pub(crate) fn pick(&self, stream: bool, timeouts: &Timeouts) -> Result<Picked<'_>, ModelError> {
        Ok(match self {
            Clients::Own { timed, .. } if !stream => Picked {
                client: timed,
                headers: None,
                timeout: None,
            },
            Clients::Own {
                streams,
                headers,
                connect,
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
                }
            }
            Clients::Given { client, headers } => Picked {
                client,
                headers: Some(headers),
                timeout: (!stream).then_some(timeouts.request),
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
    let mut defaults = headers.clone();
    // The SDK's name, unless the user's headers name another client. Not set with
    // `ClientBuilder::user_agent`, which would override the user's. A static value: every
    // request (and the connector, which keeps one for a proxy's `CONNECT`) copies it without
    // a reference count.
    defaults
        .entry(USER_AGENT)
        .or_insert(HeaderValue::from_static(SDK_USER_AGENT));
    let mut builder = reqwest::Client::builder()
        .default_headers(defaults)
        .connect_timeout(connect);
    if let Some(timeout) = timeout {
        builder = builder.timeout(timeout);
    }
    builder
        .build()
        .map_err(|e| ModelError::Configuration(format!("could not build the HTTP client: {e}")))
}
