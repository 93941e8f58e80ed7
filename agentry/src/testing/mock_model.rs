//! [`mock_model`]: the model of a [`MockServer`](super::MockServer) from its URL alone, for a
//! program in another process (or a test that only has the URL) — a **test double**'s client.

use std::time::Duration;

use crate::http::RetryPolicy;
use crate::model::ModelError;
use crate::providers::openai::{OpenAiModel, OpenAiModelBuilder};

/// The key every mock model sends.
const MOCK_API_KEY: &str = "sk-mock-key-0000";

/// A builder for model `model` talking to the mock server at `url` (what
/// [`MockServer::url`](super::MockServer::url) returns, `http://127.0.0.1:<port>/v1`), with the
/// key `sk-mock-key-0000` and fast retries (1 ms backoff, no jitter). The one place mock
/// models are configured: [`MockServer::openai_builder`](super::MockServer::openai_builder)
/// is this with the server's own URL.
///
/// ```
/// use agentry::model::ChatModel;
/// use agentry::testing::mock_model_builder;
///
/// let model = mock_model_builder("http://127.0.0.1:4000/v1", "gpt-4o-mini")
///     .max_retries(0)
///     .build()
///     .unwrap();
/// assert_eq!(model.model_name(), "gpt-4o-mini");
/// ```
pub fn mock_model_builder(url: impl Into<String>, model: &str) -> OpenAiModelBuilder {
    OpenAiModel::builder(model)
        .base_url(url)
        .api_key(MOCK_API_KEY)
        .retry_policy(
            RetryPolicy::default()
                .initial_delay(Duration::from_millis(1))
                .max_delay(Duration::from_millis(5))
                .jitter(false),
        )
}

/// Model `model` talking to the mock server at `url`, configured as
/// [`MockServer::openai_model`](super::MockServer::openai_model) configures it; a URL that
/// does not parse is a [`ModelError::Configuration`].
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use agentry::model::{ChatModel, ChatRequest};
/// use agentry::testing::{MockResponse, MockServer, mock_model};
/// use agentry::Message;
///
/// let server = MockServer::with_script([MockResponse::text("Hello!")]).await;
/// // Only the URL crosses to the other side (an environment variable, a command line).
/// let url = server.url();
/// let model = mock_model(&url, "gpt-4o-mini").unwrap();
/// let answer = model.invoke(ChatRequest::new(vec![Message::user("Hi")])).await.unwrap();
/// assert_eq!(answer.message.text(), "Hello!");
///
/// assert!(mock_model("not a url", "gpt-4o-mini").is_err());
/// # }
/// ```
pub fn mock_model(url: impl Into<String>, model: &str) -> Result<OpenAiModel, ModelError> {
    mock_model_builder(url, model).build()
}
