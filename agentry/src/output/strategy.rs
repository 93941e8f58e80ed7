//! How a typed answer is asked for: the provider's JSON-schema response format, a synthetic
//! final-answer tool, or instructions in the prompt — chosen by hand or from the model's
//! profile.

use std::sync::Arc;

use serde_json::{Value, json};

use super::closed::ClosedSchema;
use super::error::{AnswerError, FailedAttempt};
use super::extract::extract_json;
use super::parse::{WRAPPER_KEY, parse_output};
use super::reask::correction_messages;
use super::structured::{StructuredOutput, output_schema};
use super::{OutputParse, OutputSpec};
use crate::message::{AssistantMessage, Message};
use crate::model::{ChatRequest, ModelProfile, ResponseFormat, ToolChoice};
use crate::schema::{Dialect, lower};
use crate::tool::{DefinitionRef, ToolDefinition};

/// How the final answer is requested.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OutputMode {
    /// Chosen per request from the model's [`ModelProfile`]: [`Native`](Self::Native) when the
    /// model supports it and no ordinary tool call is pending; else [`Tool`](Self::Tool) when
    /// the model calls tools natively and can be made to call one or already has tools; else
    /// [`Prompted`](Self::Prompted). A native response format is never combined with pending
    /// tool calls, which several servers (Ollama, vLLM) cannot do.
    #[default]
    Auto,
    /// The provider's JSON-schema response format, strict where the model and the schema
    /// allow it.
    Native,
    /// A synthetic final-answer tool named after the output type, beside the agent's tools.
    Tool,
    /// The schema in a system message; the JSON is taken from the answer's text (code fences
    /// and leading prose are tolerated).
    Prompted,
}

/// What an answer means, with the details a [`OutputParse`] leaves out.
#[derive(Debug)]
pub enum Interpretation<T> {
    /// The answer calls ordinary tools only.
    Continue,
    /// A valid output.
    Done(T),
    /// The answer was meant to be final but is invalid.
    Invalid {
        /// What the model wrote and what is wrong with it.
        attempt: FailedAttempt,
        /// The correction request to append after the answer.
        feedback: Vec<Message>,
    },
    /// The model refused.
    Refused(String),
}

/// The [`OutputSpec`] of a [`StructuredOutput`] type: prepares requests in the chosen
/// [`OutputMode`], parses, validates and asks for corrections.
///
/// Cheap to clone: the schema, tool definitions and instructions are built once in
/// [`StructuredSpec::new`].
pub struct StructuredSpec<T> {
    mode: OutputMode,
    shared: Arc<Shared>,
    /// Reads `T` from an answer's JSON (`parse_output::<T>`), taken when the spec is made:
    /// the only use of `T`'s traits after that, so the spec is an [`OutputSpec`] for any `T`
    /// and only [`StructuredSpec::new`] asks `T: StructuredOutput` (a type missing a derive is
    /// one compile error where the spec is made, not one more at every use of the agent).
    parse: fn(&str, bool) -> Result<T, AnswerError>,
}

struct Shared {
    name: String,
    description: Option<String>,
    /// The schema of `T` (constraints included), root as it is.
    schema: Value,
    /// Whether `schema`'s root is not an object, so native and tool strategies wrap it.
    wrapped: bool,
    /// The schema sent as response format or tool parameters: always an object.
    object_schema: Value,
    /// Whether `object_schema` survives lowering to OpenAI's strict dialect.
    strict_ok: bool,
    tool: DefinitionRef,
    strict_tool: DefinitionRef,
    instructions: String,
    /// `object_schema` in OpenAI's strict (closed) form, for answers to strict requests.
    closed: ClosedSchema,
}

impl<T> Clone for StructuredSpec<T> {
    fn clone(&self) -> Self {
        StructuredSpec {
            mode: self.mode,
            shared: Arc::clone(&self.shared),
            parse: self.parse,
        }
    }
}

impl<T> std::fmt::Debug for StructuredSpec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StructuredSpec")
            .field("name", &self.shared.name)
            .field("mode", &self.mode)
            .field("wrapped", &self.shared.wrapped)
            .finish_non_exhaustive()
    }
}

impl<T: StructuredOutput> Default for StructuredSpec<T> {
    fn default() -> Self {
        StructuredSpec::new(OutputMode::Auto)
    }
}

impl<T: StructuredOutput> StructuredSpec<T> {
    /// A spec in `mode`; builds the schema, the final-answer tool and the instructions.
    pub fn new(mode: OutputMode) -> Self {
        let name = T::output_name().into_owned();
        let schema = output_schema::<T>();
        let description = T::output_description().map(|d| d.into_owned()).or_else(|| {
            schema
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        let wrapped = !is_object_root(&schema);
        let object_schema = if wrapped {
            wrap(&schema)
        } else {
            schema.clone()
        };
        let strict_ok = lower(&object_schema, Dialect::OpenAiStrict).is_ok();
        let tool_description = match &description {
            Some(d) => format!("Give the final answer: {d} Call this tool once, with the answer."),
            None => "Give the final answer. Call this tool once, with the answer.".to_string(),
        };
        let tool = DefinitionRef::from(
            ToolDefinition::new(&name, &tool_description, object_schema.clone(), false)
                .into_final_answer(),
        );
        let strict_tool = DefinitionRef::from(
            ToolDefinition::new(&name, &tool_description, object_schema.clone(), true)
                .into_final_answer(),
        );
        let instructions = instructions(&schema, description.as_deref());
        tracing::debug!(output = %name, wrapped, strict_ok, "structured output spec built");
        StructuredSpec {
            mode,
            shared: Arc::new(Shared {
                name,
                description,
                schema,
                wrapped,
                object_schema,
                strict_ok,
                tool,
                strict_tool,
                instructions,
                closed: ClosedSchema::default(),
            }),
            parse: parse_output::<T>,
        }
    }
}

impl<T> StructuredSpec<T> {
    /// The stand-in of an output type `#[agent]` rejected (see
    /// `agent::output_probe::rejected_spec`): never run, it would refuse every answer.
    pub(crate) fn rejected() -> Self {
        let name = "rejected_output".to_owned();
        let schema = Value::Object(Default::default());
        let tool = DefinitionRef::from(ToolDefinition::new(&name, "", schema.clone(), false));
        StructuredSpec {
            mode: OutputMode::Prompted,
            shared: Arc::new(Shared {
                name,
                description: None,
                schema: schema.clone(),
                wrapped: false,
                object_schema: schema,
                strict_ok: false,
                strict_tool: tool.clone(),
                tool,
                instructions: String::new(),
                closed: ClosedSchema::default(),
            }),
            parse: |_, _| Err(AnswerError::NoJson),
        }
    }

    /// The same spec in another mode.
    pub fn with_mode(mut self, mode: OutputMode) -> Self {
        self.mode = mode;
        self
    }

    /// The mode asked for (possibly [`OutputMode::Auto`]).
    pub fn mode(&self) -> OutputMode {
        self.mode
    }

    /// The name used for the response format and the final-answer tool.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// The output's schema (constraints included), its root as it is.
    pub fn schema(&self) -> &Value {
        &self.shared.schema
    }

    /// The schema sent to providers that need an object root: [`schema`](Self::schema), or
    /// `{"value": ...}` around it for enums, lists and other non-object outputs.
    pub fn object_schema(&self) -> &Value {
        &self.shared.object_schema
    }

    /// Whether the output is wrapped as `{"value": ...}` in native and tool modes.
    pub fn is_wrapped(&self) -> bool {
        self.shared.wrapped
    }

    /// The mode used for a request to a model with `profile`, given the request's tools.
    pub fn resolve(
        &self,
        profile: &ModelProfile,
        tools_pending: bool,
        has_tools: bool,
    ) -> OutputMode {
        match self.mode {
            OutputMode::Auto => {
                if profile.native_structured_output && !tools_pending {
                    OutputMode::Native
                } else if profile.tool_calling
                    && (profile.tool_choice_named
                        || profile.tool_choice_required
                        || (tools_pending && has_tools))
                {
                    OutputMode::Tool
                } else {
                    OutputMode::Prompted
                }
            }
            explicit => explicit,
        }
    }

    /// Interprets an answer; [`OutputSpec::parse`] is this without the details.
    pub fn interpret(&self, message: &AssistantMessage) -> Interpretation<T> {
        self.interpret_closed(message, false)
    }

    /// Whether `request` (prepared by this spec) sent the provider the output's schema in
    /// strict form, every object closed (`additionalProperties: false`): as the strict
    /// final-answer tool, or as a strict JSON-schema response format.
    pub fn sent_closed(&self, request: &ChatRequest) -> bool {
        let shared = &*self.shared;
        let strict_tool = request
            .tools
            .iter()
            .any(|t| t.name == shared.name && t.strict);
        let strict_format = matches!(
            &request.response_format,
            Some(ResponseFormat::JsonSchema { name, strict: true, .. }) if *name == shared.name
        );
        strict_tool || strict_format
    }

    /// [`interpret`](Self::interpret) for an answer to a request that sent the schema in
    /// closed form when `closed` ([`sent_closed`](Self::sent_closed)): a field the closed
    /// schema forbids is then an invalid answer, re-asked like any other.
    pub fn interpret_closed(&self, message: &AssistantMessage, closed: bool) -> Interpretation<T> {
        self.interpret_streamed(message, closed, None)
    }

    /// [`interpret_closed`](Self::interpret_closed) for a streamed answer whose text was
    /// parsed as it arrived: when `streamed` holds that text and the value parsed from it
    /// (the text is exactly one JSON object or array, see [`PartialJson::whole`]), the
    /// answer's text is that JSON and the closed-schema check reads the value instead of
    /// parsing the text again. The typed parse still reads the text (serde reports a
    /// duplicate field there, which a `Value` cannot show).
    ///
    /// [`PartialJson::whole`]: super::PartialJson
    pub(crate) fn interpret_streamed(
        &self,
        message: &AssistantMessage,
        closed: bool,
        streamed: Option<(&str, &Value)>,
    ) -> Interpretation<T> {
        if let Some(refusal) = &message.refusal {
            return Interpretation::Refused(refusal.clone());
        }
        let shared = &*self.shared;
        let parse = |json: &str| {
            if closed && let Some(error) = shared.closed.extra_field(&shared.object_schema, json) {
                return Err(error);
            }
            (self.parse)(json, shared.wrapped)
        };
        if !message.tool_calls.is_empty() {
            let mut first_error: Option<FailedAttempt> = None;
            for call in message.tool_calls.iter().filter(|c| c.name == shared.name) {
                match parse(&call.arguments) {
                    Ok(value) => return Interpretation::Done(value),
                    Err(error) => {
                        first_error.get_or_insert(FailedAttempt {
                            raw: call.arguments.clone(),
                            error,
                        });
                    }
                }
            }
            return match first_error {
                Some(attempt) => {
                    let feedback = correction_messages(message, Some(&shared.name), &attempt.error);
                    Interpretation::Invalid { attempt, feedback }
                }
                None => Interpretation::Continue,
            };
        }
        let text = message.text();
        let result = match streamed {
            // The whole text is one JSON value, already parsed: it is what `extract_json`
            // would find, and the closed check reads the parsed value.
            Some((fed, value)) if fed == text => {
                let json = text.trim();
                match closed
                    .then(|| shared.closed.extra_field_in(&shared.object_schema, value))
                    .flatten()
                {
                    Some(error) => Err(error),
                    None => (self.parse)(json, shared.wrapped),
                }
            }
            _ if text.trim().is_empty() => Err(AnswerError::Empty),
            _ => match extract_json(&text) {
                Some(json) => parse(json),
                None => Err(AnswerError::NoJson),
            },
        };
        match result {
            Ok(value) => Interpretation::Done(value),
            Err(error) => {
                let feedback = correction_messages(message, None, &error);
                Interpretation::Invalid {
                    attempt: FailedAttempt { raw: text, error },
                    feedback,
                }
            }
        }
    }

    fn prepare_native(&self, request: &mut ChatRequest, profile: &ModelProfile) {
        let shared = &*self.shared;
        request.response_format = Some(ResponseFormat::JsonSchema {
            name: shared.name.clone(),
            description: shared.description.clone(),
            schema: shared.object_schema.clone(),
            strict: profile.native_structured_output && shared.strict_ok,
        });
    }

    fn prepare_tool(&self, request: &mut ChatRequest, profile: &ModelProfile, tools_pending: bool) {
        let shared = &*self.shared;
        if !request.tools.iter().any(|t| t.name == shared.name) {
            let def = if profile.strict_tools && shared.strict_ok {
                &shared.strict_tool
            } else {
                &shared.tool
            };
            request.tools.push(def.clone());
        }
        let free_choice = matches!(request.tool_choice, None | Some(ToolChoice::Auto));
        if !tools_pending && free_choice {
            if profile.tool_choice_named {
                request.tool_choice = Some(ToolChoice::Tool(shared.name.clone()));
            } else if profile.tool_choice_required {
                request.tool_choice = Some(ToolChoice::Required);
            }
        }
    }

    fn prepare_prompted(&self, request: &mut ChatRequest) {
        let instructions = &self.shared.instructions;
        let present = request
            .messages
            .iter()
            .any(|m| matches!(m, Message::System { content } if content == instructions));
        if !present {
            let at = request
                .messages
                .iter()
                .take_while(|m| matches!(m, Message::System { .. }))
                .count();
            request
                .messages
                .insert(at, Message::system(instructions.clone()));
        }
    }
}

impl<T: Send + 'static> OutputSpec for StructuredSpec<T> {
    type Output = T;

    fn prepare(&self, request: &mut ChatRequest, profile: &ModelProfile, tools_pending: bool) {
        let mode = self.resolve(profile, tools_pending, !request.tools.is_empty());
        tracing::trace!(output = %self.shared.name, ?mode, tools_pending, "preparing request");
        match mode {
            OutputMode::Native => {
                if tools_pending && !request.tools.is_empty() {
                    tracing::warn!(
                        output = %self.shared.name,
                        "native structured output requested while tool calls are pending; \
                         some servers cannot combine the two (use OutputMode::Auto)"
                    );
                }
                self.prepare_native(request, profile)
            }
            OutputMode::Tool => self.prepare_tool(request, profile, tools_pending),
            OutputMode::Prompted | OutputMode::Auto => self.prepare_prompted(request),
        }
    }

    fn is_output_tool(&self, name: &str) -> bool {
        name == self.shared.name
    }

    fn parse(&self, message: &AssistantMessage) -> OutputParse<T> {
        self.parse_closed(message, false)
    }

    fn sent_closed(&self, request: &ChatRequest) -> bool {
        StructuredSpec::sent_closed(self, request)
    }

    fn is_wrapped(&self) -> bool {
        self.shared.wrapped
    }

    fn streams_native(&self, request: &ChatRequest) -> bool {
        matches!(
            &request.response_format,
            Some(ResponseFormat::JsonSchema { name, .. }) if *name == self.shared.name
        )
    }

    fn parse_closed(&self, message: &AssistantMessage, closed: bool) -> OutputParse<T> {
        match self.interpret_closed(message, closed) {
            Interpretation::Continue => OutputParse::Continue,
            Interpretation::Done(value) => OutputParse::Done(value),
            Interpretation::Refused(refusal) => OutputParse::Refused(refusal),
            Interpretation::Invalid { attempt, feedback } => OutputParse::Retry {
                feedback,
                error: attempt.error.to_string(),
            },
        }
    }
}

/// Whether a schema's root accepts only objects (what providers require at the root).
fn is_object_root(schema: &Value) -> bool {
    schema.get("type") == Some(&Value::from("object"))
        && ["oneOf", "anyOf", "allOf", "$ref", "enum", "const"]
            .iter()
            .all(|k| schema.get(k).is_none())
}

/// `{"value": schema}` as an object schema, definitions kept at the root.
fn wrap(schema: &Value) -> Value {
    let mut inner = schema.clone();
    let defs = inner.as_object_mut().and_then(|m| m.remove("$defs"));
    let mut wrapper = json!({
        "type": "object",
        "properties": { WRAPPER_KEY: inner },
        "required": [WRAPPER_KEY],
        "additionalProperties": false,
    });
    if let (Some(defs), Some(map)) = (defs, wrapper.as_object_mut()) {
        map.insert("$defs".into(), defs);
    }
    wrapper
}

fn instructions(schema: &Value, description: Option<&str>) -> String {
    let schema_text = serde_json::to_string_pretty(schema).unwrap_or_else(|_| schema.to_string());
    let what = description
        .map(|d| format!(" The answer is: {d}"))
        .unwrap_or_default();
    format!(
        "When you give your final answer, answer with one JSON value that matches the JSON \
         schema below, and nothing else: no prose, no code fences.{what}\n\n{schema_text}"
    )
}
