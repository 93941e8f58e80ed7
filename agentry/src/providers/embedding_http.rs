//! What the embedding models share with the chat models: the [`Settings`] behind a builder's
//! setters, built into the same [`Transport`] (rate limit, retries, timeouts, cassette, key
//! redaction) without a chat [`Driver`](super::driver::Driver).

use bytes::Bytes;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::settings::{Endpoint, Settings};
use super::transport::{Call, ErrorMapper, Transport};
use crate::model::ModelError;

/// A built embedding endpoint: where requests go and the transport they go through.
pub(crate) struct EmbeddingHttp {
    pub provider: String,
    pub model: String,
    pub url: reqwest::Url,
    pub transport: Transport,
    pub errors: ErrorMapper,
}

impl Settings {
    /// The endpoint of an embedding model, over the chat models'
    /// [transport](Settings::into_transport).
    pub(crate) fn into_embedding_http(
        self,
        provider: String,
        endpoint: Endpoint,
        errors: ErrorMapper,
    ) -> Result<EmbeddingHttp, ModelError> {
        let (transport, rest) = self.into_transport(&provider, &endpoint)?;
        Ok(EmbeddingHttp {
            provider,
            model: rest.model,
            url: endpoint.url,
            transport,
            errors,
        })
    }
}

impl EmbeddingHttp {
    /// POSTs `body` to the endpoint and decodes the JSON answer, with the transport's retries.
    pub(crate) async fn post<W: Serialize, A: DeserializeOwned>(
        &self,
        body: &W,
    ) -> Result<A, ModelError> {
        let bytes = serde_json::to_vec(body)
            .map_err(|e| ModelError::Decode(format!("could not encode the request: {e}")))?;
        let call = Call {
            provider: &self.provider,
            model: &self.model,
            url: &self.url,
            errors: self.errors,
        };
        let transport = &self.transport;
        transport
            .post(call, Bytes::from(bytes), |raw| {
                serde_json::from_slice::<A>(raw).map_err(|e| transport.decode_error(e, raw))
            })
            .await
    }
}

impl std::fmt::Debug for EmbeddingHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddingHttp")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("url", &self.url.as_str())
            .field("api_key", &self.transport.api_key)
            .finish_non_exhaustive()
    }
}

/// The setters of an embedding model's builder (`settings` is its [`Settings`] field): the
/// [transport setters](super::settings::transport_setters) every model builder has, the base
/// URL, and the embedding-only `dimensions` and `batch_size`.
macro_rules! embedding_setters {
    () => {
        $crate::providers::settings::transport_setters!();

        /// The base URL, e.g. `http://127.0.0.1:8080/v1` for a local server; the API's path
        /// is appended.
        pub fn base_url(mut self, url: impl Into<String>) -> Self {
            self.settings.base_url = Some(url.into());
            self
        }

        /// The length of the vectors to ask for (OpenAI's `dimensions`, Gemini's
        /// `outputDimensionality`); the model's default when not set.
        pub fn dimensions(mut self, n: usize) -> Self {
            self.dimensions = Some(n);
            self
        }

        /// The most texts one request carries; longer inputs are split (at least 1).
        pub fn batch_size(mut self, n: usize) -> Self {
            self.batch_size = n.max(1);
            self
        }
    };
}
#[cfg(any(feature = "openai", feature = "gemini"))]
pub(crate) use embedding_setters;

/// The [`EmbeddingModel`](crate::embed::EmbeddingModel) methods that only read the model's
/// `inner`: its `http` ([`EmbeddingHttp`]), `dimensions` and `batch_size`.
macro_rules! embedding_model_info {
    () => {
        fn provider(&self) -> &str {
            &self.inner.http.provider
        }

        fn model_name(&self) -> &str {
            &self.inner.http.model
        }

        fn dimensions(&self) -> Option<usize> {
            self.inner.dimensions
        }

        fn max_batch_size(&self) -> usize {
            self.inner.batch_size
        }
    };
}
#[cfg(any(feature = "openai", feature = "gemini"))]
pub(crate) use embedding_model_info;
