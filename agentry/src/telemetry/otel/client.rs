//! The exporters' HTTP client: this crate's `reqwest` client on the caller's tokio runtime.

use std::fmt;

use bytes::Bytes;
use opentelemetry_http::{HttpClient, HttpError, Request, Response};

/// The exporters' HTTP client: this crate's `reqwest` client, each request run on the tokio
/// runtime it was built in (the SDK's batch processor exports from a thread of its own).
#[derive(Clone)]
pub(super) struct RuntimeClient {
    pub(super) client: reqwest::Client,
    pub(super) handle: tokio::runtime::Handle,
}

impl fmt::Debug for RuntimeClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RuntimeClient")
    }
}

#[async_trait::async_trait]
impl HttpClient for RuntimeClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let (parts, body) = request.into_parts();
        let request = self
            .client
            .request(parts.method, parts.uri.to_string())
            .headers(parts.headers)
            .body(body);
        let sent = self.handle.spawn(async move {
            let response = request.send().await?;
            let status = response.status();
            let headers = response.headers().clone();
            let body = response.bytes().await?;
            Ok::<_, reqwest::Error>((status, headers, body))
        });
        let (status, headers, body) = sent.await??;
        let mut response = Response::builder().status(status).body(body)?;
        *response.headers_mut() = headers;
        Ok(response)
    }
}
