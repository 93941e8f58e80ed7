//! OpenAI's embeddings endpoint (`POST /v1/embeddings`), and every server that speaks it
//! (Ollama's `/v1/embeddings`, vLLM, LM Studio, ...).

use std::fmt;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

use super::builder::OPENAI_BASE_URL;
use super::errors::error_from_response;
use crate::embed::{EmbeddingModel, EmbeddingUsage, Embeddings, Purpose};
use crate::model::{ModelError, ModelProfile};
use crate::providers::embedding_http::{EmbeddingHttp, embedding_model_info, embedding_setters};
use crate::providers::settings::{Auth, Endpoint, Settings, parse_url};

/// The most inputs OpenAI accepts in one request.
const OPENAI_MAX_INPUTS: usize = 2048;

/// An embedding model behind OpenAI's embeddings API or a compatible server.
///
/// ```
/// use agentry::embed::EmbeddingModel;
/// use agentry::providers::openai::OpenAiEmbeddingModel;
///
/// let model = OpenAiEmbeddingModel::builder("text-embedding-3-small")
///     .api_key("sk-test-0123456789")
///     .dimensions(256)
///     .batch_size(100)
///     .build()
///     .unwrap();
/// assert_eq!(model.endpoint(), "https://api.openai.com/v1/embeddings");
/// assert_eq!(model.dimensions(), Some(256));
/// assert!(!format!("{model:?}").contains("sk-test-0123456789"));
/// ```
#[derive(Clone)]
pub struct OpenAiEmbeddingModel {
    inner: Arc<Inner>,
}

struct Inner {
    http: EmbeddingHttp,
    dimensions: Option<usize>,
    batch_size: usize,
}

impl OpenAiEmbeddingModel {
    /// A builder for OpenAI's `model` (base URL from `OPENAI_BASE_URL`, key from
    /// `OPENAI_API_KEY`, required when the base URL is api.openai.com).
    pub fn builder(model: impl Into<String>) -> OpenAiEmbeddingModelBuilder {
        let mut settings = Settings::new(
            model.into(),
            ModelProfile::conservative(),
            Some("OPENAI_BASE_URL"),
            OPENAI_BASE_URL,
            &["OPENAI_API_KEY"],
        );
        settings.base_url_env = Some("OPENAI_BASE_URL".into());
        OpenAiEmbeddingModelBuilder {
            provider: "openai".into(),
            settings,
            key_when_openai_only: true,
            provider_requires_key: false,
            dimensions: None,
            batch_size: 512,
        }
    }

    /// A builder for `model` on an OpenAI-compatible server at `base_url` (e.g. Ollama at
    /// `http://localhost:11434/v1`); a key is sent only when one is given.
    pub fn compatible(
        model: impl Into<String>,
        base_url: impl Into<String>,
    ) -> OpenAiEmbeddingModelBuilder {
        let mut b = Self::builder(model);
        b.provider = "openai-compatible".into();
        b.settings.base_url = Some(base_url.into());
        b.settings.base_url_env = None;
        b.settings.api_key_env.clear();
        b.key_when_openai_only = false;
        b
    }

    /// The URL requests are sent to.
    pub fn endpoint(&self) -> &str {
        self.inner.http.url.as_str()
    }
}

/// Builds an [`OpenAiEmbeddingModel`]; see [`OpenAiEmbeddingModel::builder`].
#[must_use]
pub struct OpenAiEmbeddingModelBuilder {
    provider: String,
    settings: Settings,
    key_when_openai_only: bool,
    provider_requires_key: bool,
    dimensions: Option<usize>,
    batch_size: usize,
}

impl OpenAiEmbeddingModelBuilder {
    embedding_setters!();

    /// The provider name reported by [`EmbeddingModel::provider`].
    pub fn provider_name(mut self, name: impl Into<String>) -> Self {
        self.provider = name.into();
        self
    }

    /// Reads the base URL from `var` when [`base_url`](Self::base_url) is not given, falling
    /// back to `default`.
    pub fn base_url_env(mut self, var: impl Into<String>, default: impl Into<String>) -> Self {
        self.settings.base_url_env = Some(var.into());
        self.settings.default_base_url = default.into();
        self.settings.base_url = None;
        self
    }

    /// Reads the key from `var` and requires one (`required`) or sends it only when set.
    pub fn api_key_env(mut self, var: impl Into<String>, required: bool) -> Self {
        self.settings.api_key_env = vec![var.into()];
        self.key_when_openai_only = false;
        self.provider_requires_key = required;
        self
    }

    pub(crate) fn require_base_url(mut self, var: &str) -> Self {
        self.settings.base_url_required = true;
        self.settings.base_url_env = Some(var.to_owned());
        self.settings.base_url = None;
        self
    }

    /// Builds the model. Fails with [`ModelError::Configuration`] on a missing key (naming the
    /// variable), a malformed URL or header.
    pub fn build(self) -> Result<OpenAiEmbeddingModel, ModelError> {
        let base = self.settings.resolve_base_url(&self.provider)?;
        let full = if base.ends_with("/embeddings") {
            base
        } else {
            format!("{base}/embeddings")
        };
        let url = parse_url(&full)?;
        let key_required = self.provider_requires_key
            || (self.key_when_openai_only && url.host_str() == Some("api.openai.com"));
        let endpoint = Endpoint {
            key_required,
            ..Endpoint::new(url, Auth::Bearer)
        };
        let http =
            self.settings
                .into_embedding_http(self.provider, endpoint, error_from_response)?;
        Ok(OpenAiEmbeddingModel {
            inner: Arc::new(Inner {
                http,
                dimensions: self.dimensions,
                batch_size: self.batch_size.min(OPENAI_MAX_INPUTS),
            }),
        })
    }
}

impl fmt::Debug for OpenAiEmbeddingModelBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.settings
            .fmt_builder("OpenAiEmbeddingModelBuilder", &self.provider, f)
    }
}

impl fmt::Debug for OpenAiEmbeddingModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiEmbeddingModel")
            .field("http", &self.inner.http)
            .field("dimensions", &self.inner.dimensions)
            .field("batch_size", &self.inner.batch_size)
            .finish()
    }
}

#[derive(Serialize)]
struct Request<'a> {
    model: &'a str,
    input: &'a [String],
    encoding_format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    dimensions: Option<usize>,
}

#[derive(Deserialize)]
struct Answer {
    data: Vec<Datum>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct Datum {
    index: usize,
    embedding: Vec<f32>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
}

/// The vectors of `answer` in input order (by each item's `index`), for `n` inputs.
fn in_order(answer: Answer, n: usize) -> Result<Embeddings, ModelError> {
    if answer.data.len() != n {
        return Err(ModelError::Decode(format!(
            "asked for {n} embeddings, the answer holds {}",
            answer.data.len()
        )));
    }
    let mut slots: Vec<Option<Vec<f32>>> = vec![None; n];
    for datum in answer.data {
        match slots.get_mut(datum.index) {
            Some(slot @ None) => *slot = Some(datum.embedding),
            Some(Some(_)) => {
                return Err(ModelError::Decode(format!(
                    "the answer holds two embeddings at index {}",
                    datum.index
                )));
            }
            None => {
                return Err(ModelError::Decode(format!(
                    "the answer holds an embedding at index {} for {n} inputs",
                    datum.index
                )));
            }
        }
    }
    Ok(Embeddings {
        vectors: slots.into_iter().flatten().collect(),
        usage: EmbeddingUsage {
            input_tokens: answer.usage.and_then(|u| u.prompt_tokens),
            requests: 1,
        },
    })
}

impl EmbeddingModel for OpenAiEmbeddingModel {
    embedding_model_info!();

    fn embed_batch<'a>(
        &'a self,
        texts: &'a [String],
        _purpose: Purpose,
    ) -> BoxFuture<'a, Result<Embeddings, ModelError>> {
        async move {
            if texts.is_empty() {
                return Ok(Embeddings::default());
            }
            let request = Request {
                model: &self.inner.http.model,
                input: texts,
                encoding_format: "float",
                dimensions: self.inner.dimensions,
            };
            let answer: Answer = self.inner.http.post(&request).await?;
            in_order(answer, texts.len())
        }
        .boxed()
    }
}
