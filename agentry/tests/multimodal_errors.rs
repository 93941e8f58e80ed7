//! Parts a provider's API or a model cannot take are refused with
//! `ModelError::UnsupportedInput` before anything is sent; models the table does not know are
//! not refused on the strength of a default.

#[path = "conformance/server.rs"]
mod server;

use agentry::model::{ChatModel, ChatRequest, ModelError, ModelProfile};
use agentry::providers::anthropic::AnthropicModel;
use agentry::providers::gemini::GeminiModel;
use agentry::providers::openai_responses::OpenAiResponsesModel;
use agentry::testing::{MockResponse, MockServer};
use agentry::{AudioFormat, ContentBlock, Message, PartKind, ToolCall, ToolResultMessage};
use server::Server;

fn asking(block: ContentBlock) -> ChatRequest {
    ChatRequest::new(vec![
        Message::system("Be brief."),
        Message::user_parts(vec![ContentBlock::text("What is this?"), block]),
    ])
}

/// The refusal's fields, or a panic showing what came instead.
fn refusal(
    result: Result<agentry::model::ChatResponse, ModelError>,
) -> (String, String, PartKind, usize, String) {
    match result {
        Err(ModelError::UnsupportedInput {
            provider,
            model,
            part,
            message,
            reason,
        }) => (provider, model, part, message, reason),
        other => panic!("expected UnsupportedInput, got {other:?}"),
    }
}

#[tokio::test]
async fn anthropic_refuses_audio_and_other_inline_file_types_unsent() {
    let server = Server::start(vec![]).await;
    let model = AnthropicModel::builder("claude-sonnet-4-5")
        .base_url(server.url())
        .api_key("sk-ant-mm-test-0123456789")
        .build()
        .unwrap();
    let (provider, name, part, message, reason) = refusal(
        model
            .invoke(asking(ContentBlock::audio(b"RIFF", AudioFormat::Wav)))
            .await,
    );
    assert_eq!(
        (provider.as_str(), name.as_str(), part, message),
        ("anthropic", "claude-sonnet-4-5", PartKind::Audio, 1)
    );
    assert!(reason.contains("no audio"), "{reason}");

    let docx = ContentBlock::file_bytes(
        b"PK",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    );
    let (.., part, _, reason) = refusal(model.invoke(asking(docx)).await);
    assert_eq!(part, PartKind::File);
    assert!(reason.contains("PDFs or plain text"), "{reason}");

    let not_utf8 = ContentBlock::file_bytes([0xff, 0xfe], "text/plain");
    let (.., part, _, reason) = refusal(model.invoke(asking(not_utf8)).await);
    assert_eq!(part, PartKind::TextDocument);
    assert!(reason.contains("UTF-8"), "{reason}");
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn chat_completions_refuses_file_urls_other_files_and_other_audio_formats() {
    let server = MockServer::with_script([]).await;
    let model = server.openai_model("gpt-4o");
    let url = ContentBlock::file_url("https://example.com/a.pdf", "application/pdf");
    let (provider, name, part, _, reason) = refusal(model.invoke(asking(url)).await);
    assert_eq!(
        (provider.as_str(), name.as_str(), part),
        ("openai", "gpt-4o", PartKind::Pdf)
    );
    assert!(reason.contains("no file URLs"), "{reason}");

    let csv = ContentBlock::file_bytes(b"a,b", "application/vnd.ms-excel");
    let (.., reason) = refusal(model.invoke(asking(csv)).await);
    assert!(reason.contains("only PDFs"), "{reason}");

    let audio_model = server.openai_model("gpt-4o-audio-preview");
    let flac = ContentBlock::audio(b"fLaC", AudioFormat::Flac);
    let (.., part, _, reason) = refusal(audio_model.invoke(asking(flac)).await);
    assert_eq!(part, PartKind::Audio);
    assert!(reason.contains("wav or mp3"), "{reason}");
    assert_eq!(server.request_count(), 0);
}

#[tokio::test]
async fn known_models_with_a_definite_no_are_refused_and_overrides_win() {
    let server = MockServer::with_script([MockResponse::text("ok")]).await;
    // gpt-4o: images and PDFs, no audio.
    let model = server.openai_model("gpt-4o");
    let (.., part, message, reason) = refusal(
        model
            .invoke(asking(ContentBlock::audio(b"RIFF", AudioFormat::Wav)))
            .await,
    );
    assert_eq!((part, message), (PartKind::Audio, 1));
    assert!(reason.contains("audio_input: false"), "{reason}");
    // gpt-3.5-turbo: text only.
    let old = server.openai_model("gpt-3.5-turbo");
    let (.., part, _, _) = refusal(
        old.invoke(asking(ContentBlock::image_url("https://example.com/a.png")))
            .await,
    );
    assert_eq!(part, PartKind::Image);
    assert_eq!(server.request_count(), 0);
    // The caller says this deployment takes audio: sent.
    let overridden = server
        .openai_builder("gpt-4o")
        .adjust_profile(|p| p.audio_input = true)
        .build()
        .unwrap();
    overridden
        .invoke(asking(ContentBlock::audio(b"RIFF", AudioFormat::Wav)))
        .await
        .unwrap();
    assert_eq!(server.request_count(), 1);

    // Claude 3 Haiku takes images but no PDFs.
    let anthropic = Server::start(vec![]).await;
    let haiku = AnthropicModel::builder("claude-3-haiku-20240307")
        .base_url(anthropic.url())
        .api_key("sk-ant-mm-test-0123456789")
        .build()
        .unwrap();
    let (provider, name, part, ..) =
        refusal(haiku.invoke(asking(ContentBlock::pdf(b"%PDF"))).await);
    assert_eq!(
        (provider.as_str(), name.as_str(), part),
        ("anthropic", "claude-3-haiku-20240307", PartKind::Pdf)
    );
    assert!(anthropic.requests().is_empty());
}

#[tokio::test]
async fn models_the_table_does_not_know_keep_permissive_defaults() {
    let server = MockServer::with_script([
        MockResponse::text("a cat"),
        MockResponse::text("a cat"),
        MockResponse::text("a memo"),
    ])
    .await;
    // An Ollama-style model behind an OpenAI-compatible server, whose preset profile is
    // text-only: the server decides whether it takes images.
    let llava = server
        .openai_builder("gemma3:4b")
        .provider_name("ollama")
        .profile(ModelProfile::for_compatible_model("gemma3:4b"))
        .build()
        .unwrap();
    assert!(!ModelProfile::for_compatible_model("gemma3:4b").image_input);
    llava
        .invoke(asking(ContentBlock::image(b"png", "image/png")))
        .await
        .unwrap();
    // An OpenAI model the table does not know: images pass, and audio too although the
    // default profile has `audio_input: false`.
    let tuned = server.openai_model("ft:gpt-9:acme::abc");
    tuned
        .invoke(asking(ContentBlock::image(b"png", "image/png")))
        .await
        .unwrap();
    tuned
        .invoke(asking(ContentBlock::audio(b"RIFF", AudioFormat::Wav)))
        .await
        .unwrap();
    assert_eq!(server.request_count(), 3);
    assert_eq!(
        server.requests()[0].body["messages"][1]["content"][1]["image_url"]["url"],
        "data:image/png;base64,cG5n"
    );
}

#[tokio::test]
async fn responses_refuses_audio_and_gemini_media_by_reference_in_function_responses() {
    let server = Server::start(vec![]).await;
    let responses = OpenAiResponsesModel::builder("gpt-4.1")
        .base_url(format!("{}/v1", server.url()))
        .api_key("sk-mm-test-0123456789")
        .build()
        .unwrap();
    let (provider, .., part, _, reason) = refusal(
        responses
            .invoke(asking(ContentBlock::audio(b"ID3", AudioFormat::Mp3)))
            .await,
    );
    assert_eq!(
        (provider.as_str(), part),
        ("openai-responses", PartKind::Audio)
    );
    assert!(reason.contains("no audio input"), "{reason}");

    let gemini = GeminiModel::builder("gemini-2.5-flash")
        .base_url(server.url())
        .api_key("AIza-mm-test-0123456789")
        .build()
        .unwrap();
    // Gemini's function responses take inline media only: an image by URL and an uploaded
    // file by its URI are refused before anything is sent.
    let tool_result = |block: ContentBlock| {
        ChatRequest::new(vec![
            Message::user("Chart it."),
            Message::assistant_tool_calls(vec![ToolCall::new("c1", "chart", "{}")]),
            Message::Tool(ToolResultMessage {
                call_id: "c1".into(),
                name: "chart".into(),
                content: vec![block],
                is_error: false,
            }),
        ])
    };
    let by_url = tool_result(ContentBlock::image_url("https://example.com/chart.png"));
    let (provider, _, part, message, reason) = refusal(gemini.invoke(by_url).await);
    assert_eq!(
        (provider.as_str(), part, message),
        ("gemini", PartKind::Image, 2)
    );
    assert!(reason.contains("inline only"), "{reason}");
    let uploaded = ContentBlock::File {
        source: agentry::FileSource::FileId {
            id: "https://generativelanguage.googleapis.com/v1beta/files/abc".into(),
            media_type: Some("application/pdf".into()),
        },
        filename: None,
    };
    let (_, _, part, _, reason) = refusal(gemini.invoke(tool_result(uploaded)).await);
    assert_eq!(part, PartKind::Pdf);
    assert!(reason.contains("file URI"), "{reason}");
    assert!(server.requests().is_empty());
}

#[test]
fn the_refusal_names_the_part_the_provider_and_the_model() {
    let err = ModelError::UnsupportedInput {
        provider: "anthropic".into(),
        model: "claude-sonnet-4-5".into(),
        part: PartKind::Audio,
        message: 3,
        reason: "Anthropic's Messages API takes no audio".into(),
    };
    assert_eq!(
        err.to_string(),
        "anthropic model `claude-sonnet-4-5` cannot take an audio part (message 3): Anthropic's Messages API takes no audio"
    );
    assert!(!err.is_retryable());
}

#[tokio::test]
async fn a_streamed_request_is_refused_the_same_way() {
    use futures::StreamExt;
    let server = Server::start(vec![]).await;
    let model = AnthropicModel::builder("claude-sonnet-4-5")
        .base_url(server.url())
        .api_key("sk-ant-mm-test-0123456789")
        .build()
        .unwrap();
    let items: Vec<_> = model
        .stream(asking(ContentBlock::audio(b"RIFF", AudioFormat::Wav)))
        .collect()
        .await;
    assert!(
        matches!(
            items.as_slice(),
            [Err(ModelError::UnsupportedInput {
                part: PartKind::Audio,
                ..
            })]
        ),
        "{items:?}"
    );
    assert!(server.requests().is_empty());
}
