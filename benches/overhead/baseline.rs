//! The hand-written client: reqwest + serde_json structs for the Chat Completions wire format,
//! a loop, and dispatch by a `match` on the tool name. What a careful program would write
//! without an SDK.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::job;

pub use crate::baseline_error::BaselineError;

/// One client for all runs: a reqwest client (connection pool) and the tool list.
pub struct Baseline {
    http: reqwest::Client,
    url: reqwest::Url,
    auth: String,
    tools: Value,
}

#[derive(Serialize)]
pub struct Request<'a> {
    model: &'a str,
    messages: &'a [OutMessage],
    tools: &'a Value,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

/// A message sent to the model.
#[derive(Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum OutMessage {
    System {
        content: String,
    },
    User {
        content: String,
    },
    Assistant {
        #[serde(skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<OutToolCall>,
    },
    Tool {
        tool_call_id: String,
        content: String,
    },
}

/// The request body: what `RequestBuilder::json` does, in a function of its own so that
/// `--history` finds it in the profile by name (`json` itself may be inlined).
#[inline(never)]
pub fn request_body(request: &Request<'_>) -> Result<Vec<u8>, BaselineError> {
    serde_json::to_vec(request).map_err(BaselineError::Body)
}

/// A tool call in a message sent back to the model.
#[derive(Serialize)]
pub struct OutToolCall {
    id: String,
    r#type: &'static str,
    function: OutFunction,
}

#[derive(Serialize)]
pub struct OutFunction {
    name: String,
    arguments: String,
}

#[derive(Deserialize)]
struct Completion {
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct Choice {
    message: InMessage,
}

/// The model's answer (also what the streamed chunks add up to).
#[derive(Deserialize, Default)]
pub struct InMessage {
    /// The text.
    #[serde(default)]
    pub content: Option<String>,
    /// The tool calls.
    #[serde(default)]
    pub tool_calls: Vec<InToolCall>,
}

/// A tool call the model made.
#[derive(Deserialize, Default)]
pub struct InToolCall {
    /// Its id.
    pub id: String,
    /// The function and its arguments.
    pub function: InFunction,
}

/// The function of a tool call.
#[derive(Deserialize, Default)]
pub struct InFunction {
    /// The tool name.
    pub name: String,
    /// The arguments, JSON text.
    pub arguments: String,
}

/// The token counts of one answer.
#[derive(Deserialize, Default, Clone, Copy)]
pub struct WireUsage {
    prompt_tokens: u64,
    completion_tokens: u64,
}

#[derive(Deserialize)]
struct GetWeatherArgs {
    city: String,
}

const MAX_REQUESTS: u32 = 8;

impl Baseline {
    /// A client for the server at `base_url` (`http://127.0.0.1:<port>/v1`).
    pub fn new(base_url: &str) -> Result<Baseline, BaselineError> {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(600))
            .connect_timeout(Duration::from_secs(10))
            .build()?;
        let tools = json!([{
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Look up the current weather for a city.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "city": { "type": "string", "description": "City name, e.g. \"Paris\"." }
                    },
                    "required": ["city"],
                    "additionalProperties": false
                }
            }
        }]);
        let endpoint = format!("{}/chat/completions", base_url.trim_end_matches('/'));
        Ok(Baseline {
            http,
            // Parsed once: `post(&String)` would parse it again on every request.
            url: reqwest::Url::parse(&endpoint).map_err(|e| BaselineError::Url {
                url: endpoint.clone(),
                reason: e.to_string(),
            })?,
            auth: format!("Bearer {}", job::API_KEY),
            tools,
        })
    }

    /// One run: ask, run the tools the model calls, send the results, until a text answer.
    pub async fn run(self: Arc<Self>, question: &str) -> Result<String, BaselineError> {
        let mut messages = self.start(question);
        self.converse(&mut messages, false).await
    }

    /// One streamed run (SSE answers, see `baseline_stream.rs`).
    pub async fn run_stream(self: Arc<Self>, question: &str) -> Result<String, BaselineError> {
        let mut messages = self.start(question);
        self.converse(&mut messages, true).await
    }

    fn start(&self, question: &str) -> Vec<OutMessage> {
        vec![
            OutMessage::System {
                content: job::INSTRUCTIONS.to_owned(),
            },
            OutMessage::User {
                content: question.to_owned(),
            },
        ]
    }

    /// The loop over `messages` (which end with the question): ask, run the tools the model
    /// calls, append the call and the results, until a text answer.
    pub async fn converse(
        &self,
        messages: &mut Vec<OutMessage>,
        stream: bool,
    ) -> Result<String, BaselineError> {
        let mut usage = WireUsage::default();
        for _ in 0..MAX_REQUESTS {
            let request = Request {
                model: job::MODEL,
                messages: messages.as_slice(),
                tools: &self.tools,
                stream,
                stream_options: stream.then_some(StreamOptions {
                    include_usage: true,
                }),
            };
            let response = self
                .http
                .post(self.url.clone())
                .header(reqwest::header::AUTHORIZATION, &self.auth)
                .header(
                    reqwest::header::CONTENT_TYPE,
                    reqwest::header::HeaderValue::from_static("application/json"),
                )
                .body(request_body(&request)?)
                .send()
                .await?;
            let status = response.status();
            if !status.is_success() {
                return Err(BaselineError::Status {
                    status: status.as_u16(),
                    body: response.text().await.unwrap_or_default(),
                });
            }
            let (message, used) = if stream {
                crate::baseline_stream::read(response).await?
            } else {
                let completion: Completion = response.json().await?;
                let message = completion
                    .choices
                    .into_iter()
                    .next()
                    .ok_or(BaselineError::NoChoices)?
                    .message;
                (message, completion.usage)
            };
            if let Some(u) = used {
                usage.prompt_tokens += u.prompt_tokens;
                usage.completion_tokens += u.completion_tokens;
            }
            if message.tool_calls.is_empty() {
                tracing::trace!(usage.prompt_tokens, usage.completion_tokens, "run done");
                return Ok(message.content.unwrap_or_default());
            }
            let mut results = Vec::with_capacity(message.tool_calls.len());
            let mut calls = Vec::with_capacity(message.tool_calls.len());
            for call in message.tool_calls {
                let content = dispatch(&call.function.name, &call.function.arguments)?;
                results.push(OutMessage::Tool {
                    tool_call_id: call.id.clone(),
                    content,
                });
                calls.push(OutToolCall {
                    id: call.id,
                    r#type: "function",
                    function: OutFunction {
                        name: call.function.name,
                        arguments: call.function.arguments,
                    },
                });
            }
            messages.push(OutMessage::Assistant {
                content: message.content,
                tool_calls: calls,
            });
            messages.extend(results);
        }
        Err(BaselineError::TooManyTurns(MAX_REQUESTS))
    }
}

/// Hard-coded dispatch: parse the arguments and call the function.
fn dispatch(name: &str, arguments: &str) -> Result<String, BaselineError> {
    match name {
        "get_weather" => {
            let args: GetWeatherArgs =
                serde_json::from_str(arguments).map_err(|source| BaselineError::Arguments {
                    tool: name.to_owned(),
                    source,
                })?;
            Ok(job::get_weather(args.city))
        }
        other => Err(BaselineError::UnknownTool(other.to_owned())),
    }
}
