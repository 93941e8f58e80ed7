//! Refusing, before a request is sent, the media parts (images, documents, audio, files) that
//! a provider's API or the model cannot take: a typed
//! [`ModelError::UnsupportedInput`] naming the part, the provider and the model, instead of
//! an HTTP 400 after the upload.
//!
//! Two checks, in order:
//!
//! 1. **The API**: each provider says what its wire format has a place for (a function of the
//!    block and where it stands, user message or tool result). Anthropic has no audio; Chat
//!    Completions takes only PDFs as files and no file URLs; and so on.
//! 2. **The model**: the profile's `image_input`, `pdf_input` and `audio_input`. A `false`
//!    there refuses the part only when it is definite: the model is in the table of known
//!    models, or the profile was changed from the provider's default for it. A model the
//!    table does not know (an Ollama or OpenAI-compatible model, a new snapshot) keeps the
//!    provider's permissive defaults, so it is never refused an image it may well accept.

use crate::media::PartKind;
use crate::message::{ContentBlock, Message};
use crate::model::{ModelError, ModelProfile};

/// Where a block stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// In a user message.
    User,
    /// In a tool result.
    Tool,
}

/// Whether a provider's API takes `block` at a place: `Err(reason)` when it does not.
pub(crate) type Accepts = fn(&ContentBlock, Place) -> Result<(), String>;

/// Checks every media part of the user messages and tool results of `messages`.
pub(crate) fn check(
    messages: &[Message],
    provider: &str,
    model: &str,
    profile: &ModelProfile,
    accepts: Accepts,
) -> Result<(), ModelError> {
    for (index, message) in messages.iter().enumerate() {
        let (blocks, place) = match message {
            Message::User(m) => (&m.content, Place::User),
            Message::Tool(m) => (&m.content, Place::Tool),
            _ => continue,
        };
        for block in blocks {
            let Some(part) = PartKind::of(block) else {
                continue;
            };
            let refuse = |reason: String| ModelError::UnsupportedInput {
                provider: provider.to_owned(),
                model: model.to_owned(),
                part,
                message: index,
                reason,
            };
            accepts(block, place).map_err(refuse)?;
            if let Some(field) = refused_by_profile(part, provider, model, profile) {
                return Err(refuse(format!("the model's profile has `{field}: false`")));
            }
        }
    }
    Ok(())
}

/// The profile field that refuses `part` for this model, if the refusal is definite.
fn refused_by_profile(
    part: PartKind,
    provider: &str,
    model: &str,
    profile: &ModelProfile,
) -> Option<&'static str> {
    let (field, get): (&'static str, fn(&ModelProfile) -> bool) = match part {
        PartKind::Image => ("image_input", |p| p.image_input),
        PartKind::Pdf => ("pdf_input", |p| p.pdf_input),
        PartKind::Audio => ("audio_input", |p| p.audio_input),
        PartKind::TextDocument | PartKind::File => return None,
    };
    if get(profile) {
        return None;
    }
    // Definite: the table knows the model, or the default for it was true (so the caller set
    // it false). Otherwise `false` is only an unknown model's default: let the server decide.
    let known = ModelProfile::known(provider, model).is_some();
    let default_allows = get(&ModelProfile::for_model(provider, model));
    (known || default_allows).then_some(field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AudioFormat;

    fn any(_: &ContentBlock, _: Place) -> Result<(), String> {
        Ok(())
    }

    fn user(block: ContentBlock) -> Vec<Message> {
        vec![Message::user("hi"), Message::user_parts(vec![block])]
    }

    #[test]
    fn known_models_with_a_definite_false_are_refused() {
        let model = "gpt-3.5-turbo";
        let profile = ModelProfile::for_model("openai", model);
        let err = check(
            &user(ContentBlock::image_url("https://x.invalid/a.png")),
            "openai",
            model,
            &profile,
            any,
        )
        .unwrap_err();
        assert!(matches!(
            err,
            ModelError::UnsupportedInput { part: PartKind::Image, message: 1, ref reason, .. }
                if reason.contains("image_input")
        ));
        // An override to true lets it through.
        let mut allowed = profile.clone();
        allowed.image_input = true;
        check(
            &user(ContentBlock::image_url("https://x.invalid/a.png")),
            "openai",
            model,
            &allowed,
            any,
        )
        .unwrap();
    }

    #[test]
    fn unknown_models_keep_permissive_defaults() {
        // gemma via Ollama: the compatible preset says text only, but it is not a definite no.
        let profile = ModelProfile::for_model("ollama", "gemma3:4b");
        assert!(!profile.image_input);
        check(
            &user(ContentBlock::image(b"png", "image/png")),
            "ollama",
            "gemma3:4b",
            &profile,
            any,
        )
        .unwrap();
        // An unknown OpenAI model: audio is off in the default profile, yet not refused.
        let profile = ModelProfile::for_model("openai", "my-fine-tune");
        assert!(!profile.audio_input);
        check(
            &user(ContentBlock::audio(b"RIFF", AudioFormat::Wav)),
            "openai",
            "my-fine-tune",
            &profile,
            any,
        )
        .unwrap();
    }

    #[test]
    fn a_caller_turning_an_input_off_is_obeyed() {
        let mut profile = ModelProfile::for_model("gemini", "gemini-9-ultra");
        profile.pdf_input = false;
        let err = check(
            &user(ContentBlock::pdf(b"%PDF")),
            "gemini",
            "gemini-9-ultra",
            &profile,
            any,
        )
        .unwrap_err();
        assert!(matches!(
            err,
            ModelError::UnsupportedInput {
                part: PartKind::Pdf,
                ..
            }
        ));
    }

    #[test]
    fn the_api_check_comes_first_and_names_the_part() {
        fn no_audio(block: &ContentBlock, _: Place) -> Result<(), String> {
            match block {
                ContentBlock::Audio { .. } => Err("no audio here".into()),
                _ => Ok(()),
            }
        }
        let profile = ModelProfile::for_model("anthropic", "claude-sonnet-4-5");
        let err = check(
            &user(ContentBlock::audio(b"x", AudioFormat::Mp3)),
            "anthropic",
            "claude-sonnet-4-5",
            &profile,
            no_audio,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "anthropic model `claude-sonnet-4-5` cannot take an audio part (message 1): no audio here"
        );
    }
}
