//! One ReAct turn as the agent loop sees it, without I/O: a request in the loop's native shape
//! (tool definitions, assistant tool calls, tool results) rendered as text, and the model's text
//! reply read back into that shape.
//!
//! Everything else in the loop (typed dispatch, dynamic tools, limits, state, middleware,
//! human review, checkpoints, the run's steps) works on the native shape and so is shared by
//! both protocols unchanged.
//!
//! # The request
//!
//! - `tools`, `tool_choice` and `parallel_tool_calls` are removed; the stop sequence
//!   [`STOP_SEQUENCE`](super::STOP_SEQUENCE) is added.
//! - The leading system messages are merged into one, followed by the ReAct prompt (tools,
//!   format instructions) rendered from the request's tool definitions.
//! - Each assistant message becomes the text the model would have written (`Thought:`,
//!   `Action:` / `Action Input:` or `Final Answer:`); each tool result becomes a user message
//!   `Observation: ...`. Consecutive user messages are merged, so roles alternate (several
//!   chat templates of text-only models reject two user messages in a row).
//!
//! # The reply
//!
//! - An action becomes one tool call (id `react_<n>`, `n` counting the answers so far) whose
//!   arguments are the input's JSON object as the model wrote it; a bare input becomes the one
//!   required string argument of a tool that has one (see [`ActionInput::into_arguments`]).
//!   The thought is kept as a reasoning block. Text after the first complete action is
//!   discarded (one action per reply).
//! - A final answer becomes the answer's text (the thought as a reasoning block), which the
//!   output spec then parses like any text answer.
//! - A malformed reply becomes a message holding the reply and the correction in a
//!   [`ContentBlock::Other`] block of provider [`PROVIDER`]; the loop sends the correction back
//!   within its retry budget ([`correction`]).
//! - On a request without tools (the last request at a limit), a reply with neither an action
//!   nor a final answer is taken whole as the final answer.

use serde_json::{Value, json};

use super::reply::{ActionInput, ReactAction, ReactParseError, ReactReply, ReactStep};
use crate::message::{AssistantMessage, ContentBlock, Message, ToolCall, UserMessage};
use crate::model::{ChatRequest, FinishReason};
use crate::tool::DefinitionRef;

/// The `provider` of the content block that marks a malformed reply.
pub const PROVIDER: &str = "react";

/// What the reply reader needs from the request it answers.
#[derive(Clone, Debug, Default)]
pub struct ReplyContext {
    /// The tools the request offered (to read a bare input as a tool's one string argument).
    pub tools: crate::model::Tools,
    /// The id the reply's tool call gets.
    pub call_id: String,
}

/// Renders `request` as a ReAct text request; `prompt` is the rendered ReAct system prompt for
/// the request's tools (`None` when it has none). Returns the text request and what reading its
/// reply needs.
pub fn render_request(
    mut request: ChatRequest,
    prompt: Option<&str>,
) -> (ChatRequest, ReplyContext) {
    let tools = std::mem::take(&mut request.tools);
    request.tool_choice = None;
    request.parallel_tool_calls = None;
    if !request.stop.iter().any(|s| s == super::STOP_SEQUENCE) {
        request.stop.push(super::STOP_SEQUENCE.to_string());
    }
    let answers = request
        .messages
        .iter()
        .filter(|m| matches!(m, Message::Assistant(_)))
        .count();
    // The transcript is shared with the run (its request holds a clone): it is read in place,
    // and only what goes out unchanged (user content, a later system message) is copied.
    let messages = std::mem::take(&mut request.messages);
    let mut out: Vec<Message> = Vec::with_capacity(messages.len() + 1);
    let system_len: usize = messages
        .iter()
        .take_while(|m| matches!(m, Message::System { .. }))
        .map(|m| match m {
            Message::System { content } => content.len() + 2,
            _ => 0,
        })
        .sum();
    let mut system = String::with_capacity(system_len + prompt.map_or(0, |p| p.len() + 2));
    let mut leading = true;
    for message in messages.iter() {
        match message {
            Message::System { content } if leading => {
                if !system.is_empty() {
                    system.push_str("\n\n");
                }
                system.push_str(content);
            }
            Message::System { content } => out.push(Message::System {
                content: content.clone(),
            }),
            Message::User(user) => {
                leading = false;
                push_user(&mut out, &user.content);
            }
            Message::Assistant(answer) => {
                leading = false;
                out.push(Message::assistant(render_answer(answer)));
            }
            Message::Tool(result) => {
                leading = false;
                let len: usize = result
                    .content
                    .iter()
                    .filter_map(ContentBlock::as_text)
                    .map(str::len)
                    .sum();
                let mut text = String::with_capacity(len + 16);
                text.push_str("Observation: ");
                for block in &result.content {
                    if let Some(t) = block.as_text() {
                        text.push_str(t);
                    }
                }
                push_user_text(&mut out, text);
            }
        }
    }
    if let Some(prompt) = prompt {
        if !system.is_empty() {
            system.push_str("\n\n");
        }
        system.push_str(prompt);
    }
    if !system.is_empty() {
        out.insert(0, Message::system(system));
    }
    request.messages = out.into();
    (
        request,
        ReplyContext {
            tools,
            call_id: call_id(answers + 1),
        },
    )
}

/// `react_<n>`.
fn call_id(n: usize) -> String {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let mut id = String::with_capacity(6 + digits.len() - at);
    id.push_str("react_");
    for &d in &digits[at..] {
        id.push(char::from(d));
    }
    id
}

/// Appends user content, merged into the previous message when that is a user message too.
fn push_user(out: &mut Vec<Message>, content: &[ContentBlock]) {
    if let Some(Message::User(previous)) = out.last_mut() {
        if let ([ContentBlock::Text { text: a, .. }], [ContentBlock::Text { text: b, .. }]) =
            (previous.content.as_mut_slice(), content)
        {
            a.push_str("\n\n");
            a.push_str(b);
        } else {
            previous.content.extend_from_slice(content);
        }
        return;
    }
    out.push(Message::User(UserMessage {
        content: content.to_vec(),
    }));
}

/// Appends a user message of one text, merged like [`push_user`].
fn push_user_text(out: &mut Vec<Message>, text: String) {
    if let Some(Message::User(previous)) = out.last_mut() {
        if let [ContentBlock::Text { text: a, .. }] = previous.content.as_mut_slice() {
            a.push_str("\n\n");
            a.push_str(&text);
        } else {
            previous.content.push(ContentBlock::text(text));
        }
        return;
    }
    out.push(Message::User(UserMessage {
        content: vec![ContentBlock::text(text)],
    }));
}

/// The text the model would have written for `answer`.
pub fn render_answer(answer: &AssistantMessage) -> String {
    if let Some(reply) = malformed_reply(answer) {
        return reply.to_string();
    }
    let (mut thought, mut text) = ("", "");
    let (mut thoughts, mut texts) = (0, 0);
    for block in &answer.content {
        match block {
            ContentBlock::Reasoning { text: t, .. } => {
                thought = t;
                thoughts += 1;
            }
            ContentBlock::Text { text: t, .. } => {
                text = t;
                texts += 1;
            }
            _ => {}
        }
    }
    // Several blocks of a kind (rare) are joined; one is borrowed as is.
    let joined_thought;
    if thoughts > 1 {
        joined_thought = join(answer, true);
        thought = &joined_thought;
    }
    let joined_text;
    if texts > 1 {
        joined_text = join(answer, false);
        text = &joined_text;
    }
    let calls: usize = answer
        .tool_calls
        .iter()
        .map(|c| c.name.len() + c.arguments.len() + 30)
        .sum();
    let mut out = String::with_capacity(thought.len() + text.len() + calls + 32);
    if answer.tool_calls.is_empty() {
        if !thought.trim().is_empty() {
            out.push_str("Thought: ");
            out.push_str(thought.trim());
            out.push('\n');
        }
        out.push_str("Final Answer: ");
        out.push_str(answer.refusal.as_deref().unwrap_or(text).trim());
        return out;
    }
    // A native answer's text beside its calls is its reasoning.
    if thought.trim().is_empty() {
        thought = text;
    }
    if !thought.trim().is_empty() {
        out.push_str("Thought: ");
        out.push_str(thought.trim());
        out.push('\n');
    }
    for (i, call) in answer.tool_calls.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str("Action: ");
        out.push_str(&call.name);
        out.push_str("\nAction Input: ");
        out.push_str(&call.arguments);
    }
    out
}

fn join(answer: &AssistantMessage, reasoning: bool) -> String {
    answer
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Reasoning { text, .. } if reasoning => Some(text.as_str()),
            ContentBlock::Text { text, .. } if !reasoning => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The answer for a parsed reply: a tool call, a final answer, or a correction.
pub fn read_reply(
    raw: &str,
    parsed: Result<ReactReply, ReactParseError>,
    context: &ReplyContext,
) -> (AssistantMessage, FinishReason) {
    let reply = match parsed {
        Ok(reply) => reply,
        Err(ReactParseError::NoActionOrFinalAnswer) if context.tools.is_empty() => {
            // Asked without tools: whatever it wrote is the answer.
            let text = strip_thought(raw);
            return (text_answer(String::new(), text), FinishReason::Stop);
        }
        Err(error) => return (malformed(raw, &error.to_string()), FinishReason::Stop),
    };
    match reply.step {
        ReactStep::FinalAnswer(answer) => (text_answer(reply.thought, answer), FinishReason::Stop),
        ReactStep::Action(action) => {
            if reply.discarded_tail {
                tracing::debug!(tool = %action.tool, "ReAct reply: text after the first action discarded");
            }
            // The object's text moves into the call; other inputs are converted.
            let converted = match action.input {
                ActionInput::Json(object) => Ok(object.into_string()),
                ref input @ ActionInput::Text(_) => arguments(
                    &ReactAction {
                        tool: action.tool.clone(),
                        input: input.clone(),
                    },
                    &context.tools,
                ),
            };
            match converted {
                Ok(arguments) => {
                    let mut content = Vec::new();
                    if !reply.thought.is_empty() {
                        content.push(reasoning(reply.thought));
                    }
                    let call = ToolCall::new(context.call_id.clone(), action.tool, arguments);
                    (
                        AssistantMessage {
                            content,
                            tool_calls: vec![call],
                            refusal: None,
                        },
                        FinishReason::ToolCalls,
                    )
                }
                Err(correction) => (malformed(raw, &correction), FinishReason::Stop),
            }
        }
    }
}

/// The arguments of an action as JSON text, or a correction for the model. A tool that is not
/// offered gets its input as written (the loop answers it as an unknown tool).
pub fn arguments(action: &ReactAction, tools: &[DefinitionRef]) -> Result<String, String> {
    match &action.input {
        ActionInput::Json(object) => Ok(object.as_str().to_string()),
        ActionInput::Text(text) => match tools.iter().find(|t| t.name == action.tool) {
            Some(def) => action
                .input
                .clone()
                .into_arguments(&action.tool, &def.parameters)
                .map(|map| Value::Object(map).to_string()),
            None => Ok(Value::String(text.clone()).to_string()),
        },
    }
}

/// The correction a malformed reply carries, if `message` is one.
///
/// ```
/// use agentry::protocol::react::{ReplyContext, correction, parse, read_reply};
/// use agentry::tool::ToolDefinition;
///
/// let search = ToolDefinition::new("search", "Search.", serde_json::json!({"type": "object"}), false);
/// let context = ReplyContext { tools: vec![search.into()].into(), call_id: "react_1".into() };
/// let raw = "I think I am done.";
/// let (answer, _) = read_reply(raw, parse(raw), &context);
/// assert!(correction(&answer).unwrap().contains("neither `Action:` nor `Final Answer:`"));
/// ```
pub fn correction(message: &AssistantMessage) -> Option<&str> {
    marker(message)?.get("correction").and_then(Value::as_str)
}

fn malformed_reply(message: &AssistantMessage) -> Option<&str> {
    marker(message)?.get("reply").and_then(Value::as_str)
}

fn marker(message: &AssistantMessage) -> Option<&Value> {
    message.content.iter().find_map(|block| match block {
        ContentBlock::Other { provider, value } if provider == PROVIDER => Some(value),
        _ => None,
    })
}

fn malformed(raw: &str, correction: &str) -> AssistantMessage {
    tracing::debug!(%correction, "ReAct reply malformed; asking for a correction");
    AssistantMessage {
        content: vec![ContentBlock::Other {
            provider: PROVIDER.to_string(),
            value: json!({ "reply": raw, "correction": correction }),
        }],
        tool_calls: Vec::new(),
        refusal: None,
    }
}

fn text_answer(thought: String, answer: String) -> AssistantMessage {
    let mut content = Vec::with_capacity(2);
    if !thought.is_empty() {
        content.push(reasoning(thought));
    }
    content.push(ContentBlock::text(answer));
    AssistantMessage {
        content,
        tool_calls: Vec::new(),
        refusal: None,
    }
}

fn reasoning(text: String) -> ContentBlock {
    ContentBlock::Reasoning {
        text,
        signature: None,
    }
}

/// A reply without markers, minus a leading `Thought:` label.
fn strip_thought(raw: &str) -> String {
    let t = raw.trim();
    let lower = t.get(..8).map(str::to_ascii_lowercase);
    match lower.as_deref() {
        Some("thought:") => t[8..].trim().to_string(),
        _ => t.to_string(),
    }
}
