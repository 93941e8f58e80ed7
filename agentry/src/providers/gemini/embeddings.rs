//! Gemini's embeddings: `models/{model}:batchEmbedContents` (one request per batch of texts).

use std::fmt;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

use super::PROVIDER;
use super::builder::GEMINI_BASE_URL;
use super::errors::error_from_response;
use crate::embed::{EmbeddingModel, EmbeddingUsage, Embeddings, Purpose};
use crate::model::{ModelError, ModelProfile};
use crate::providers::embedding_http::{EmbeddingHttp, embedding_model_info, embedding_setters};
use crate::providers::settings::{Auth, Endpoint, Settings, parse_url};

/// The most requests Gemini accepts in one `batchEmbedContents` call.
const GEMINI_MAX_BATCH: usize = 100;

/// A Gemini embedding model (e.g. `gemini-embedding-001`, `text-embedding-004`) over the
/// Generative Language API's `batchEmbedContents`. Documents are sent with the task type
/// `RETRIEVAL_DOCUMENT`, queries with `RETRIEVAL_QUERY`.
///
/// ```
/// use agentry::embed::EmbeddingModel;
/// use agentry::providers::gemini::GeminiEmbeddingModel;
///
/// let model = GeminiEmbeddingModel::builder("gemini-embedding-001")
///     .api_key("AIza-test-0123456789")
///     .dimensions(768)
///     .build()
///     .unwrap();
/// assert_eq!(
///     model.endpoint(),
///     "https://generativelanguage.googleapis.com/v1beta/models/gemini-embedding-001:batchEmbedContents"
/// );
/// assert_eq!(model.max_batch_size(), 100);
/// assert!(!format!("{model:?}").contains("AIza-test-0123456789"));
/// ```
#[derive(Clone)]
pub struct GeminiEmbeddingModel {
    inner: Arc<Inner>,
}

struct Inner {
    http: EmbeddingHttp,
    /// `models/{model}`, as each request names it.
    resource: String,
    dimensions: Option<usize>,
    batch_size: usize,
}

impl GeminiEmbeddingModel {
    /// A builder for `model` (base URL from `GEMINI_BASE_URL`, key from `GEMINI_API_KEY` or
    /// `GOOGLE_API_KEY`; required unless the server is local).
    pub fn builder(model: impl Into<String>) -> GeminiEmbeddingModelBuilder {
        let model: String = model.into();
        let model = model.strip_prefix("models/").unwrap_or(&model).to_owned();
        GeminiEmbeddingModelBuilder {
            settings: Settings::new(
                model,
                ModelProfile::conservative(),
                Some("GEMINI_BASE_URL"),
                GEMINI_BASE_URL,
                &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
            ),
            dimensions: None,
            batch_size: GEMINI_MAX_BATCH,
        }
    }

    /// The URL requests are sent to.
    pub fn endpoint(&self) -> &str {
        self.inner.http.url.as_str()
    }
}

/// Builds a [`GeminiEmbeddingModel`]; see [`GeminiEmbeddingModel::builder`].
#[must_use]
pub struct GeminiEmbeddingModelBuilder {
    settings: Settings,
    dimensions: Option<usize>,
    batch_size: usize,
}

impl GeminiEmbeddingModelBuilder {
    embedding_setters!();

    /// Builds the model. Fails with [`ModelError::Configuration`] on a missing key (naming the
    /// variables), a malformed URL or header.
    pub fn build(self) -> Result<GeminiEmbeddingModel, ModelError> {
        let base = self.settings.resolve_base_url(PROVIDER)?;
        let root = if base.ends_with("/v1beta") || base.ends_with("/v1") {
            base
        } else {
            format!("{base}/v1beta")
        };
        let model = self.settings.model.clone();
        let url = parse_url(&format!("{root}/models/{model}:batchEmbedContents"))?;
        let endpoint = Endpoint::new(url, Auth::Header("x-goog-api-key"));
        let http = self.settings.into_embedding_http(
            PROVIDER.to_owned(),
            endpoint,
            error_from_response,
        )?;
        Ok(GeminiEmbeddingModel {
            inner: Arc::new(Inner {
                http,
                resource: format!("models/{model}"),
                dimensions: self.dimensions,
                batch_size: self.batch_size.min(GEMINI_MAX_BATCH),
            }),
        })
    }
}

impl fmt::Debug for GeminiEmbeddingModelBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.settings
            .fmt_builder("GeminiEmbeddingModelBuilder", PROVIDER, f)
    }
}

impl fmt::Debug for GeminiEmbeddingModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GeminiEmbeddingModel")
            .field("http", &self.inner.http)
            .field("dimensions", &self.inner.dimensions)
            .field("batch_size", &self.inner.batch_size)
            .finish()
    }
}

#[derive(Serialize)]
struct BatchRequest<'a> {
    requests: Vec<EmbedRequest<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EmbedRequest<'a> {
    model: &'a str,
    content: Content<'a>,
    task_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_dimensionality: Option<usize>,
}

#[derive(Serialize)]
struct Content<'a> {
    parts: [Part<'a>; 1],
}

#[derive(Serialize)]
struct Part<'a> {
    text: &'a str,
}

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    embeddings: Vec<ContentEmbedding>,
}

#[derive(Deserialize)]
struct ContentEmbedding {
    values: Vec<f32>,
}

impl EmbeddingModel for GeminiEmbeddingModel {
    embedding_model_info!();

    fn embed_batch<'a>(
        &'a self,
        texts: &'a [String],
        purpose: Purpose,
    ) -> BoxFuture<'a, Result<Embeddings, ModelError>> {
        async move {
            if texts.is_empty() {
                return Ok(Embeddings::default());
            }
            let task_type = match purpose {
                Purpose::Document => "RETRIEVAL_DOCUMENT",
                Purpose::Query => "RETRIEVAL_QUERY",
            };
            let request = BatchRequest {
                requests: texts
                    .iter()
                    .map(|text| EmbedRequest {
                        model: &self.inner.resource,
                        content: Content {
                            parts: [Part { text }],
                        },
                        task_type,
                        output_dimensionality: self.inner.dimensions,
                    })
                    .collect(),
            };
            let answer: Answer = self.inner.http.post(&request).await?;
            // The answer lists the embeddings in the order of the requests.
            Ok(Embeddings {
                vectors: answer.embeddings.into_iter().map(|e| e.values).collect(),
                usage: EmbeddingUsage {
                    input_tokens: None,
                    requests: 1,
                },
            })
        }
        .boxed()
    }
}
