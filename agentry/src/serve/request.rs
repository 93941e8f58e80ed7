//! The request bodies of a run, per protocol, read into what the thread does: start a run with
//! a user message, or resume a paused run with review decisions.

use serde::Deserialize;
use serde_json::Value;

use super::ServeError;
use crate::middleware::Decision;

/// What a run request asks for.
#[derive(Debug, PartialEq)]
pub(crate) enum RunRequest {
    /// A new user message.
    Input(String),
    /// Decisions on the paused run's reviewed calls, by tool call id.
    Decide(Vec<(String, Decision)>),
    /// Decisions read from a message list the client sent back: approvals, and the results
    /// of tool calls the client ran (or its answers to a tool's question) as
    /// [`Decision::Answer`]. The list repeats the conversation, so an answer is kept only for
    /// a call that waits for one ([`RunRequest::keep_waiting`]).
    Messages(Vec<(String, Decision)>),
}

impl RunRequest {
    /// Whether the request resumes a paused run.
    pub(crate) fn resumes(&self) -> bool {
        !matches!(self, RunRequest::Input(_))
    }

    /// The decisions to resume with: for [`RunRequest::Messages`], the answers of calls in
    /// `waiting` (the paused calls that stopped at a question) and every other decision.
    pub(crate) fn keep_waiting(self, waiting: &[&str]) -> Self {
        match self {
            RunRequest::Messages(decisions) => RunRequest::Decide(
                decisions
                    .into_iter()
                    .filter(|(call, decision)| {
                        !matches!(decision, Decision::Answer { .. })
                            || waiting.contains(&call.as_str())
                    })
                    .collect(),
            ),
            other => other,
        }
    }
}

/// A client-run tool's result as an answer: the JSON value (`output`) it returned; a failure
/// (`errorText`) is answered with its text, a string, which the model reads.
fn tool_result(output: Option<&Value>, error: Option<&str>) -> Option<Decision> {
    match (output, error) {
        (_, Some(error)) => Some(Decision::Answer {
            answer: Value::String(error.to_owned()),
        }),
        (Some(output), None) => Some(Decision::Answer {
            answer: output.clone(),
        }),
        (None, None) => None,
    }
}

/// What the model reads for a call the user rejected without a reason.
pub(crate) const REJECTED: &str = "the user rejected this call";

fn malformed(e: serde_json::Error) -> ServeError {
    ServeError::BadRequest(format!("the body is not valid JSON: {e}"))
}

fn text_of(parts: &[Value]) -> String {
    parts
        .iter()
        .filter(|p| p["type"] == "text")
        .filter_map(|p| p["text"].as_str())
        .collect::<Vec<_>>()
        .join("")
}

fn nonempty(text: String) -> Result<RunRequest, ServeError> {
    if text.trim().is_empty() {
        return Err(ServeError::BadRequest(
            "the user message has no text".to_owned(),
        ));
    }
    Ok(RunRequest::Input(text))
}

/// `{"decisions": {"<toolCallId>": {"decision": "approve"}, ...}}`: agentry's own form, in
/// either protocol's body.
fn decisions(body: &Value) -> Result<Option<RunRequest>, ServeError> {
    let Some(decisions) = body.get("decisions") else {
        return Ok(None);
    };
    let map: serde_json::Map<String, Value> = serde_json::from_value(decisions.clone())
        .map_err(|e| ServeError::BadRequest(format!("`decisions` is not an object: {e}")))?;
    let mut out = Vec::with_capacity(map.len());
    for (call, decision) in map {
        let decision: Decision = serde_json::from_value(decision).map_err(|e| {
            ServeError::BadRequest(format!("the decision on call `{call}` is invalid: {e}"))
        })?;
        out.push((call, decision));
    }
    Ok(Some(RunRequest::Decide(out)))
}

/// A message of the AI SDK's `UIMessage[]`: only what the server reads.
#[derive(Deserialize)]
struct UiMessage {
    role: String,
    #[serde(default)]
    parts: Vec<Value>,
}

/// The body `DefaultChatTransport` posts: `{id, messages, trigger, messageId, ...}`.
#[derive(Deserialize)]
struct ChatRequest {
    #[serde(default)]
    messages: Vec<UiMessage>,
    /// agentry's short form: `{"message": "text"}`.
    #[serde(default)]
    message: Option<String>,
}

/// Reads an AI SDK chat request. The thread keeps the conversation, so only the newest
/// message counts: a user message starts a run; an assistant message whose tool parts carry
/// `approval: {approved, reason?}` (the `addToolApprovalResponse` of `useChat`) resumes it.
pub(crate) fn ai_sdk(body: &[u8]) -> Result<RunRequest, ServeError> {
    let value: Value = serde_json::from_slice(body).map_err(malformed)?;
    if let Some(decide) = decisions(&value)? {
        return Ok(decide);
    }
    let request: ChatRequest = serde_json::from_value(value)
        .map_err(|e| ServeError::BadRequest(format!("not an AI SDK chat request: {e}")))?;
    if let Some(text) = request.message {
        return nonempty(text);
    }
    let Some(last) = request.messages.last() else {
        return Err(ServeError::BadRequest(
            "the request has no messages".to_owned(),
        ));
    };
    match last.role.as_str() {
        "user" => nonempty(text_of(&last.parts)),
        "assistant" => {
            let decided: Vec<(String, Decision)> = last
                .parts
                .iter()
                .filter_map(|p| {
                    let call = p["toolCallId"].as_str()?.to_owned();
                    match p["state"].as_str()? {
                        "approval-responded" => {
                            let approved = p["approval"]["approved"].as_bool()?;
                            Some((call, approval(approved, &p["approval"]["reason"])))
                        }
                        "output-available" => Some((call, tool_result(p.get("output"), None)?)),
                        "output-error" => Some((call, tool_result(None, p["errorText"].as_str())?)),
                        _ => None,
                    }
                })
                .collect();
            if decided.is_empty() {
                return Err(ServeError::BadRequest(
                    "the last message is the assistant's and answers no approval request or tool call"
                        .to_owned(),
                ));
            }
            Ok(RunRequest::Messages(decided))
        }
        other => Err(ServeError::BadRequest(format!(
            "the last message's role is `{other}`: expected `user`, or `assistant` with approval responses"
        ))),
    }
}

fn approval(approved: bool, reason: &Value) -> Decision {
    if approved {
        Decision::Approve
    } else {
        Decision::Reject {
            message: reason.as_str().unwrap_or(REJECTED).to_owned(),
        }
    }
}

/// One `resume` entry of AG-UI's `RunAgentInput`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResumeEntry {
    interrupt_id: String,
    status: String,
    #[serde(default)]
    payload: Option<Value>,
}

/// AG-UI's `RunAgentInput`: only what the server reads.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunAgentInput {
    thread_id: String,
    run_id: String,
    #[serde(default)]
    messages: Vec<Value>,
    #[serde(default)]
    resume: Vec<ResumeEntry>,
}

/// An AG-UI run request, with its run id.
pub(crate) struct AgUiRun {
    pub(crate) run_id: String,
    pub(crate) request: RunRequest,
}

/// Reads AG-UI's `RunAgentInput` for thread `thread_id`. `resume` entries (one per interrupt,
/// `interruptId` = the tool call id) resume the paused run: `resolved` with a payload
/// `{"approved": bool, "reason"?}` or an agentry decision (`{"decision": "edit", ...}`),
/// `cancelled` rejects the call. Otherwise the newest user message starts a run.
pub(crate) fn ag_ui(body: &[u8], thread_id: &str) -> Result<AgUiRun, ServeError> {
    let value: Value = serde_json::from_slice(body).map_err(malformed)?;
    let own = decisions(&value)?;
    let input: RunAgentInput = serde_json::from_value(value)
        .map_err(|e| ServeError::BadRequest(format!("not an AG-UI RunAgentInput: {e}")))?;
    if input.thread_id != thread_id {
        return Err(ServeError::BadRequest(format!(
            "the body's threadId `{}` is not the path's `{thread_id}`",
            input.thread_id
        )));
    }
    let request = if let Some(decide) = own {
        decide
    } else if !input.resume.is_empty() {
        let mut decided = Vec::with_capacity(input.resume.len());
        for entry in input.resume {
            let decision = match (entry.status.as_str(), entry.payload) {
                ("cancelled", _) => Decision::Reject {
                    message: REJECTED.to_owned(),
                },
                ("resolved", None) => Decision::Approve,
                ("resolved", Some(payload)) => match payload.get("approved") {
                    Some(Value::Bool(approved)) => approval(*approved, &payload["reason"]),
                    _ if payload.get("decision").is_none() && payload.get("answer").is_some() => {
                        Decision::Answer {
                            answer: payload["answer"].clone(),
                        }
                    }
                    _ => serde_json::from_value(payload).map_err(|e| {
                        ServeError::BadRequest(format!(
                            "the resume payload of `{}` is neither {{\"approved\": bool}} nor a decision: {e}",
                            entry.interrupt_id
                        ))
                    })?,
                },
                (other, _) => {
                    return Err(ServeError::BadRequest(format!(
                        "resume status `{other}`: expected `resolved` or `cancelled`"
                    )));
                }
            };
            decided.push((entry.interrupt_id, decision));
        }
        RunRequest::Decide(decided)
    } else if input.messages.last().is_some_and(|m| m["role"] == "tool") {
        // The client ran its tools: their results are the `tool` messages.
        let results: Vec<(String, Decision)> = input
            .messages
            .iter()
            .filter(|m| m["role"] == "tool")
            .filter_map(|m| {
                let call = m["toolCallId"].as_str()?.to_owned();
                let output = m["content"].as_str().map(content_value);
                Some((call, tool_result(output.as_ref(), m["error"].as_str())?))
            })
            .collect();
        RunRequest::Messages(results)
    } else {
        let last = input
            .messages
            .iter()
            .rev()
            .find(|m| m["role"] == "user")
            .ok_or_else(|| ServeError::BadRequest("the request has no user message".to_owned()))?;
        let text = match &last["content"] {
            Value::String(text) => text.clone(),
            Value::Array(parts) => text_of(parts),
            _ => String::new(),
        };
        nonempty(text)?
    };
    Ok(AgUiRun {
        run_id: input.run_id,
        request,
    })
}

/// A `tool` message's content: its JSON when it is JSON (a client sends a result with
/// `JSON.stringify`), else the text itself.
fn content_value(content: &str) -> Value {
    serde_json::from_str(content).unwrap_or_else(|_| Value::String(content.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ai_sdk_reads_the_last_user_message_and_approval_responses() {
        let body = json!({"id": "t", "trigger": "submit-message", "messages": [
            {"id": "1", "role": "user", "parts": [{"type": "text", "text": "Hi "}, {"type": "text", "text": "there"}]}
        ]});
        let read = ai_sdk(body.to_string().as_bytes()).unwrap();
        assert_eq!(read, RunRequest::Input("Hi there".into()));
        let body = json!({"messages": [{"id": "2", "role": "assistant", "parts": [
            {"type": "tool-send", "toolCallId": "c1", "state": "approval-responded", "approval": {"id": "c1", "approved": true}},
            {"type": "tool-send", "toolCallId": "c2", "state": "approval-responded", "approval": {"id": "c2", "approved": false, "reason": "no"}},
        ]}]});
        let read = ai_sdk(body.to_string().as_bytes()).unwrap();
        assert_eq!(
            read,
            RunRequest::Messages(vec![
                ("c1".into(), Decision::Approve),
                (
                    "c2".into(),
                    Decision::Reject {
                        message: "no".into()
                    }
                )
            ])
        );
        assert!(matches!(ai_sdk(b"{"), Err(ServeError::BadRequest(_))));
        assert!(matches!(
            ai_sdk(b"{\"messages\": 3}"),
            Err(ServeError::BadRequest(_))
        ));
    }

    #[test]
    fn tool_results_are_answers_kept_only_for_the_calls_that_wait() {
        let body = json!({"messages": [{"id": "2", "role": "assistant", "parts": [
            {"type": "tool-search", "toolCallId": "s1", "state": "output-available", "output": "3 results"},
            {"type": "tool-locate", "toolCallId": "l1", "state": "output-available", "output": {"lat": 1.0}},
            {"type": "tool-locate", "toolCallId": "l2", "state": "output-error", "errorText": "denied"},
            {"type": "tool-locate", "toolCallId": "l3", "state": "input-available", "input": {}},
        ]}]});
        let read = ai_sdk(body.to_string().as_bytes()).unwrap();
        let answer = |v: Value| Decision::Answer { answer: v };
        assert_eq!(
            read.keep_waiting(&["l1", "l2", "l3"]),
            RunRequest::Decide(vec![
                ("l1".into(), answer(json!({"lat": 1.0}))),
                ("l2".into(), answer(json!("denied"))),
            ])
        );
        let body = json!({"threadId": "t", "runId": "r", "messages": [
            {"id": "1", "role": "user", "content": "Where?"},
            {"id": "2", "role": "tool", "toolCallId": "s1", "content": "3 results"},
            {"id": "3", "role": "tool", "toolCallId": "l1", "content": "{\"lat\": 1}"},
            {"id": "4", "role": "tool", "toolCallId": "l2", "content": "", "error": "denied"},
        ]});
        let run = ag_ui(body.to_string().as_bytes(), "t").unwrap();
        assert_eq!(
            run.request.keep_waiting(&["l1", "l2"]),
            RunRequest::Decide(vec![
                ("l1".into(), answer(json!({"lat": 1}))),
                ("l2".into(), answer(json!("denied"))),
            ])
        );
        let body = json!({"threadId": "t", "runId": "r", "messages": [], "resume": [
            {"interruptId": "d1", "status": "resolved", "payload": {"answer": false}},
        ]});
        let run = ag_ui(body.to_string().as_bytes(), "t").unwrap();
        assert_eq!(
            run.request,
            RunRequest::Decide(vec![("d1".into(), answer(json!(false)))])
        );
    }

    #[test]
    fn ag_ui_reads_resume_entries() {
        let body = json!({"threadId": "t", "runId": "r", "messages": [], "resume": [
            {"interruptId": "c1", "status": "resolved", "payload": {"approved": true}},
            {"interruptId": "c2", "status": "cancelled"},
        ]});
        let run = ag_ui(body.to_string().as_bytes(), "t").unwrap();
        assert_eq!(run.run_id, "r");
        assert_eq!(
            run.request,
            RunRequest::Decide(vec![
                ("c1".into(), Decision::Approve),
                (
                    "c2".into(),
                    Decision::Reject {
                        message: REJECTED.into()
                    }
                )
            ])
        );
        assert!(ag_ui(body.to_string().as_bytes(), "other").is_err());
    }
}
