//! Embedding models: text in, vectors out.
//!
//! [`EmbeddingModel`] is what the providers implement ([`OpenAiEmbeddingModel`] for OpenAI and
//! every OpenAI-compatible server, Ollama included; [`GeminiEmbeddingModel`] for Gemini) and
//! what a [`Store`](crate::Store) with a [`StoreIndex`](crate::store::StoreIndex) uses to embed
//! documents and queries. [`init_embedding_model`] builds one from a `provider:model` string,
//! like [`init_chat_model`](crate::init_chat_model).
//!
//! [`EmbeddingModel::embed`] splits a long list of texts into requests of at most
//! [`max_batch_size`](EmbeddingModel::max_batch_size) texts and returns the vectors in input
//! order. Requests go through the same transport as the chat models: retries with backoff
//! (429 and 5xx), the client-side rate limit, timeouts, cassettes, and the key redacted from
//! every error.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use agentry::embed::{EmbeddingModel, Purpose};
//! use agentry::testing::HashEmbeddingModel;
//!
//! let model = HashEmbeddingModel::new(64);
//! let texts = vec!["red apples".to_string(), "green apples".to_string()];
//! let out = model.embed(&texts, Purpose::Document).await.unwrap();
//! assert_eq!(out.vectors.len(), 2);
//! assert_eq!(out.vectors[0].len(), 64);
//! # }
//! ```
//!
//! [`OpenAiEmbeddingModel`]: crate::providers::openai::OpenAiEmbeddingModel
//! [`GeminiEmbeddingModel`]: crate::providers::gemini::GeminiEmbeddingModel

mod init;

pub use init::init_embedding_model;

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;

use crate::model::ModelError;

/// What a text is embedded for. Providers that distinguish the two (Gemini's `taskType`)
/// send it; the others ignore it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Purpose {
    /// A document to be found later (stored in an index).
    #[default]
    Document,
    /// A search query, compared with documents.
    Query,
}

/// Tokens an embedding request consumed, as the provider reported them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EmbeddingUsage {
    /// Input tokens, when the provider reports them (OpenAI does; Gemini's
    /// `batchEmbedContents` answer carries no count, so this stays `None` there).
    pub input_tokens: Option<u64>,
    /// HTTP requests made (one per batch).
    pub requests: u32,
}

/// The sum of two usages (token counts add up over the requests that reported one).
impl std::ops::Add for EmbeddingUsage {
    type Output = EmbeddingUsage;

    fn add(self, other: EmbeddingUsage) -> EmbeddingUsage {
        let input_tokens = match (self.input_tokens, other.input_tokens) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
        };
        EmbeddingUsage {
            input_tokens,
            requests: self.requests.saturating_add(other.requests),
        }
    }
}

/// The vectors of some texts, in the texts' order, and what computing them cost.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Embeddings {
    /// One vector per input text, in input order.
    pub vectors: Vec<Vec<f32>>,
    /// The usage of every request made.
    pub usage: EmbeddingUsage,
}

/// A model that turns texts into vectors.
///
/// Implementors provide [`embed_batch`](Self::embed_batch) (one request); callers use
/// [`embed`](Self::embed), which splits the input into batches of at most
/// [`max_batch_size`](Self::max_batch_size) texts and checks every answer.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an embedding model",
    label = "this does not implement `agentry::embed::EmbeddingModel`",
    note = "use `OpenAiEmbeddingModel`, `GeminiEmbeddingModel` or `init_embedding_model(\"openai:text-embedding-3-small\")`; in tests, `agentry::testing::HashEmbeddingModel`"
)]
pub trait EmbeddingModel: Send + Sync + 'static {
    /// The provider's name (`openai`, `ollama`, `google`, ...).
    fn provider(&self) -> &str;

    /// The model's name.
    fn model_name(&self) -> &str;

    /// The length of the vectors asked for (the `dimensions` option), when set.
    fn dimensions(&self) -> Option<usize>;

    /// The most texts one request carries.
    fn max_batch_size(&self) -> usize;

    /// Embeds `texts` in one request (at most [`max_batch_size`](Self::max_batch_size) of
    /// them). The answer holds one vector per text, in order.
    fn embed_batch<'a>(
        &'a self,
        texts: &'a [String],
        purpose: Purpose,
    ) -> BoxFuture<'a, Result<Embeddings, ModelError>>;

    /// Embeds any number of texts: batches of at most
    /// [`max_batch_size`](Self::max_batch_size), sent one after the other, the vectors
    /// returned in input order. An answer with the wrong number of vectors, vectors of
    /// different lengths, or of another length than [`dimensions`](Self::dimensions) asked
    /// for is a [`ModelError::Decode`].
    fn embed<'a>(
        &'a self,
        texts: &'a [String],
        purpose: Purpose,
    ) -> BoxFuture<'a, Result<Embeddings, ModelError>> {
        async move {
            let cap = self.max_batch_size().max(1);
            let mut out = Embeddings {
                vectors: Vec::with_capacity(texts.len()),
                usage: EmbeddingUsage::default(),
            };
            for chunk in texts.chunks(cap) {
                let batch = self.embed_batch(chunk, purpose).await?;
                check_batch(&batch, chunk.len(), self.dimensions(), out.vectors.first())?;
                out.usage = out.usage + batch.usage;
                out.vectors.extend(batch.vectors);
            }
            Ok(out)
        }
        .boxed()
    }

    /// The vector of one query text.
    fn embed_query<'a>(&'a self, text: &'a str) -> BoxFuture<'a, Result<Vec<f32>, ModelError>> {
        async move {
            let texts = [text.to_owned()];
            let mut out = self.embed(&texts, Purpose::Query).await?;
            out.vectors
                .pop()
                .ok_or_else(|| ModelError::Decode("the answer holds no vector".into()))
        }
        .boxed()
    }
}

/// Checks one batch's answer: `expected` vectors of one length (`dimensions` when asked for,
/// the length of `first` of the earlier batches otherwise).
fn check_batch(
    batch: &Embeddings,
    expected: usize,
    dimensions: Option<usize>,
    first: Option<&Vec<f32>>,
) -> Result<(), ModelError> {
    if batch.vectors.len() != expected {
        return Err(ModelError::Decode(format!(
            "asked for {expected} embeddings, the answer holds {}",
            batch.vectors.len()
        )));
    }
    let want = dimensions.or(first.map(Vec::len));
    let want = want.or(batch.vectors.first().map(Vec::len));
    if let Some(want) = want
        && let Some(bad) = batch.vectors.iter().find(|v| v.len() != want)
    {
        return Err(ModelError::Decode(format!(
            "embeddings of {want} dimensions expected, the answer holds one of {}",
            bad.len()
        )));
    }
    if batch.vectors.iter().flatten().any(|x| !x.is_finite()) {
        return Err(ModelError::Decode(
            "the answer holds a non-finite number in an embedding".into(),
        ));
    }
    Ok(())
}

/// A shared embedding model.
pub type SharedEmbeddingModel = Arc<dyn EmbeddingModel>;

impl<M: EmbeddingModel + ?Sized> EmbeddingModel for Arc<M> {
    fn provider(&self) -> &str {
        (**self).provider()
    }
    fn model_name(&self) -> &str {
        (**self).model_name()
    }
    fn dimensions(&self) -> Option<usize> {
        (**self).dimensions()
    }
    fn max_batch_size(&self) -> usize {
        (**self).max_batch_size()
    }
    fn embed_batch<'a>(
        &'a self,
        texts: &'a [String],
        purpose: Purpose,
    ) -> BoxFuture<'a, Result<Embeddings, ModelError>> {
        (**self).embed_batch(texts, purpose)
    }
}
