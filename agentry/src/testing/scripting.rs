//! Reading a [`MockServer`](super::MockServer) request and answering it by output mode: the
//! helpers a handler needs to play the model's part for any agent.
//!
//! The request is the OpenAI Chat Completions body the SDK sent. A handler typically looks
//! at the tool results so far: none yet → call a tool; some → give the final answer, which
//! [`MockResponse::final_answer`] shapes the way the request asks for it (a call of the
//! final-answer tool, or JSON text for a response format or a text answer).
//!
//! ```
//! use agentry::prelude::*;
//! use agentry::testing::{MockResponse, MockServer, RecordedRequest};
//! use serde_json::json;
//!
//! /// Current weather for a city.
//! ///
//! /// # Arguments
//! /// * `city` - City name.
//! #[tool]
//! fn get_weather(city: String) -> String {
//!     format!("{city}: 18°C")
//! }
//!
//! /// A forecast.
//! #[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
//! struct Forecast {
//!     /// One sentence.
//!     summary: String,
//! }
//!
//! /// You forecast the weather.
//! #[agent(tools(get_weather), output = Forecast)]
//! struct Weather;
//!
//! fn model(request: &RecordedRequest) -> MockResponse {
//!     match request.tool_results().first() {
//!         None => MockResponse::tool_calls(vec![ToolCall::new(
//!             "call_1",
//!             "get_weather",
//!             json!({ "city": "Paris" }).to_string(),
//!         )]),
//!         Some((_, weather)) => {
//!             MockResponse::final_answer(request, "Forecast", json!({ "summary": weather }))
//!         }
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let server = MockServer::with_handler(model).await;
//! let agent = Weather::builder(server.openai_model("mock")).build();
//! let run = agent.run("Weather in Paris?", ()).await.unwrap();
//! assert_eq!(run.output.summary, "Paris: 18°C");
//! # });
//! ```

use serde_json::Value;

use super::mock_server::{MockResponse, RecordedRequest};
use crate::message::ToolCall;

impl RecordedRequest {
    fn chat_messages(&self) -> &[Value] {
        self.body["messages"].as_array().map_or(&[], Vec::as_slice)
    }

    /// Every tool result in the request, as `(tool_call_id, content)`, in order.
    pub fn tool_results(&self) -> Vec<(String, String)> {
        results(self.chat_messages())
    }

    /// The tool results after the last user message (those of the run in progress, in a
    /// conversation that goes on), as `(tool_call_id, content)`.
    pub fn tool_results_since_last_user(&self) -> Vec<(String, String)> {
        let all = self.chat_messages();
        let start = all
            .iter()
            .rposition(|m| m["role"] == "user")
            .map_or(0, |i| i + 1);
        results(&all[start..])
    }

    /// The text of the last user message (empty when there is none).
    pub fn last_user_text(&self) -> String {
        self.chat_messages()
            .iter()
            .rev()
            .find(|m| m["role"] == "user")
            .map(|m| match &m["content"] {
                Value::String(s) => s.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|p| p["text"].as_str())
                    .collect::<Vec<_>>()
                    .join(""),
                other => other.to_string(),
            })
            .unwrap_or_default()
    }

    /// Whether the request offers the final-answer tool `name` (tool output mode) rather than
    /// a JSON-schema response format.
    pub fn offers_output_tool(&self, name: &str) -> bool {
        let offered = self.body["tools"]
            .as_array()
            .is_some_and(|tools| tools.iter().any(|t| t["function"]["name"] == name));
        let native = self.body["response_format"]["type"] == "json_schema";
        offered && !native
    }
}

impl MockResponse {
    /// The final answer `value` for the structured output named `output_name`, shaped the
    /// way `request` asks for it: a call of the final-answer tool when the request offers it,
    /// otherwise the JSON as text (a response format, or instructions in the prompt).
    pub fn final_answer(request: &RecordedRequest, output_name: &str, value: Value) -> Self {
        if request.offers_output_tool(output_name) {
            MockResponse::tool_calls(vec![ToolCall::new(
                "call_final",
                output_name,
                value.to_string(),
            )])
        } else {
            MockResponse::text(value.to_string())
        }
    }
}

fn results(messages: &[Value]) -> Vec<(String, String)> {
    messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap_or_default().to_string(),
                m["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}
