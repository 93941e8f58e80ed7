//! Documents, audio and files on the wire: each provider's request body against its
//! documented shape (Anthropic `document` blocks, Chat Completions `file` / `input_audio`
//! parts, Responses `input_file`, Gemini `inlineData` / `fileData`), in user messages and in
//! tool results.

#[path = "conformance/server.rs"]
mod server;

use agentry::model::{ChatModel, ChatRequest};
use agentry::providers::anthropic::AnthropicModel;
use agentry::providers::gemini::GeminiModel;
use agentry::providers::openai_responses::OpenAiResponsesModel;
use agentry::testing::{MockResponse, MockServer};
use agentry::{AudioFormat, ContentBlock, Message, ToolCall, ToolResultMessage};
use serde_json::{Value, json};
use server::{Reply, Server};

/// `%PDF-1.7` in base64.
const PDF_B64: &str = "JVBERi0xLjc=";

/// A conversation with every kind of part: a user turn with documents and audio, a tool call
/// whose result carries an image and a PDF.
fn conversation(audio: bool) -> Vec<Message> {
    let mut parts = vec![
        ContentBlock::text("Compare these."),
        ContentBlock::pdf(b"%PDF-1.7").with_filename("report.pdf"),
        ContentBlock::text_document("Plain notes."),
        ContentBlock::file_id("file-abc123"),
    ];
    if audio {
        parts.push(ContentBlock::audio(b"RIFF", AudioFormat::Wav));
    }
    vec![
        Message::user_parts(parts),
        Message::assistant_tool_calls(vec![ToolCall::new("call_1", "chart", "{}")]),
        Message::Tool(ToolResultMessage {
            call_id: "call_1".into(),
            name: "chart".into(),
            content: vec![
                ContentBlock::text("Here is the chart."),
                ContentBlock::image(b"png", "image/png"),
            ],
            is_error: false,
        }),
    ]
}

#[tokio::test]
async fn anthropic_takes_document_blocks_and_media_in_tool_results() {
    let done = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}});
    let server = Server::start(vec![Reply::json(200, &done)]).await;
    let model = AnthropicModel::builder("claude-sonnet-4-5")
        .base_url(server.url())
        .api_key("sk-ant-mm-test-0123456789")
        .header("anthropic-beta", "files-api-2025-04-14")
        .build()
        .unwrap();
    let mut messages = conversation(false);
    messages[0] = Message::user_parts(vec![
        ContentBlock::text("Compare these."),
        ContentBlock::pdf(b"%PDF-1.7").with_filename("report.pdf"),
        ContentBlock::text_document("Plain notes."),
        ContentBlock::file_bytes(b"hello", "text/plain"),
        ContentBlock::file_url("https://example.com/a.pdf", "application/pdf"),
        ContentBlock::file_id("file-abc123"),
    ]);
    if let Message::Tool(result) = &mut messages[2] {
        result.content.push(ContentBlock::pdf(b"%PDF-1.7"));
    }
    model.invoke(ChatRequest::new(messages)).await.unwrap();
    let sent = server.request();
    assert_eq!(
        sent.headers.get("anthropic-beta").unwrap(),
        "files-api-2025-04-14"
    );
    assert_eq!(
        sent.body["messages"][0]["content"],
        json!([
            {"type": "text", "text": "Compare these."},
            {"type": "document", "title": "report.pdf",
             "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64}},
            {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "Plain notes."}},
            {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "hello"}},
            {"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}},
            {"type": "document", "source": {"type": "file", "file_id": "file-abc123"}}
        ])
    );
    assert_eq!(
        sent.body["messages"][2]["content"],
        json!([{
            "type": "tool_result", "tool_use_id": "call_1",
            "content": [
                {"type": "text", "text": "Here is the chart."},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "cG5n"}},
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64}}
            ]
        }])
    );
}

#[tokio::test]
async fn chat_completions_takes_file_and_input_audio_parts() {
    let server =
        MockServer::with_script([MockResponse::text("ok"), MockResponse::text("ok")]).await;
    let model = server.openai_model("gpt-4o-audio-preview-2024-12-17");
    // The audio model takes audio; the user turn without images or PDFs goes to it.
    let request = vec![Message::user_parts(vec![
        ContentBlock::text("Transcribe."),
        ContentBlock::audio(b"RIFF", AudioFormat::Wav),
        ContentBlock::audio(b"ID3", AudioFormat::Mp3),
    ])];
    model.invoke(ChatRequest::new(request)).await.unwrap();
    assert_eq!(
        server.requests()[0].body["messages"][0]["content"],
        json!([
            {"type": "text", "text": "Transcribe."},
            {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
            {"type": "input_audio", "input_audio": {"data": "SUQz", "format": "mp3"}}
        ])
    );

    let model = server.openai_model("gpt-4o");
    let mut messages = conversation(false);
    messages.push(Message::user("Thanks."));
    model.invoke(ChatRequest::new(messages)).await.unwrap();
    let body = &server.requests()[1].body;
    assert_eq!(
        body["messages"][0]["content"],
        json!([
            {"type": "text", "text": "Compare these."},
            {"type": "file", "file": {"filename": "report.pdf", "file_data": format!("data:application/pdf;base64,{PDF_B64}")}},
            {"type": "text", "text": "Plain notes."},
            {"type": "file", "file": {"file_id": "file-abc123"}}
        ])
    );
    // Tool messages are text only: the image follows the tool results in a user message,
    // before the next user turn.
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "user", "user"]);
    assert_eq!(
        body["messages"][2],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "Here is the chart."})
    );
    assert_eq!(
        body["messages"][3],
        json!({"role": "user", "content": [
            {"type": "text", "text": "The result of tool call `call_1` (`chart`) includes:"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,cG5n"}}
        ]})
    );
}

#[tokio::test]
async fn chat_completions_puts_the_media_of_parallel_results_after_the_last_one() {
    let server = MockServer::with_script([MockResponse::text("ok")]).await;
    let model = server.openai_model("gpt-4o");
    let result = |id: &str, block: ContentBlock| {
        Message::Tool(ToolResultMessage {
            call_id: id.into(),
            name: "snap".into(),
            content: vec![block],
            is_error: false,
        })
    };
    let messages = vec![
        Message::user("Two snapshots."),
        Message::assistant_tool_calls(vec![
            ToolCall::new("a", "snap", "{}"),
            ToolCall::new("b", "snap", "{}"),
        ]),
        result("a", ContentBlock::image_url("https://example.com/a.png")),
        result("b", ContentBlock::pdf(b"%PDF-1.7")),
    ];
    model.invoke(ChatRequest::new(messages)).await.unwrap();
    let sent = &server.requests()[0].body["messages"];
    assert_eq!(sent.as_array().unwrap().len(), 5);
    assert_eq!(
        sent[2]["content"],
        "[the result's images and files follow in the next message]"
    );
    assert_eq!(sent[3]["tool_call_id"], "b");
    assert_eq!(
        sent[4]["content"],
        json!([
            {"type": "text", "text": "The result of tool call `a` (`snap`) includes:"},
            {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
            {"type": "text", "text": "The result of tool call `b` (`snap`) includes:"},
            {"type": "file", "file": {"filename": "document.pdf", "file_data": format!("data:application/pdf;base64,{PDF_B64}")}}
        ])
    );
}

#[tokio::test]
async fn responses_takes_input_file_parts_and_media_in_function_call_output() {
    let done = json!({"id": "resp_1", "model": "gpt-4.1", "status": "completed",
        "output": [{"type": "message", "id": "msg_1", "role": "assistant", "content": [{"type": "output_text", "text": "ok", "annotations": []}]}]});
    let server = Server::start(vec![Reply::json(200, &done)]).await;
    let model = OpenAiResponsesModel::builder("gpt-4.1")
        .base_url(format!("{}/v1", server.url()))
        .api_key("sk-mm-test-0123456789")
        .build()
        .unwrap();
    let mut messages = conversation(false);
    if let Message::User(m) = &mut messages[0] {
        m.content.push(ContentBlock::file_url(
            "https://example.com/sheet.xlsx",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        ));
    }
    model.invoke(ChatRequest::new(messages)).await.unwrap();
    let input = &server.request().body["input"];
    assert_eq!(
        input[0],
        json!({"role": "user", "content": [
            {"type": "input_text", "text": "Compare these."},
            {"type": "input_file", "filename": "report.pdf", "file_data": format!("data:application/pdf;base64,{PDF_B64}")},
            {"type": "input_text", "text": "Plain notes."},
            {"type": "input_file", "file_id": "file-abc123"},
            {"type": "input_file", "file_url": "https://example.com/sheet.xlsx"}
        ]})
    );
    assert_eq!(
        input[2],
        json!({"type": "function_call_output", "call_id": "call_1", "output": [
            {"type": "input_text", "text": "Here is the chart."},
            {"type": "input_image", "image_url": "data:image/png;base64,cG5n"}
        ]})
    );
}

#[tokio::test]
async fn gemini_takes_inline_and_file_data_and_media_in_function_responses() {
    let done = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}]});
    let server = Server::start(vec![Reply::json(200, &done)]).await;
    let model = GeminiModel::builder("gemini-2.5-flash")
        .base_url(server.url())
        .api_key("AIza-mm-test-0123456789")
        .build()
        .unwrap();
    let mut messages = conversation(true);
    if let Message::User(m) = &mut messages[0] {
        m.content.push(ContentBlock::file_url(
            "https://example.com/talk.mp3",
            "audio/mp3",
        ));
    }
    model.invoke(ChatRequest::new(messages)).await.unwrap();
    let contents = &server.request().body["contents"];
    assert_eq!(
        contents[0]["parts"],
        json!([
            {"text": "Compare these."},
            {"inlineData": {"mimeType": "application/pdf", "data": PDF_B64}},
            {"text": "Plain notes."},
            {"fileData": {"fileUri": "file-abc123"}},
            {"inlineData": {"mimeType": "audio/wav", "data": "UklGRg=="}},
            {"fileData": {"mimeType": "audio/mp3", "fileUri": "https://example.com/talk.mp3"}}
        ])
    );
    assert_eq!(
        contents[2]["parts"],
        json!([{"functionResponse": {
            "id": "call_1",
            "name": "chart",
            "response": {"output": "Here is the chart."},
            "parts": [{"inlineData": {"mimeType": "image/png", "data": "cG5n"}}]
        }}])
    );
}

#[test]
fn media_parts_round_trip_through_json() {
    let messages = conversation(true);
    let json = serde_json::to_value(&messages).unwrap();
    assert_eq!(
        json[0]["content"][1],
        json!({"type": "file", "source": {"kind": "base64", "media_type": "application/pdf", "data": PDF_B64}, "filename": "report.pdf"})
    );
    assert_eq!(
        json[0]["content"][4],
        json!({"type": "audio", "format": "wav", "data": "UklGRg=="})
    );
    let back: Vec<Message> = serde_json::from_value(json).unwrap();
    assert_eq!(back, messages);
    let _: Value = serde_json::to_value(&back).unwrap();
}
