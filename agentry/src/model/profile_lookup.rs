//! Finding a model's profile in the table of known models ([`known_models`](super::known_models)).

use super::ModelProfile;
use super::known_models::{
    ANTHROPIC, ANTHROPIC_DEFAULT, GEMINI_DEFAULT, GEMINI_MODELS, OPENAI, OPENAI_DEFAULT, Row,
};

/// The provider families the table knows.
#[derive(Clone, Copy)]
enum Family {
    OpenAi,
    Anthropic,
    Gemini,
}

impl Family {
    fn of(provider: &str) -> Option<Family> {
        match provider.trim().to_ascii_lowercase().as_str() {
            "openai" | "openai-responses" | "openai_responses" => Some(Family::OpenAi),
            "anthropic" => Some(Family::Anthropic),
            "gemini" | "google" => Some(Family::Gemini),
            _ => None,
        }
    }

    fn rows(self) -> &'static [Row] {
        match self {
            Family::OpenAi => OPENAI,
            Family::Anthropic => ANTHROPIC,
            Family::Gemini => GEMINI_MODELS,
        }
    }

    fn default_profile(self) -> ModelProfile {
        match self {
            Family::OpenAi => OPENAI_DEFAULT,
            Family::Anthropic => ANTHROPIC_DEFAULT,
            Family::Gemini => GEMINI_DEFAULT,
        }
    }
}

impl ModelProfile {
    /// The profile of `model` from `provider` (`openai`, `openai-responses`, `anthropic`,
    /// `gemini` / `google`): its row in the table of known models, else the row of the
    /// longest family prefix it extends, else the provider's default
    /// ([`provider_default`](Self::provider_default)). For any other provider, the profile
    /// [`for_compatible_model`](Self::for_compatible_model) gives.
    ///
    /// A family prefix matches when a `-`, `@` or `:` follows it, so `gpt-4o` covers the dated
    /// snapshot `gpt-4o-2024-08-06` and `claude-sonnet-4-5` covers `claude-sonnet-4-5-20250929`,
    /// while a row of its own wins over the family (`gpt-4o-mini` is not `gpt-4o`, and
    /// `gpt-4o-2024-05-13`, older than structured outputs, has its own row). Case and a
    /// leading `models/` (Gemini's resource names) are ignored.
    ///
    /// ```
    /// use agentry::model::ModelProfile;
    ///
    /// let o3 = ModelProfile::for_model("openai", "o3-2025-04-16");
    /// assert!(o3.reasoning);
    /// assert_eq!(o3.context_window, Some(200_000));
    ///
    /// let mini = ModelProfile::for_model("openai", "o1-mini");
    /// assert!(!mini.tool_calling); // an agent with tools uses ReAct
    ///
    /// let claude = ModelProfile::for_model("anthropic", "claude-3-5-sonnet-20241022");
    /// assert!(!claude.native_structured_output);
    /// assert_eq!(claude.max_output_tokens, Some(8_192));
    ///
    /// // Not in the table: the provider's defaults.
    /// let next = ModelProfile::for_model("gemini", "gemini-9-ultra");
    /// assert_eq!(next, ModelProfile::provider_default("gemini").unwrap());
    /// ```
    pub fn for_model(provider: &str, model: &str) -> ModelProfile {
        match Family::of(provider) {
            Some(family) => find(family.rows(), model).unwrap_or_else(|| family.default_profile()),
            None => ModelProfile::for_compatible_model(model),
        }
    }

    /// The table's profile of `model` from `provider` (exact id, then family prefix, as in
    /// [`for_model`](Self::for_model)), or `None` when the table does not know it.
    ///
    /// ```
    /// use agentry::model::ModelProfile;
    ///
    /// assert!(ModelProfile::known("anthropic", "claude-sonnet-4-5-20250929").is_some());
    /// assert!(ModelProfile::known("openai", "my-fine-tune").is_none());
    /// ```
    pub fn known(provider: &str, model: &str) -> Option<ModelProfile> {
        find(Family::of(provider)?.rows(), model)
    }

    /// The profile a model of `provider` that the table does not know gets: every feature of
    /// the provider's API, no reasoning, limits unknown. `None` for a provider the table does
    /// not cover.
    pub fn provider_default(provider: &str) -> Option<ModelProfile> {
        Family::of(provider).map(Family::default_profile)
    }
}

/// The row of `model`: its own, else that of the longest family prefix it extends.
fn find(rows: &[Row], model: &str) -> Option<ModelProfile> {
    let lower = model.trim().to_ascii_lowercase();
    let id = lower.strip_prefix("models/").unwrap_or(&lower);
    if let Some((_, profile)) = rows.iter().find(|(name, _)| *name == id) {
        return Some(profile.clone());
    }
    rows.iter()
        .filter(|(name, _)| extends(id, name))
        .max_by_key(|(name, _)| name.len())
        .map(|(_, profile)| profile.clone())
}

/// Whether `id` is `family` followed by a separator and more.
fn extends(id: &str, family: &str) -> bool {
    id.strip_prefix(family)
        .is_some_and(|rest| rest.len() > 1 && matches!(rest.as_bytes()[0], b'-' | b'@' | b':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_ids_win_over_families() {
        let old = ModelProfile::for_model("openai", "gpt-4o-2024-05-13");
        assert!(!old.native_structured_output);
        let newer = ModelProfile::for_model("openai", "gpt-4o-2024-08-06");
        assert!(newer.native_structured_output);
        assert_eq!(newer.max_output_tokens, Some(16_384));
    }

    #[test]
    fn the_longest_family_wins() {
        let mini = ModelProfile::for_model("openai", "gpt-4o-mini-2024-07-18");
        assert_eq!(mini, ModelProfile::known("openai", "gpt-4o-mini").unwrap());
        let chat = ModelProfile::for_model("openai", "gpt-5-chat-latest");
        assert!(!chat.reasoning);
        let five = ModelProfile::for_model("openai", "gpt-5-2025-08-07");
        assert!(five.reasoning);
        assert_eq!(five.context_window, Some(400_000));
        let sonnet = ModelProfile::for_model("anthropic", "claude-sonnet-4-20250514");
        assert!(!sonnet.native_structured_output);
        let sonnet45 = ModelProfile::for_model("anthropic", "claude-sonnet-4-5-20250929");
        assert!(sonnet45.native_structured_output);
        let flash = ModelProfile::for_model("google", "models/gemini-2.5-flash-preview-09-2025");
        assert!(flash.reasoning && flash.audio_input);
    }

    #[test]
    fn a_prefix_needs_a_separator() {
        // `gpt-4` is not the family of `gpt-4o` or `gpt-4.1-…`.
        assert_eq!(
            ModelProfile::for_model("openai", "gpt-4o-2024-11-20").context_window,
            Some(128_000)
        );
        assert!(ModelProfile::known("openai", "gpt-4x").is_none());
        assert!(ModelProfile::known("openai", "o3x").is_none());
        assert!(ModelProfile::known("openai", "gpt-4-").is_none());
        assert_eq!(
            ModelProfile::for_model("openai", "gpt-4-0613").context_window,
            Some(8_192)
        );
    }

    #[test]
    fn unknown_models_and_providers() {
        assert_eq!(
            ModelProfile::for_model("openai", "ft:custom"),
            ModelProfile::provider_default("openai").unwrap()
        );
        assert!(ModelProfile::provider_default("ollama").is_none());
        assert_eq!(
            ModelProfile::for_model("ollama", "gemma2:9b"),
            ModelProfile::text_only()
        );
    }

    #[test]
    fn every_row_is_consistent() {
        for rows in [OPENAI, ANTHROPIC, GEMINI_MODELS] {
            for (id, p) in rows {
                assert_eq!(*id, id.to_ascii_lowercase(), "{id}");
                assert!(
                    p.context_window.is_some() && p.max_output_tokens.is_some(),
                    "{id}"
                );
                assert!(p.max_output_tokens <= p.context_window, "{id}");
                // A model without tools has no tool feature.
                assert!(
                    p.tool_calling || !(p.parallel_tool_calls || p.strict_tools),
                    "{id}"
                );
                assert_eq!(rows.iter().filter(|(n, _)| n == id).count(), 1, "{id}");
            }
        }
    }
}
