//! A model's setup and bookkeeping: its key never shown, one variable pointing it at a
//! compatible server, the network denied, usage tracked per model.

use super::*;

#[tokio::test]
async fn api_key_never_shows() {
    let key = "sk-proj-SECRET-0123456789abcdef";
    let server = MockServer::with_script([MockResponse::error(
        401,
        &format!("Incorrect API key provided: {key}. You can find your API key at https://platform.openai.com/account/api-keys."),
        "invalid_request_error",
        None,
        Some("invalid_api_key"),
    )])
    .await;
    let model = OpenAiModel::builder("gpt-4o-mini")
        .base_url(server.url())
        .api_key(key)
        .build()
        .unwrap();
    assert!(!format!("{model:?}").contains(key));
    assert!(!format!("{:?}", OpenAiModel::builder("gpt-4o-mini").api_key(key)).contains(key));
    let err = model
        .invoke(ChatRequest::new(vec![Message::user("hi")]))
        .await
        .unwrap_err();
    assert!(matches!(err, ModelError::Authentication { .. }));
    assert!(!err.to_string().contains(key), "{err}");
    assert!(!format!("{err:?}").contains(key));
    assert!(
        err.to_string()
            .contains("Incorrect API key provided: [redacted]"),
        "{err}"
    );
    // The key was sent, though.
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some(format!("Bearer {key}").as_str())
    );
}

#[tokio::test]
async fn one_variable_points_openai_at_any_compatible_server() {
    let server = MockServer::with_script([MockResponse::text("hello from a local server")]).await;
    let url = server.url();
    let model = chat_model_builder("openai:gpt-4o-mini")
        .unwrap()
        .env(move |name| (name == "OPENAI_BASE_URL").then(|| url.clone()))
        .build()
        .unwrap();
    let a = model
        .invoke(ChatRequest::new(vec![Message::user("hi")]))
        .await
        .unwrap();
    assert_eq!(a.message.text(), "hello from a local server");
    assert_eq!(
        server.requests()[0].header("authorization"),
        None,
        "no key, no header"
    );
}

#[tokio::test]
async fn real_network_can_be_denied() {
    agentry::testing::deny_real_network();
    let model = OpenAiModel::builder("gpt-4o-mini")
        .api_key("sk-unused-0123456789")
        .build()
        .unwrap();
    let err = model
        .invoke(ChatRequest::new(vec![Message::user("hi")]))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ModelError::Configuration(m) if m.contains("api.openai.com")),
        "{err}"
    );
    let events: Vec<_> = model
        .stream(ChatRequest::new(vec![Message::user("hi")]))
        .collect()
        .await;
    assert!(matches!(
        events.as_slice(),
        [Err(ModelError::Configuration(_))]
    ));
    // Loopback still works.
    let server = MockServer::with_script([MockResponse::text("local")]).await;
    assert_eq!(
        server
            .openai_model("m")
            .invoke(ChatRequest::new(vec![Message::user("hi")]))
            .await
            .unwrap()
            .message
            .text(),
        "local"
    );
}

#[tokio::test]
async fn usage_is_tracked_per_model_across_calls_and_streams() {
    let u = |i, o| Usage {
        input_tokens: i,
        output_tokens: o,
        requests: 1,
        ..Usage::default()
    };
    let server = MockServer::with_script([
        MockResponse::text("a").usage(u(10, 1)),
        MockResponse::text("b").usage(u(20, 2)),
        MockResponse::text("c").usage(u(30, 3)),
        MockResponse::text("d").usage(u(40, 4)),
    ])
    .await;
    let tracker = UsageTracker::new();
    let mini = server
        .openai_builder("gpt-4o-mini")
        .usage_tracker(tracker.clone())
        .build()
        .unwrap();
    let big: Arc<dyn ChatModel> = tracker.wrap(Arc::new(server.openai_model("gpt-4o")));
    let ask = || ChatRequest::new(vec![Message::user("hi")]);

    mini.invoke(ask()).await.unwrap();
    let events: Vec<_> = mini.clone().stream(ask()).collect().await;
    assert!(events.iter().all(Result::is_ok));
    big.invoke(ask()).await.unwrap();
    let _: Vec<_> = big.stream(ask()).collect().await;

    assert_eq!(tracker.usage("gpt-4o-mini"), u(10, 1) + u(20, 2));
    assert_eq!(tracker.usage("gpt-4o"), u(30, 3) + u(40, 4));
    assert_eq!(tracker.total().requests, 4);
    assert_eq!(tracker.total().total_tokens(), 110);
    assert_eq!(
        tracker.to_string(),
        "gpt-4o: 2 requests, 70 input tokens, 7 output tokens\ngpt-4o-mini: 2 requests, 30 input tokens, 3 output tokens"
    );
}
