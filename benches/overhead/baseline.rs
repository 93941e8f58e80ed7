//! The hand-written client: reqwest + serde_json structs for the Chat Completions wire format,
//! a loop, and dispatch by a `match` on the tool name. What a careful program would write
//! without an SDK.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::job;

/// Why a hand-written run failed.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    /// The request could not be sent or the answer not read.
    #[error("HTTP: {0}")]
    Http(#[from] reqwest::Error),
    /// The server answered with an error status.
    #[error("status {status}: {body}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// The body.
        body: String,
    },
    /// The answer has no choices.
    #[error("the answer has no choices")]
    NoChoices,
    /// The model called a tool we do not have.
    #[error("unknown tool `{0}`")]
    UnknownTool(String),
    /// The model's tool arguments do not parse.
    #[error("bad arguments for `{tool}`: {source}")]
    Arguments {
        /// The tool.
        tool: String,
        /// The parse error.
        source: serde_json::Error,
    },
    /// The base URL does not parse.
    #[error("invalid base URL `{url}`: {reason}")]
    Url {
        /// The URL.
        url: String,
        /// Why it does not parse.
        reason: String,
    },
    /// The model kept calling tools.
    #[error("no final answer after {0} requests")]
    TooManyTurns(u32),
}

/// One client for all runs: a reqwest client (connection pool) and the tool list.
pub struct Baseline {
    http: reqwest::Client,
    url: reqwest::Url,
    auth: String,
    tools: Value,
}

#[derive(Serialize)]
struct Request<'a> {
    model: &'a str,
    messages: &'a [OutMessage],
    tools: &'a Value,
}

#[derive(Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum OutMessage {
    System {
        content: String,
    },
    User {
        content: String,
    },
    Assistant {
        #[serde(skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        tool_calls: Vec<OutToolCall>,
    },
    Tool {
        tool_call_id: String,
        content: String,
    },
}

#[derive(Serialize)]
struct OutToolCall {
    id: String,
    r#type: &'static str,
    function: OutFunction,
}

#[derive(Serialize)]
struct OutFunction {
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

#[derive(Deserialize)]
struct InMessage {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<InToolCall>,
}

#[derive(Deserialize)]
struct InToolCall {
    id: String,
    function: InFunction,
}

#[derive(Deserialize)]
struct InFunction {
    name: String,
    arguments: String,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct WireUsage {
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
        let mut messages = vec![
            OutMessage::System {
                content: job::INSTRUCTIONS.to_owned(),
            },
            OutMessage::User {
                content: question.to_owned(),
            },
        ];
        let mut usage = WireUsage::default();
        for _ in 0..MAX_REQUESTS {
            let response = self
                .http
                .post(self.url.clone())
                .header(reqwest::header::AUTHORIZATION, &self.auth)
                .json(&Request {
                    model: job::MODEL,
                    messages: &messages,
                    tools: &self.tools,
                })
                .send()
                .await?;
            let status = response.status();
            if !status.is_success() {
                return Err(BaselineError::Status {
                    status: status.as_u16(),
                    body: response.text().await.unwrap_or_default(),
                });
            }
            let completion: Completion = response.json().await?;
            if let Some(u) = completion.usage {
                usage.prompt_tokens += u.prompt_tokens;
                usage.completion_tokens += u.completion_tokens;
            }
            let message = completion
                .choices
                .into_iter()
                .next()
                .ok_or(BaselineError::NoChoices)?
                .message;
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
