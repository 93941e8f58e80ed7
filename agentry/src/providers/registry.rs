//! `init_chat_model("provider:model")`: a model from one string and the environment.

#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
use std::sync::Arc;

#[cfg(feature = "openai")]
use super::openai::{MaxTokensField, OpenAiModel, OpenAiModelBuilder};
#[cfg(feature = "openai")]
use crate::model::ModelProfile;
use crate::model::{ModelError, SharedModel};

/// A model from a `provider:model` string, configured from the conventional environment
/// variables:
///
/// | provider | base URL (variable, default) | key |
/// |---|---|---|
/// | `openai` | `OPENAI_BASE_URL`, `https://api.openai.com/v1` | `OPENAI_API_KEY` (required for api.openai.com only) |
/// | `ollama` | `OLLAMA_BASE_URL`, `http://localhost:11434/v1` | none |
/// | `openai-compatible` | `OPENAI_COMPATIBLE_BASE_URL` (required) | `OPENAI_COMPATIBLE_API_KEY` (optional) |
/// | `vllm` | `VLLM_BASE_URL`, `http://localhost:8000/v1` | `VLLM_API_KEY` (optional) |
/// | `lmstudio` | `LMSTUDIO_BASE_URL`, `http://localhost:1234/v1` | none |
/// | `groq` | `GROQ_BASE_URL`, `https://api.groq.com/openai/v1` | `GROQ_API_KEY` |
/// | `openrouter` | `OPENROUTER_BASE_URL`, `https://openrouter.ai/api/v1` | `OPENROUTER_API_KEY` |
/// | `together` | `TOGETHER_BASE_URL`, `https://api.together.xyz/v1` | `TOGETHER_API_KEY` |
/// | `anthropic` | `ANTHROPIC_BASE_URL`, `https://api.anthropic.com` | `ANTHROPIC_API_KEY` |
/// | `openai-responses` | `OPENAI_BASE_URL`, `https://api.openai.com/v1` | `OPENAI_API_KEY` |
/// | `google`, `gemini` | `GEMINI_BASE_URL`, `https://generativelanguage.googleapis.com` | `GEMINI_API_KEY` or `GOOGLE_API_KEY` |
///
/// So a program written for `openai:gpt-4o-mini` runs against any compatible server by
/// setting `OPENAI_BASE_URL` alone. A missing key is a [`ModelError::Configuration`] that
/// names the variable. For more settings (timeouts, retries, rate limits, headers) use
/// [`chat_model_builder`] or [`OpenAiModel::builder`].
///
/// ```
/// use agentry::model::{ModelError, init_chat_model};
///
/// let model = init_chat_model("ollama:llama3.2").unwrap();
/// assert_eq!((model.provider(), model.model_name()), ("ollama", "llama3.2"));
/// assert!(matches!(init_chat_model("gpt-4o-mini"), Err(ModelError::Configuration(_))));
/// ```
///
/// A provider whose cargo feature is off (`openai`, `anthropic`, `gemini`) is a
/// [`ModelError::Configuration`] naming the feature.
pub fn init_chat_model(spec: &str) -> Result<SharedModel, ModelError> {
    if let Some(model) = other_provider(spec)? {
        return Ok(model);
    }
    #[cfg(feature = "openai")]
    {
        Ok(Arc::new(chat_model_builder(spec)?.build()?))
    }
    #[cfg(not(feature = "openai"))]
    {
        Err(ModelError::Configuration(format!(
            "model `{spec}`: the OpenAI-compatible providers need the `openai` cargo feature of agentry"
        )))
    }
}

/// The error for a provider whose cargo feature is off.
#[allow(dead_code)]
fn feature_off(provider: &str, feature: &str) -> ModelError {
    ModelError::Configuration(format!(
        "provider `{provider}` needs the `{feature}` cargo feature of agentry"
    ))
}

/// The providers with their own wire format (Models II): `anthropic:` (key `ANTHROPIC_API_KEY`),
/// `google:` / `gemini:` (key `GEMINI_API_KEY` or `GOOGLE_API_KEY`), `openai-responses:` (the
/// Responses API; key `OPENAI_API_KEY`).
fn other_provider(spec: &str) -> Result<Option<SharedModel>, ModelError> {
    let Some((provider, model)) = spec.split_once(':') else {
        return Ok(None);
    };
    let model = model.trim();
    let provider = provider.trim().to_ascii_lowercase();
    if model.is_empty() {
        return Ok(None);
    }
    let built: SharedModel = match provider.as_str() {
        #[cfg(feature = "anthropic")]
        "anthropic" => Arc::new(super::anthropic::AnthropicModel::builder(model).build()?),
        #[cfg(not(feature = "anthropic"))]
        "anthropic" => return Err(feature_off(&provider, "anthropic")),
        #[cfg(feature = "gemini")]
        "google" | "gemini" => Arc::new(super::gemini::GeminiModel::builder(model).build()?),
        #[cfg(not(feature = "gemini"))]
        "google" | "gemini" => return Err(feature_off(&provider, "gemini")),
        #[cfg(feature = "openai")]
        "openai-responses" | "openai_responses" => {
            Arc::new(super::openai_responses::OpenAiResponsesModel::builder(model).build()?)
        }
        _ => return Ok(None),
    };
    #[allow(unreachable_code)]
    Ok(Some(built))
}

/// The builder [`init_chat_model`] would use, to adjust before building.
#[cfg(feature = "openai")]
pub fn chat_model_builder(spec: &str) -> Result<OpenAiModelBuilder, ModelError> {
    let Some((provider, model)) = spec.split_once(':') else {
        return Err(ModelError::Configuration(format!(
            "model `{spec}` has no provider: write `provider:model`, e.g. `openai:gpt-4o-mini` or `ollama:llama3.2`"
        )));
    };
    let provider = provider.trim().to_ascii_lowercase();
    let model = model.trim();
    if model.is_empty() {
        return Err(ModelError::Configuration(format!(
            "model `{spec}` has no model name after `{provider}:`"
        )));
    }
    let local = |default: &str, var: &str| {
        OpenAiModel::compatible(model, default)
            .base_url_env(var, default)
            .provider_name(provider.clone())
            .profile(ModelProfile::for_compatible_model(model))
    };
    // `compatible` sets an explicit base URL; clearing it lets the variable take effect.
    let builder = match provider.as_str() {
        "openai" => OpenAiModel::builder(model),
        "ollama" => reset_base(local("http://localhost:11434/v1", "OLLAMA_BASE_URL")),
        "lmstudio" => reset_base(local("http://localhost:1234/v1", "LMSTUDIO_BASE_URL")),
        "vllm" => reset_base(local("http://localhost:8000/v1", "VLLM_BASE_URL"))
            .api_key_env("VLLM_API_KEY", false),
        "openai-compatible" | "openai_compatible" => {
            reset_base(local("", "OPENAI_COMPATIBLE_BASE_URL"))
                .api_key_env("OPENAI_COMPATIBLE_API_KEY", false)
                .require_base_url("OPENAI_COMPATIBLE_BASE_URL")
        }
        "groq" => hosted(model, &provider, "https://api.groq.com/openai/v1", "GROQ"),
        "openrouter" => hosted(
            model,
            &provider,
            "https://openrouter.ai/api/v1",
            "OPENROUTER",
        ),
        "together" => hosted(model, &provider, "https://api.together.xyz/v1", "TOGETHER"),
        other => {
            return Err(ModelError::Configuration(format!(
                "unknown provider `{other}`; known: openai, ollama, openai-compatible, vllm, lmstudio, groq, openrouter, together (and, through init_chat_model or their own builders in agentry::providers, anthropic, google, openai-responses)"
            )));
        }
    };
    Ok(builder)
}

#[cfg(feature = "openai")]
fn reset_base(b: OpenAiModelBuilder) -> OpenAiModelBuilder {
    b.clear_base_url()
}

#[cfg(feature = "openai")]
fn hosted(model: &str, provider: &str, url: &str, prefix: &str) -> OpenAiModelBuilder {
    let profile = ModelProfile {
        tool_choice_required: true,
        tool_choice_named: true,
        streaming_usage: true,
        ..ModelProfile::conservative()
    };
    OpenAiModel::compatible(model, url)
        .clear_base_url()
        .base_url_env(format!("{prefix}_BASE_URL"), url)
        .api_key_env(format!("{prefix}_API_KEY"), true)
        .provider_name(provider)
        .profile(profile)
        .max_tokens_field(MaxTokensField::MaxTokens)
}

#[cfg(all(test, feature = "openai"))]
mod tests {
    use super::*;
    use crate::model::ChatModel;

    fn env(
        vars: &'static [(&'static str, &'static str)],
    ) -> impl Fn(&str) -> Option<String> + Send + Sync {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn openai_needs_a_key_naming_the_variable() {
        let err = chat_model_builder("openai:gpt-4o-mini")
            .unwrap()
            .env(env(&[]))
            .build()
            .unwrap_err();
        assert!(
            matches!(&err, ModelError::Configuration(m) if m.contains("OPENAI_API_KEY")),
            "{err}"
        );
    }

    #[test]
    fn openai_base_url_from_env_needs_no_key() {
        let m = chat_model_builder("openai:gpt-4o-mini")
            .unwrap()
            .env(env(&[("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1/")]))
            .build()
            .unwrap();
        assert_eq!(m.endpoint(), "http://127.0.0.1:8080/v1/chat/completions");
        assert_eq!(m.provider(), "openai");
    }

    #[test]
    fn presets() {
        let m = chat_model_builder("ollama:llama3.2")
            .unwrap()
            .env(env(&[]))
            .build()
            .unwrap();
        assert_eq!(m.endpoint(), "http://localhost:11434/v1/chat/completions");
        assert_eq!(m.profile(), &ModelProfile::conservative());
        // A family known to have no tool calling gets the text-only profile (ReAct).
        let m = chat_model_builder("ollama:gemma2:9b")
            .unwrap()
            .env(env(&[]))
            .build()
            .unwrap();
        assert!(!m.profile().tool_calling);
        assert_eq!(m.profile(), &ModelProfile::text_only());
        let m = chat_model_builder("ollama:llama3.2")
            .unwrap()
            .env(env(&[("OLLAMA_BASE_URL", "http://gpu-box:11434/v1")]))
            .build()
            .unwrap();
        assert_eq!(m.endpoint(), "http://gpu-box:11434/v1/chat/completions");
        let err = chat_model_builder("groq:llama-3.1-8b-instant")
            .unwrap()
            .env(env(&[]))
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("GROQ_API_KEY"), "{err}");
        let m = chat_model_builder("groq:llama-3.1-8b-instant")
            .unwrap()
            .env(env(&[("GROQ_API_KEY", "gsk-0123456789")]))
            .build()
            .unwrap();
        assert_eq!(
            m.endpoint(),
            "https://api.groq.com/openai/v1/chat/completions"
        );
    }

    #[test]
    fn openai_compatible_requires_a_base_url() {
        let err = chat_model_builder("openai-compatible:qwen")
            .unwrap()
            .env(env(&[]))
            .build()
            .unwrap_err();
        assert!(
            err.to_string().contains("OPENAI_COMPATIBLE_BASE_URL"),
            "{err}"
        );
        let m = chat_model_builder("openai-compatible:qwen")
            .unwrap()
            .env(env(&[(
                "OPENAI_COMPATIBLE_BASE_URL",
                "http://10.0.0.2:8000/v1",
            )]))
            .build()
            .unwrap();
        assert_eq!(m.endpoint(), "http://10.0.0.2:8000/v1/chat/completions");
        assert_eq!(m.provider(), "openai-compatible");
        let m = chat_model_builder("openai-compatible:qwen")
            .unwrap()
            .base_url("http://127.0.0.1:1/v1")
            .env(env(&[]))
            .build()
            .unwrap();
        assert_eq!(m.endpoint(), "http://127.0.0.1:1/v1/chat/completions");
    }

    #[test]
    fn bad_specs() {
        for spec in ["gpt-4o", "openai:", "nope:model"] {
            assert!(
                matches!(chat_model_builder(spec), Err(ModelError::Configuration(_))),
                "{spec}"
            );
        }
    }
}
