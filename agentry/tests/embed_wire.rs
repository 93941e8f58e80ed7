//! The embedding models against the in-process mock server: request bodies in the providers'
//! documented shapes (OpenAI `POST /v1/embeddings`; Gemini `models/{model}:batchEmbedContents`),
//! batch splitting in input order, dimensions, usage, typed errors, retries on 429.

use std::time::Duration;

use agentry::embed::{EmbeddingModel, Purpose, init_embedding_model};
use agentry::http::RetryPolicy;
use agentry::model::ModelError;
use agentry::providers::gemini::GeminiEmbeddingModel;
use agentry::providers::openai::OpenAiEmbeddingModel;
use agentry::testing::{MockResponse, MockServer, RecordedRequest};
use serde_json::{Value, json};

const KEY: &str = "sk-embed-secret-0123456789";

fn fast() -> RetryPolicy {
    RetryPolicy::default()
        .initial_delay(Duration::from_millis(1))
        .max_delay(Duration::from_millis(5))
        .jitter(false)
}

/// The vector the fake servers give text `t`: its length and first byte, in `dims` numbers.
fn fake_vector(t: &str, dims: usize) -> Vec<f32> {
    let mut v = vec![0.0; dims];
    v[0] = t.len() as f32;
    v[1 % dims] += f32::from(t.as_bytes().first().copied().unwrap_or(0));
    v
}

/// An OpenAI-shaped answer to `req`, its items in reverse order (the index says where each goes).
fn openai_answer(req: &RecordedRequest) -> MockResponse {
    let inputs = req.body["input"].as_array().cloned().unwrap_or_default();
    let dims = req.body["dimensions"].as_u64().unwrap_or(4) as usize;
    let mut data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| {
            json!({"object": "embedding", "index": i, "embedding": fake_vector(t.as_str().unwrap(), dims)})
        })
        .collect();
    data.reverse();
    MockResponse::json(json!({
        "object": "list",
        "data": data,
        "model": req.body["model"],
        "usage": {"prompt_tokens": inputs.len() * 2, "total_tokens": inputs.len() * 2}
    }))
}

fn texts(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("text number {i}")).collect()
}

#[tokio::test]
async fn openai_batches_in_order_with_dimensions_and_usage() {
    let server = MockServer::with_handler(openai_answer).await;
    let model = OpenAiEmbeddingModel::builder("text-embedding-3-small")
        .base_url(server.url())
        .api_key(KEY)
        .dimensions(8)
        .batch_size(3)
        .build()
        .unwrap();
    let input = texts(7);
    let out = model.embed(&input, Purpose::Document).await.unwrap();

    let requests = server.requests();
    assert_eq!(requests.len(), 3, "7 texts in batches of 3");
    for (req, chunk) in requests.iter().zip(input.chunks(3)) {
        assert_eq!(req.method, "POST");
        assert_eq!(req.path, "/v1/embeddings");
        assert_eq!(req.header("authorization"), Some(&*format!("Bearer {KEY}")));
        assert_eq!(
            req.body,
            json!({
                "model": "text-embedding-3-small",
                "input": chunk,
                "encoding_format": "float",
                "dimensions": 8
            })
        );
    }
    let expected: Vec<Vec<f32>> = input.iter().map(|t| fake_vector(t, 8)).collect();
    assert_eq!(out.vectors, expected);
    assert_eq!(out.usage.input_tokens, Some(14));
    assert_eq!(out.usage.requests, 3);
}

#[tokio::test]
async fn openai_without_dimensions_sends_none() {
    let server = MockServer::with_handler(openai_answer).await;
    let model = OpenAiEmbeddingModel::compatible("nomic-embed-text", server.url())
        .build()
        .unwrap();
    let out = model
        .embed(&["hello".to_string()], Purpose::Query)
        .await
        .unwrap();
    let body = &server.requests()[0].body;
    assert!(body.get("dimensions").is_none(), "{body}");
    assert!(server.requests()[0].header("authorization").is_none());
    assert_eq!(out.vectors, vec![fake_vector("hello", 4)]);
}

#[tokio::test]
async fn openai_error_is_typed_and_the_key_never_shows() {
    let server = MockServer::with_script([MockResponse::json(json!({
        "error": {"message": format!("Incorrect API key provided: {KEY}"), "type": "invalid_request_error", "code": "invalid_api_key"}
    }))
    .status(401)])
    .await;
    let model = OpenAiEmbeddingModel::builder("text-embedding-3-small")
        .base_url(server.url())
        .api_key(KEY)
        .build()
        .unwrap();
    let err = model
        .embed(&["a".to_string()], Purpose::Document)
        .await
        .unwrap_err();
    assert!(matches!(err, ModelError::Authentication { .. }), "{err:?}");
    assert!(!format!("{err} {err:?}").contains(KEY), "{err}");
    assert!(!format!("{model:?}").contains(KEY));
}

#[tokio::test]
async fn openai_retries_a_429_then_succeeds() {
    let server = MockServer::start().await;
    server.push(
        MockResponse::json(
            json!({"error": {"message": "slow down", "type": "rate_limit_exceeded"}}),
        )
        .status(429)
        .header("retry-after-ms", "1"),
    );
    let ok =
        json!({"data": [{"index": 0, "embedding": [1.0, 2.0]}], "usage": {"prompt_tokens": 1}});
    server.push(MockResponse::json(ok));
    let model = OpenAiEmbeddingModel::builder("m")
        .base_url(server.url())
        .api_key(KEY)
        .retry_policy(fast())
        .build()
        .unwrap();
    let out = model
        .embed(&["a".to_string()], Purpose::Document)
        .await
        .unwrap();
    assert_eq!(out.vectors, vec![vec![1.0, 2.0]]);
    assert_eq!(server.request_count(), 2);

    // Without retries the 429 is a typed rate-limit error.
    server.push(MockResponse::json(json!({"error": {"message": "slow down"}})).status(429));
    let once = OpenAiEmbeddingModel::builder("m")
        .base_url(server.url())
        .api_key(KEY)
        .max_retries(0)
        .build()
        .unwrap();
    let err = once
        .embed(&["a".to_string()], Purpose::Document)
        .await
        .unwrap_err();
    assert!(matches!(err, ModelError::RateLimited { .. }), "{err:?}");
}

#[tokio::test]
async fn a_wrong_count_or_length_is_a_decode_error() {
    let server = MockServer::with_script([
        MockResponse::json(json!({"data": [{"index": 0, "embedding": [1.0]}]})),
        MockResponse::json(json!({"data": [{"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": [1.0, 2.0]}]})),
        MockResponse::json(json!({"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [2.0]}]})),
    ])
    .await;
    let model = OpenAiEmbeddingModel::compatible("m", server.url())
        .build()
        .unwrap();
    let two = texts(2);
    for _ in 0..3 {
        let err = model.embed(&two, Purpose::Document).await.unwrap_err();
        assert!(matches!(err, ModelError::Decode(_)), "{err:?}");
    }
}

#[tokio::test]
async fn gemini_batch_embed_contents_shape() {
    let server = MockServer::with_handler(|req| {
        let n = req.body["requests"].as_array().map_or(0, Vec::len);
        let embeddings: Vec<Value> = req.body["requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| json!({"values": fake_vector(r["content"]["parts"][0]["text"].as_str().unwrap(), 3)}))
            .collect();
        assert_eq!(embeddings.len(), n);
        MockResponse::json(json!({ "embeddings": embeddings }))
    })
    .await;
    let model = GeminiEmbeddingModel::builder("gemini-embedding-001")
        .base_url(format!("http://{}", server.addr()))
        .api_key(KEY)
        .dimensions(3)
        .batch_size(2)
        .build()
        .unwrap();
    let input = texts(5);
    let out = model.embed(&input, Purpose::Document).await.unwrap();
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    for (req, chunk) in requests.iter().zip(input.chunks(2)) {
        assert_eq!(
            req.path,
            "/v1beta/models/gemini-embedding-001:batchEmbedContents"
        );
        assert_eq!(req.header("x-goog-api-key"), Some(KEY));
        let expected: Vec<Value> = chunk
            .iter()
            .map(|t| {
                json!({
                    "model": "models/gemini-embedding-001",
                    "content": {"parts": [{"text": t}]},
                    "taskType": "RETRIEVAL_DOCUMENT",
                    "outputDimensionality": 3
                })
            })
            .collect();
        assert_eq!(req.body, json!({ "requests": expected }));
    }
    let expected: Vec<Vec<f32>> = input.iter().map(|t| fake_vector(t, 3)).collect();
    assert_eq!(out.vectors, expected);
    assert_eq!(out.usage.input_tokens, None);
    assert_eq!(out.usage.requests, 3);

    let q = model.embed_query("hello").await.unwrap();
    assert_eq!(q, fake_vector("hello", 3));
    assert_eq!(
        server.requests()[3].body["requests"][0]["taskType"],
        "RETRIEVAL_QUERY"
    );
}

#[tokio::test]
async fn gemini_error_is_typed() {
    let server = MockServer::with_script([MockResponse::json(json!({
        "error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}
    }))
    .status(400)])
    .await;
    let model = GeminiEmbeddingModel::builder("gemini-embedding-001")
        .base_url(format!("http://{}", server.addr()))
        .api_key(KEY)
        .build()
        .unwrap();
    let err = model.embed_query("x").await.unwrap_err();
    assert!(
        matches!(
            err,
            ModelError::InvalidRequest { .. } | ModelError::Authentication { .. }
        ),
        "{err:?}"
    );
    assert!(!format!("{err:?}").contains(KEY));
}

#[test]
fn init_embedding_model_reads_the_spec() {
    let m = init_embedding_model("ollama:nomic-embed-text").unwrap();
    assert_eq!(
        (m.provider(), m.model_name()),
        ("ollama", "nomic-embed-text")
    );
    let g = init_embedding_model("google:gemini-embedding-001");
    // Without GEMINI_API_KEY / GOOGLE_API_KEY the error names them.
    if std::env::var("GEMINI_API_KEY").is_err() && std::env::var("GOOGLE_API_KEY").is_err() {
        let err = g.err().expect("no key");
        assert!(err.to_string().contains("GEMINI_API_KEY"), "{err}");
    }
    for bad in [
        "nomic",
        "ollama:",
        "anthropic:claude-3",
        "openai-compatible:m",
    ] {
        if bad == "openai-compatible:m" && std::env::var("OPENAI_COMPATIBLE_BASE_URL").is_ok() {
            continue;
        }
        assert!(
            matches!(init_embedding_model(bad), Err(ModelError::Configuration(_))),
            "{bad}"
        );
    }
}
