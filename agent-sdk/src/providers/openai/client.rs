//! Sending a lowered request: rate limiting, retries, timeouts and error mapping.

use std::time::Instant;

use bytes::Bytes;
use futures::{StreamExt, TryStreamExt};
use reqwest::header::CONTENT_TYPE;

use super::errors::error_from_response;
use super::request::{LowerOptions, lower};
use super::stream::decode_with_guard;
use super::wire::WireResponse;
use super::{Inner, response};
use crate::http::status::truncate;
use crate::http::{RateLimitPermit, check_url, map_reqwest_error, retry};
use crate::model::{ChatRequest, ChatResponse, EventStream, ModelError, StreamEvent};

impl Inner {
    fn body(&self, request: &ChatRequest, stream: bool) -> Result<Bytes, ModelError> {
        let opts = LowerOptions {
            model: &self.model,
            profile: &self.profile,
            max_tokens_field: self.max_tokens_field,
        };
        let wire = lower(request, &opts, stream)?;
        serde_json::to_vec(&wire)
            .map(Bytes::from)
            .map_err(|e| ModelError::Decode(format!("could not encode the request: {e}")))
    }

    /// One attempt: waits for the rate limiter, sends, and turns an error status into a typed
    /// error. The permit is returned so a stream can hold it until it ends.
    async fn attempt(
        &self,
        body: Bytes,
        stream: bool,
        attempt: u32,
    ) -> Result<(reqwest::Response, Option<RateLimitPermit>), ModelError> {
        let permit = match &self.limiter {
            Some(l) => Some(l.acquire().await),
            None => None,
        };
        tracing::debug!(provider = %self.provider, model = %self.model, stream, attempt, "sending chat completions request");
        let started = Instant::now();
        let mut builder = self.client.post(self.endpoint.clone()).body(body);
        if let Some(headers) = &self.request_headers {
            builder = builder.headers(headers.clone());
        }
        let sent = if stream {
            match tokio::time::timeout(self.timeouts.request, builder.send()).await {
                Ok(result) => result,
                Err(_) => return Err(ModelError::Timeout(self.timeouts.request)),
            }
        } else {
            builder.timeout(self.timeouts.request).send().await
        };
        let response =
            sent.map_err(|e| map_reqwest_error(e, self.timeouts.request, self.api_key.as_ref()))?;
        let status = response.status();
        tracing::debug!(status = status.as_u16(), elapsed = ?started.elapsed(), "response headers received");
        if status.is_success() {
            return Ok((response, permit));
        }
        let headers = response.headers().clone();
        let raw = response.text().await.unwrap_or_default();
        let err = error_from_response(status.as_u16(), &headers, &raw, self.api_key.as_ref());
        tracing::debug!(status = status.as_u16(), error = %err, "request failed");
        Err(err)
    }

    pub(crate) async fn invoke(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let body = self.body(request, false)?;
        check_url(&self.endpoint)?;
        retry(&self.retry, "chat completions", |n| {
            let body = body.clone();
            async move {
                let (response, _permit) = self.attempt(body, false, n).await?;
                let bytes = response.bytes().await.map_err(|e| {
                    map_reqwest_error(e, self.timeouts.request, self.api_key.as_ref())
                })?;
                self.decode(&bytes)
            }
        })
        .await
    }

    fn decode(&self, bytes: &[u8]) -> Result<ChatResponse, ModelError> {
        let wire: WireResponse = serde_json::from_slice(bytes).map_err(|e| {
            let text = String::from_utf8_lossy(bytes);
            let text = match &self.api_key {
                Some(k) => k.redact(&text),
                None => text.into_owned(),
            };
            ModelError::Decode(format!(
                "{e}; the answer began with: {}",
                truncate(&text, 200)
            ))
        })?;
        response::convert(wire, &self.model)
    }

    pub(crate) async fn open_stream(
        &self,
        request: &ChatRequest,
    ) -> Result<EventStream, ModelError> {
        let body = self.body(request, true)?;
        check_url(&self.endpoint)?;
        let (response, permit) = retry(&self.retry, "chat completions stream", |n| {
            self.attempt(body.clone(), true, n)
        })
        .await?;

        let is_json = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        if is_json {
            // A server that ignored `stream: true` and answered in one piece.
            tracing::debug!("streamed request answered with JSON; converting");
            let bytes = response
                .bytes()
                .await
                .map_err(|e| map_reqwest_error(e, self.timeouts.request, self.api_key.as_ref()))?;
            let answer = self.decode(&bytes)?;
            return Ok(futures::stream::iter(events_of(answer).into_iter().map(Ok)).boxed());
        }

        let idle = self.timeouts.stream_idle;
        let key = self.api_key.clone();
        let body = response
            .bytes_stream()
            .map_err(move |e| map_reqwest_error(e, idle, key.as_ref()));
        let guard = permit.map(|p| Box::new(p) as Box<dyn Send>);
        Ok(decode_with_guard(body, self.model.clone(), guard))
    }
}

/// The events a stream of `answer` would have produced.
fn events_of(answer: ChatResponse) -> Vec<StreamEvent> {
    let mut events = Vec::new();
    for block in &answer.message.content {
        match block {
            crate::message::ContentBlock::Reasoning { text, .. } => {
                events.push(StreamEvent::ReasoningDelta { text: text.clone() })
            }
            crate::message::ContentBlock::Text { text } => {
                events.push(StreamEvent::TextDelta { text: text.clone() })
            }
            _ => {}
        }
    }
    if let Some(r) = &answer.message.refusal {
        events.push(StreamEvent::RefusalDelta { text: r.clone() });
    }
    for (index, call) in answer.message.tool_calls.iter().enumerate() {
        events.push(StreamEvent::ToolCallStart {
            index,
            id: call.id.clone(),
            name: call.name.clone(),
        });
        if !call.arguments.is_empty() {
            events.push(StreamEvent::ToolCallDelta {
                index,
                arguments: call.arguments.clone(),
            });
        }
    }
    events.push(StreamEvent::Usage {
        usage: answer.usage,
    });
    events.push(StreamEvent::Completed { response: answer });
    events
}
