//! Provider-specific request features of issue 10: provider-hosted tools and their result
//! blocks (item 5), prompt caching and the Responses reasoning summary level (item 6), and
//! several choices on the Chat Completions model API (item 9).

#[path = "conformance/server.rs"]
mod server;

use agentry::agent::{AgentBuilder, NoTools};
use agentry::model::{ChatModel, ChatRequest, ModelError, PromptCache, ProviderTool, StreamEvent};
use agentry::providers::anthropic::AnthropicModel;
use agentry::providers::gemini::GeminiModel;
use agentry::providers::openai::{ChoiceEvent, OpenAiModel};
use agentry::providers::openai_responses::OpenAiResponsesModel;
use agentry::{ContentBlock, Message, ToolDefinition};
use futures::StreamExt;
use serde_json::{Value, json};
use server::{Reply, Server, sse_event};

const KEY: &str = "sk-extras-test-0123456789";

fn weather() -> ToolDefinition {
    ToolDefinition::new(
        "get_weather",
        "Current weather for a city.",
        json!({ "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"] }),
        false,
    )
}

fn ask() -> ChatRequest {
    let mut req = ChatRequest::new(vec![
        Message::system("Be brief."),
        Message::user("What is the news in Paris?"),
    ]);
    req.tools = vec![weather().into()].into();
    req
}

fn anthropic(server: &Server) -> AnthropicModel {
    AnthropicModel::builder("claude-sonnet-4-5")
        .base_url(server.url())
        .api_key(KEY)
        .build()
        .unwrap()
}

// ----------------------------------------------------------------- item 5: Anthropic

/// A search answer as Anthropic sends it whole.
fn search_blocks() -> Vec<Value> {
    vec![
        json!({"type": "text", "text": "Let me search."}),
        json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "paris news"}}),
        json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
            {"type": "web_search_result", "url": "https://example.com/a", "title": "A", "encrypted_content": "EqgfCioIARgBIiQ3", "page_age": null}
        ]}),
        json!({"type": "text", "text": "Paris is calm."}),
    ]
}

fn search_stream() -> String {
    let ev = |name: &str, data: Value| sse_event(name, &data);
    let blocks = search_blocks();
    [
        ev("message_start", json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "usage": {"input_tokens": 20, "output_tokens": 1}}})),
        ev("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
        ev("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me search."}})),
        ev("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        ev("content_block_start", json!({"type": "content_block_start", "index": 1, "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}})),
        ev("content_block_delta", json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"query\": \"pa"}})),
        ev("content_block_delta", json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "ris news\"}"}})),
        ev("content_block_stop", json!({"type": "content_block_stop", "index": 1})),
        ev("content_block_start", json!({"type": "content_block_start", "index": 2, "content_block": blocks[2]})),
        ev("content_block_stop", json!({"type": "content_block_stop", "index": 2})),
        ev("content_block_start", json!({"type": "content_block_start", "index": 3, "content_block": {"type": "text", "text": ""}})),
        ev("content_block_delta", json!({"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta", "text": "Paris is calm."}})),
        ev("content_block_stop", json!({"type": "content_block_stop", "index": 3})),
        ev("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 40}})),
        ev("message_stop", json!({"type": "message_stop"})),
    ]
    .concat()
}

#[tokio::test]
async fn anthropic_server_tool_blocks_in_a_stream_match_the_whole_answer_and_go_back_unchanged() {
    let whole = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": search_blocks(), "stop_reason": "end_turn", "usage": {"input_tokens": 20, "output_tokens": 40}});
    let done = json!({"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "usage": {"input_tokens": 5, "output_tokens": 1}});
    let server = Server::start(vec![
        Reply::sse(search_stream()),
        Reply::json(200, &whole),
        Reply::json(200, &done),
    ])
    .await;
    let model = anthropic(&server);
    let mut req = ask();
    req.provider_tools
        .push(ProviderTool::anthropic_web_search(Some(3)));

    let mut stream = model.stream(req.clone());
    let mut streamed = None;
    while let Some(ev) = stream.next().await {
        if let StreamEvent::Completed { response } = ev.expect("the stream parses") {
            streamed = Some(response);
        }
    }
    let streamed = streamed.expect("a completed answer");
    let whole = model.invoke(req.clone()).await.unwrap();
    assert_eq!(
        streamed.message, whole.message,
        "streamed and whole answers agree"
    );
    assert!(
        streamed.message.tool_calls.is_empty(),
        "server tools are not client calls"
    );
    let kinds: Vec<String> = streamed
        .message
        .content
        .iter()
        .map(|b| match b {
            ContentBlock::Other { provider, value } => {
                format!("{provider}:{}", value["type"].as_str().unwrap())
            }
            ContentBlock::Text { .. } => "text".into(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "text",
            "anthropic:server_tool_use",
            "anthropic:web_search_tool_result",
            "text"
        ]
    );

    // Declared beside the function tool, as Anthropic defines it.
    let sent = &server.requests()[0].body;
    assert_eq!(sent["tools"][0]["name"], "get_weather");
    assert_eq!(
        sent["tools"][1],
        json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 3})
    );

    // The blocks go back unchanged in the history.
    let mut history = req.messages.clone();
    history.push(Message::Assistant(streamed.message.clone()));
    history.push(Message::user("Thanks."));
    req.messages = history;
    model.invoke(req).await.unwrap();
    let sent = &server.requests()[2].body["messages"];
    assert_eq!(sent[1]["content"], json!(search_blocks()));
}

#[tokio::test]
async fn hosted_tools_of_another_provider_are_refused() {
    let server = Server::start(vec![]).await;
    let mut req = ask();
    req.provider_tools.push(ProviderTool::openai_web_search());
    let err = anthropic(&server).invoke(req.clone()).await.unwrap_err();
    assert!(matches!(err, ModelError::Unsupported { .. }), "{err:?}");
    let chat = OpenAiModel::compatible("m", format!("{}/v1", server.url()))
        .build()
        .unwrap();
    let err = chat.invoke(req).await.unwrap_err();
    assert!(matches!(err, ModelError::Unsupported { .. }), "{err:?}");
    assert!(server.requests().is_empty(), "nothing is sent");
}

// ----------------------------------------------------------- item 6: Anthropic caching

fn anthropic_done() -> Reply {
    Reply::json(
        200,
        &json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 5, "output_tokens": 1, "cache_read_input_tokens": 900, "cache_creation_input_tokens": 0}}),
    )
}

#[tokio::test]
async fn anthropic_cache_control_on_system_tools_and_messages() {
    let server = Server::start(vec![anthropic_done(), anthropic_done()]).await;
    let model = anthropic(&server);
    let mut req = ask();
    req.cache = PromptCache::system_and_tools().message(1);
    let r = model.invoke(req.clone()).await.unwrap();
    assert_eq!(r.usage.cached_input_tokens, 900, "cache reads are counted");
    let body = &server.requests()[0].body;
    let ephemeral = json!({"type": "ephemeral"});
    assert_eq!(
        body["system"],
        json!([{"type": "text", "text": "Be brief.", "cache_control": ephemeral}])
    );
    assert_eq!(body["tools"][0]["cache_control"], ephemeral);
    assert_eq!(
        body["messages"][0]["content"][0]["cache_control"],
        ephemeral
    );

    // Without breakpoints the system prompt is a plain string and nothing is marked.
    req.cache = PromptCache::default();
    model.invoke(req.clone()).await.unwrap();
    let body = &server.requests()[1].body;
    assert_eq!(body["system"], "Be brief.");
    assert!(!body.to_string().contains("cache_control"));

    // Anthropic allows four breakpoints.
    req.messages = vec![Message::system("s")].into();
    req.messages
        .extend((0..3).map(|i| Message::user(format!("m{i}"))));
    req.cache = PromptCache::system_and_tools()
        .message(1)
        .message(2)
        .message(3);
    let err = model.invoke(req).await.unwrap_err();
    assert!(
        matches!(&err, ModelError::InvalidRequest { param: Some(p), .. } if p == "cache"),
        "{err:?}"
    );
}

#[tokio::test]
async fn the_agent_switch_caches_the_system_prompt_and_tools() {
    let server = Server::start(vec![anthropic_done()]).await;
    let agent = AgentBuilder::<_, _, (), ()>::new(anthropic(&server), NoTools)
        .instructions("You are terse.")
        .cache_prompt(true)
        .temperature(0.1)
        .top_p(0.95)
        .build();
    agent.run("Hi", ()).await.unwrap();
    let body = &server.request().body;
    assert_eq!(
        body["system"][0]["cache_control"],
        json!({"type": "ephemeral"})
    );
    assert_eq!(
        body["temperature"],
        json!(0.1),
        "exact, from the agent settings"
    );
    assert_eq!(body["top_p"], json!(0.95));
}

// ------------------------------------------------ items 5 and 6: the Responses API

fn responses_done(output: Value) -> Reply {
    Reply::json(
        200,
        &json!({"id": "resp_1", "model": "o4-mini", "status": "completed", "output": output,
            "usage": {"input_tokens": 10, "output_tokens": 5}}),
    )
}

#[tokio::test]
async fn responses_hosted_tools_summary_level_and_cache_key() {
    let search = json!({"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "paris"}});
    let message = json!({"type": "message", "id": "msg_1", "role": "assistant", "content": [{"type": "output_text", "text": "Calm.", "annotations": []}]});
    let server = Server::start(vec![
        responses_done(json!([search, message])),
        responses_done(json!([message])),
    ])
    .await;
    let model = OpenAiResponsesModel::builder("o4-mini")
        .base_url(format!("{}/v1", server.url()))
        .api_key(KEY)
        .reasoning_effort("low")
        .reasoning_summary("concise")
        .build()
        .unwrap();
    let mut req = ask();
    req.provider_tools.push(ProviderTool::openai_web_search());
    req.provider_tools
        .push(ProviderTool::openai_file_search(["vs_1"]));
    req.prompt_cache_key = Some("tenant-42".into());
    let r = model.invoke(req.clone()).await.unwrap();
    let body = &server.requests()[0].body;
    assert_eq!(body["tools"][0]["name"], "get_weather");
    assert_eq!(body["tools"][1], json!({"type": "web_search"}));
    assert_eq!(
        body["tools"][2],
        json!({"type": "file_search", "vector_store_ids": ["vs_1"]})
    );
    assert_eq!(body["reasoning"]["summary"], "concise");
    assert_eq!(body["prompt_cache_key"], "tenant-42");
    // The hosted call comes back as a provider block and goes back unchanged.
    assert!(matches!(&r.message.content[0], ContentBlock::Other { value, .. } if *value == search));
    req.messages.push(Message::Assistant(r.message));
    req.messages.push(Message::user("More?"));
    model.invoke(req).await.unwrap();
    let input = &server.requests()[1].body["input"];
    assert!(
        input.as_array().unwrap().contains(&search),
        "the search call is sent back: {input}"
    );
}

// ----------------------------------------------------------------- item 5: Gemini

#[tokio::test]
async fn gemini_google_search_and_its_grounding_results() {
    let answer = json!({"responseId": "r1", "modelVersion": "gemini-2.5-flash", "candidates": [{
        "content": {"role": "model", "parts": [{"text": "Paris is calm."}]}, "finishReason": "STOP",
        "groundingMetadata": {"webSearchQueries": ["paris news"], "groundingChunks": [{"web": {"uri": "https://example.com/a", "title": "A"}}]}
    }], "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 4}});
    let stream = sse_event("", &answer);
    let server = Server::start(vec![
        Reply::json(200, &answer),
        Reply::sse(stream),
        Reply::json(200, &answer),
    ])
    .await;
    let model = GeminiModel::builder("gemini-2.5-flash")
        .base_url(server.url())
        .api_key(KEY)
        .build()
        .unwrap();
    let mut req = ask();
    req.provider_tools
        .push(ProviderTool::gemini_google_search());
    let r = model.invoke(req.clone()).await.unwrap();
    let body = &server.requests()[0].body;
    assert_eq!(
        body["tools"][0]["functionDeclarations"][0]["name"],
        "get_weather"
    );
    assert_eq!(body["tools"][1], json!({"google_search": {}}));
    let grounding = r
        .message
        .content
        .iter()
        .find_map(|b| match b {
            ContentBlock::Other { provider, value } if provider == "gemini" => Some(value.clone()),
            _ => None,
        })
        .expect("the grounding metadata as a provider block");
    assert_eq!(
        grounding["grounding_metadata"]["webSearchQueries"][0],
        "paris news"
    );

    let mut streamed = None;
    let mut events = model.stream(req.clone());
    while let Some(ev) = events.next().await {
        if let StreamEvent::Completed { response } = ev.unwrap() {
            streamed = Some(response);
        }
    }
    assert_eq!(
        streamed.unwrap().message,
        r.message,
        "streamed and whole agree"
    );

    // Gemini takes no grounding part back.
    req.messages.push(Message::Assistant(r.message));
    req.messages.push(Message::user("More?"));
    model.invoke(req).await.unwrap();
    let sent = server.requests()[2].body["contents"].to_string();
    assert!(!sent.contains("grounding"), "{sent}");
}

// ------------------------------------------------------------- item 9: several choices

fn chat_model(server: &Server) -> OpenAiModel {
    OpenAiModel::builder("gpt-4o-mini")
        .base_url(format!("{}/v1", server.url()))
        .api_key(KEY)
        .build()
        .unwrap()
}

#[tokio::test]
async fn n_choices_whole_and_streamed() {
    let whole = json!({"id": "chatcmpl-1", "model": "gpt-4o-mini", "choices": [
        {"index": 1, "message": {"role": "assistant", "content": "Felix"}, "finish_reason": "stop"},
        {"index": 0, "message": {"role": "assistant", "content": "Tom"}, "finish_reason": "stop"},
        {"index": 2, "message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]}, "finish_reason": "tool_calls"}
    ], "usage": {"prompt_tokens": 9, "completion_tokens": 6}});
    let chunk = |choices: Value| {
        sse_event(
            "",
            &json!({"id": "chatcmpl-2", "model": "gpt-4o-mini", "choices": choices}),
        )
    };
    let stream = [
        chunk(json!([{"index": 0, "delta": {"role": "assistant", "content": "To"}}, {"index": 1, "delta": {"content": "Fe"}}])),
        chunk(json!([{"index": 1, "delta": {"content": "lix"}, "finish_reason": "stop"}])),
        chunk(json!([{"index": 0, "delta": {"content": "m"}, "finish_reason": "stop"}])),
        sse_event("", &json!({"id": "chatcmpl-2", "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 4}})),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let server = Server::start(vec![Reply::json(200, &whole), Reply::sse(stream)]).await;
    let tracker = agentry::model::UsageTracker::new();
    let model = OpenAiModel::builder("gpt-4o-mini")
        .base_url(format!("{}/v1", server.url()))
        .api_key(KEY)
        .usage_tracker(tracker.clone())
        .build()
        .unwrap();

    let answer = model.invoke_choices(ask(), 3).await.unwrap();
    let texts: Vec<String> = answer.choices.iter().map(|c| c.message.text()).collect();
    assert_eq!(texts, ["Tom", "Felix", ""]);
    assert_eq!(answer.choices[2].message.tool_calls[0].name, "get_weather");
    assert_eq!(answer.usage.output_tokens, 6);
    assert_eq!(server.requests()[0].body["n"], 3);

    let mut deltas = vec![String::new(), String::new()];
    let mut done = None;
    let mut events = model.stream_choices(ask(), 2);
    while let Some(ev) = events.next().await {
        match ev.unwrap() {
            ChoiceEvent::Delta {
                choice,
                event: StreamEvent::TextDelta { text },
            } => deltas[choice].push_str(&text),
            ChoiceEvent::Completed { response } => done = Some(response),
            _ => {}
        }
    }
    assert_eq!(deltas, ["Tom", "Felix"]);
    let done = done.expect("completed");
    let texts: Vec<String> = done.choices.iter().map(|c| c.message.text()).collect();
    assert_eq!(texts, ["Tom", "Felix"]);
    assert_eq!(done.usage.output_tokens, 4);
    let body = &server.requests()[1].body;
    assert_eq!(
        (body["n"].clone(), body["stream"].clone()),
        (json!(2), json!(true))
    );

    let total = tracker.total();
    assert_eq!(
        (total.requests, total.output_tokens),
        (2, 10),
        "each request counted once"
    );

    // The agent's one-answer API never asks for several.
    assert!(
        server
            .requests()
            .iter()
            .all(|r| r.body.get("n") != Some(&json!(1)))
    );
}

#[tokio::test]
async fn chat_prompt_cache_key_is_sent() {
    let ok = json!({"id": "c", "model": "gpt-4o-mini", "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}]});
    let server = Server::start(vec![Reply::json(200, &ok)]).await;
    let mut req = ask();
    req.prompt_cache_key = Some("tenant-42".into());
    chat_model(&server).invoke(req).await.unwrap();
    let body = server.request().body;
    assert_eq!(body["prompt_cache_key"], "tenant-42");
    assert!(body.get("n").is_none(), "one choice unless asked");
}
