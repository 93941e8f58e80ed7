//! Entry points for the fuzz targets in `fuzz/` (the `fuzzing` feature): each provider's whole
//! answer decoder and stream decoder, reached the way a model reaches them (through its
//! `Driver`), without a server. Not a public API.

use std::sync::OnceLock;
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use futures::{Stream, StreamExt};

use super::driver::{ProviderModel, WireFormat};
use super::stream;
use crate::model::{ChatResponse, ModelError, StreamEvent};

/// A provider wire format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI Chat Completions.
    OpenAiChat,
    /// OpenAI Responses.
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Gemini.
    Gemini,
}

/// A key the fuzzed bodies may contain: the redaction paths run too.
pub const KEY: &str = "fuzz-key-0123456789";
const URL: &str = "http://127.0.0.1:9/v1";

struct Models {
    chat: super::openai::OpenAiModel,
    responses: super::openai_responses::OpenAiResponsesModel,
    anthropic: super::anthropic::AnthropicModel,
    gemini: super::gemini::GeminiModel,
}

fn models() -> &'static Models {
    static MODELS: OnceLock<Models> = OnceLock::new();
    MODELS.get_or_init(|| Models {
        chat: super::openai::OpenAiModel::builder("m")
            .api_key(KEY)
            .base_url(URL)
            .build()
            .unwrap(),
        responses: super::openai_responses::OpenAiResponsesModel::builder("m")
            .api_key(KEY)
            .base_url(URL)
            .build()
            .unwrap(),
        anthropic: super::anthropic::AnthropicModel::builder("m")
            .api_key(KEY)
            .base_url(URL)
            .build()
            .unwrap(),
        gemini: super::gemini::GeminiModel::builder("m")
            .api_key(KEY)
            .base_url(URL)
            .build()
            .unwrap(),
    })
}

/// Decodes a whole (non-streamed) answer body as the model does.
pub fn decode_answer(provider: Provider, body: &[u8]) -> Result<ChatResponse, ModelError> {
    let m = models();
    match provider {
        Provider::OpenAiChat => m.chat.driver().parts().decode(body),
        Provider::OpenAiResponses => m.responses.driver().parts().decode(body),
        Provider::Anthropic => m.anthropic.driver().parts().decode(body),
        Provider::Gemini => m.gemini.driver().parts().decode(body),
    }
}

/// Decodes a streamed (SSE) answer body delivered in `pieces`, as the model does; returns
/// every item the stream yields (it ends after the first error).
pub fn decode_stream(
    provider: Provider,
    pieces: Vec<Vec<u8>>,
) -> Vec<Result<StreamEvent, ModelError>> {
    let m = models();
    match provider {
        Provider::OpenAiChat => drain(m.chat.driver().parts(), pieces),
        Provider::OpenAiResponses => drain(m.responses.driver().parts(), pieces),
        Provider::Anthropic => drain(m.anthropic.driver().parts(), pieces),
        Provider::Gemini => drain(m.gemini.driver().parts(), pieces),
    }
}

fn drain<F: WireFormat>(
    parts: &super::driver::Parts<F>,
    pieces: Vec<Vec<u8>>,
) -> Vec<Result<StreamEvent, ModelError>> {
    let body = futures::stream::iter(pieces.into_iter().map(|p| Ok(Bytes::from(p)))).boxed();
    let mut events = stream::drive(
        body,
        parts.format.decoder(&parts.model),
        None,
        parts.stream_policy(),
    );
    let mut cx = Context::from_waker(Waker::noop());
    let mut out = Vec::new();
    loop {
        match std::pin::Pin::new(&mut events).poll_next(&mut cx) {
            Poll::Ready(Some(item)) => out.push(item),
            Poll::Ready(None) => return out,
            // The body is always ready: nothing waits.
            Poll::Pending => unreachable!("an in-memory body never waits"),
        }
    }
}
