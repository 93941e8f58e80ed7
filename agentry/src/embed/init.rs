//! `init_embedding_model("provider:model")`: an embedding model from one string and the
//! environment.

#[cfg(any(feature = "openai", feature = "gemini"))]
use std::sync::Arc;

use super::SharedEmbeddingModel;
use crate::model::ModelError;

/// An embedding model from a `provider:model` string, configured from the same environment
/// variables as [`init_chat_model`](crate::init_chat_model):
///
/// | provider | base URL (variable, default) | key |
/// |---|---|---|
/// | `openai` | `OPENAI_BASE_URL`, `https://api.openai.com/v1` | `OPENAI_API_KEY` (required for api.openai.com only) |
/// | `ollama` | `OLLAMA_BASE_URL`, `http://localhost:11434/v1` | none |
/// | `openai-compatible` | `OPENAI_COMPATIBLE_BASE_URL` (required) | `OPENAI_COMPATIBLE_API_KEY` (optional) |
/// | `vllm` | `VLLM_BASE_URL`, `http://localhost:8000/v1` | `VLLM_API_KEY` (optional) |
/// | `lmstudio` | `LMSTUDIO_BASE_URL`, `http://localhost:1234/v1` | none |
/// | `google`, `gemini` | `GEMINI_BASE_URL`, `https://generativelanguage.googleapis.com` | `GEMINI_API_KEY` or `GOOGLE_API_KEY` |
///
/// For more settings (dimensions, batch size, retries, rate limits) use the providers'
/// builders: [`OpenAiEmbeddingModel::builder`](crate::providers::openai::OpenAiEmbeddingModel::builder),
/// [`GeminiEmbeddingModel::builder`](crate::providers::gemini::GeminiEmbeddingModel::builder).
///
/// ```
/// use agentry::embed::init_embedding_model;
///
/// let model = init_embedding_model("ollama:nomic-embed-text").unwrap();
/// assert_eq!((model.provider(), model.model_name()), ("ollama", "nomic-embed-text"));
/// assert!(init_embedding_model("text-embedding-3-small").is_err()); // no provider
/// assert!(init_embedding_model("anthropic:claude").is_err()); // no embeddings API
/// ```
///
/// A provider whose cargo feature is off (`openai`, `gemini`) is a
/// [`ModelError::Configuration`] naming the feature.
pub fn init_embedding_model(spec: &str) -> Result<SharedEmbeddingModel, ModelError> {
    let Some((provider, model)) = spec.split_once(':') else {
        return Err(ModelError::Configuration(format!(
            "embedding model `{spec}` has no provider: write `provider:model`, e.g. `openai:text-embedding-3-small`"
        )));
    };
    let provider = provider.trim().to_ascii_lowercase();
    let model = model.trim();
    if model.is_empty() {
        return Err(ModelError::Configuration(format!(
            "embedding model `{spec}` has no model name after `{provider}:`"
        )));
    }
    build(&provider, model)
}

#[cfg(feature = "openai")]
fn openai(provider: &str, model: &str) -> Option<Result<SharedEmbeddingModel, ModelError>> {
    use crate::providers::openai::OpenAiEmbeddingModel;
    let local = |var: &str, default: &str| {
        OpenAiEmbeddingModel::compatible(model, default)
            .base_url_env(var, default)
            .provider_name(provider)
    };
    let builder = match provider {
        "openai" => OpenAiEmbeddingModel::builder(model),
        "ollama" => local("OLLAMA_BASE_URL", "http://localhost:11434/v1"),
        "lmstudio" => local("LMSTUDIO_BASE_URL", "http://localhost:1234/v1"),
        "vllm" => {
            local("VLLM_BASE_URL", "http://localhost:8000/v1").api_key_env("VLLM_API_KEY", false)
        }
        "openai-compatible" | "openai_compatible" => local("OPENAI_COMPATIBLE_BASE_URL", "")
            .api_key_env("OPENAI_COMPATIBLE_API_KEY", false)
            .require_base_url("OPENAI_COMPATIBLE_BASE_URL"),
        _ => return None,
    };
    Some(builder.build().map(|m| Arc::new(m) as SharedEmbeddingModel))
}

fn build(provider: &str, model: &str) -> Result<SharedEmbeddingModel, ModelError> {
    let off = |feature: &str| {
        ModelError::Configuration(format!(
            "embedding provider `{provider}` needs the `{feature}` cargo feature of agentry"
        ))
    };
    match provider {
        "google" | "gemini" => {
            #[cfg(feature = "gemini")]
            {
                let m = crate::providers::gemini::GeminiEmbeddingModel::builder(model).build()?;
                Ok(Arc::new(m))
            }
            #[cfg(not(feature = "gemini"))]
            {
                Err(off("gemini"))
            }
        }
        "openai" | "ollama" | "lmstudio" | "vllm" | "openai-compatible" | "openai_compatible" => {
            #[cfg(feature = "openai")]
            {
                openai(provider, model).unwrap_or_else(|| Err(off("openai")))
            }
            #[cfg(not(feature = "openai"))]
            {
                let _ = model;
                Err(off("openai"))
            }
        }
        other => Err(ModelError::Configuration(format!(
            "no embedding models for provider `{other}`; known: openai, ollama, openai-compatible, vllm, lmstudio, google (gemini)"
        ))),
    }
}
