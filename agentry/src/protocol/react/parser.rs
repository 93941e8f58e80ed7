//! The sans-IO parser of one ReAct reply: an action, a final answer, or a correction for the
//! model.
//!
//! # The rules
//!
//! - Markers (`Thought:`, `Action:`, `Action Input:`, `Observation:`, `Final Answer:`) count only
//!   at the start of a line, in any case, with spaces, step numbers and markdown bold around them
//!   (see the `markers` module). Windows line endings are accepted.
//! - Text before the first `Action:` / `Final Answer:` is the thought (its `Thought:` prefixes
//!   removed, trimmed).
//! - An `Observation:` line ends the reply: the model invented it (it should have stopped at the
//!   stop sequence), so everything from there on is dropped.
//! - `Action:` names the tool (on its line, or on the next line if its own is empty) with
//!   backticks, quotes, brackets and bold around the name removed. `Action Input:` follows: a
//!   JSON object (optionally inside a code fence) ends at its balanced `}`; anything else is a
//!   bare input running to the next blank line, marker line, or closing fence (a quoted JSON
//!   string is unquoted).
//! - **The first complete action wins**: the model should have stopped after its input, so the
//!   rest of the reply (further actions, a final answer written after the action) is discarded;
//!   [`ReactReply::discarded_tail`] says that something was. This is what lets the streaming
//!   parser emit the action the moment its input is complete.
//! - A `Final Answer:` runs to the end of the reply (or an invented `Observation:`). A final
//!   answer *before* an action, an `Action:` after a final answer, and an action still lacking
//!   its input when a final answer begins are all "both", answered with a correction.

use serde_json::Value;

use super::markers::{Keyword, LineKind, ObjectScan, classify, is_cut_stop_sequence};
use super::reply::{ActionInput, JsonObject, ReactAction, ReactParseError, ReactReply, ReactStep};

/// Parses one complete reply.
///
/// ```
/// use agentry::protocol::react::{parse, ActionInput, ReactStep};
///
/// let reply = parse("Thought: look it up\nAction: search\nAction Input: {\"q\": \"Rust\"}").unwrap();
/// assert_eq!(reply.thought, "look it up");
/// let ReactStep::Action(action) = reply.step else { panic!() };
/// assert_eq!(action.tool, "search");
/// assert!(matches!(action.input, ActionInput::Json(_)));
/// ```
pub fn parse(reply: &str) -> Result<ReactReply, ReactParseError> {
    let text = normalize(reply);
    parse_normalized(&text)
}

/// CRLF (and lone CR) to LF.
pub(crate) fn normalize(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\r') {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// Lines of `t` from `pos` as (start, end without the newline).
fn lines_from(t: &str, pos: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut at = pos;
    std::iter::from_fn(move || {
        if at >= t.len() {
            return None;
        }
        let start = at;
        let end = t[start..].find('\n').map_or(t.len(), |i| start + i);
        at = end + 1;
        Some((start, end))
    })
}

pub(crate) fn parse_normalized(t: &str) -> Result<ReactReply, ReactParseError> {
    let mut thought = Thought::default();
    for (start, end) in lines_from(t, 0) {
        let line = &t[start..end];
        match classify(line, true) {
            LineKind::Text | LineKind::Undecided => thought.push(t, start, end),
            LineKind::Marker(Keyword::Thought, off) => {
                let content = start + off;
                let content = content + (end - content - t[content..end].trim_start().len());
                thought.push_marked(t, content, end)
            }
            LineKind::Marker(Keyword::Observation, _) => break,
            LineKind::Marker(Keyword::ActionInput, _) => {
                return Err(ReactParseError::ActionInputWithoutAction);
            }
            LineKind::Marker(Keyword::FinalAnswer, off) => {
                let answer = final_answer(t, start + off)?;
                return Ok(ReactReply {
                    thought: thought.finish(t),
                    step: ReactStep::FinalAnswer(answer),
                    discarded_tail: false,
                });
            }
            LineKind::Marker(Keyword::Action, off) => {
                let (action, tail) = action(t, start + off, end)?;
                return Ok(ReactReply {
                    thought: thought.finish(t),
                    step: ReactStep::Action(action),
                    discarded_tail: !t[tail..].trim().is_empty(),
                });
            }
        }
    }
    Err(ReactParseError::NoActionOrFinalAnswer)
}

/// The thought's lines (each without a `Thought:` marker), joined by `\n`. While they are one
/// stretch of the reply (the usual `Thought: ...` line, with plain lines after it) they are
/// kept as that stretch and copied once at the end; a second marker line copies them.
#[derive(Default)]
enum Thought {
    /// No line yet.
    #[default]
    None,
    /// The lines are `t[start..end]` as written.
    Span(usize, usize),
    /// The lines, copied.
    Owned(String),
}

impl Thought {
    /// A plain line, `t[start..end]`.
    fn push(&mut self, t: &str, start: usize, end: usize) {
        match self {
            Thought::None => *self = Thought::Span(start, end),
            // The next line of the stretch: the `\n` between them is the join.
            Thought::Span(_, last) if *last + 1 == start => *last = end,
            _ => self.own(t).push_str(&t[start..end]),
        }
    }

    /// A `Thought:` line's content, `t[content..end]`.
    fn push_marked(&mut self, t: &str, content: usize, end: usize) {
        match self {
            Thought::None => *self = Thought::Span(content, end),
            _ => self.own(t).push_str(&t[content..end]),
        }
    }

    /// The lines so far, copied, ready for the next one (after a `\n`).
    fn own(&mut self, t: &str) -> &mut String {
        match *self {
            Thought::Span(start, end) => *self = Thought::Owned(t[start..end].to_string()),
            Thought::None => *self = Thought::Owned(String::new()),
            Thought::Owned(_) => {}
        }
        let Thought::Owned(s) = self else {
            unreachable!("made owned above")
        };
        s.push('\n');
        s
    }

    /// The thought, trimmed.
    fn finish(self, t: &str) -> String {
        match self {
            Thought::None => String::new(),
            Thought::Span(start, end) => t[start..end].trim().to_string(),
            Thought::Owned(s) => trimmed(s),
        }
    }
}

/// `s` trimmed in place (no new allocation).
fn trimmed(mut s: String) -> String {
    let end = s.trim_end().len();
    s.truncate(end);
    let start = s.len() - s.trim_start().len();
    if start > 0 {
        s.drain(..start);
    }
    s
}

pub(crate) fn push_line(buf: &mut String, line: &str) {
    buf.push_str(line);
    buf.push('\n');
}

fn final_answer(t: &str, content: usize) -> Result<String, ReactParseError> {
    let first_end = t[content..].find('\n').map_or(t.len(), |i| content + i);
    let mut end = t.len();
    for (start, line_end) in lines_from(t, first_end + 1) {
        match classify(&t[start..line_end], true) {
            LineKind::Marker(Keyword::Observation, _) => {
                end = start;
                break;
            }
            _ if line_end == t.len() && is_cut_stop_sequence(&t[start..line_end]) => {
                end = start;
                break;
            }
            LineKind::Marker(Keyword::Action | Keyword::ActionInput, _) => {
                return Err(ReactParseError::BothActionAndFinalAnswer);
            }
            _ => {}
        }
    }
    Ok(t[content.min(end)..end].trim().to_string())
}

/// Parses from the content of an `Action:` line; returns the action and the offset where the
/// discarded tail starts.
fn action(
    t: &str,
    content: usize,
    line_end: usize,
) -> Result<(ReactAction, usize), ReactParseError> {
    let mut name = t[content..line_end].trim();
    let mut tool_line_end = line_end;
    for (start, end) in lines_from(t, line_end + 1) {
        let line = &t[start..end];
        match classify(line, true) {
            LineKind::Marker(Keyword::ActionInput, off) => {
                let tool = clean_tool_name(name);
                if tool.is_empty() {
                    return Err(ReactParseError::MissingToolName);
                }
                let (input, tail) = input(t, start + off, &tool)?;
                return Ok((ReactAction { tool, input }, tail));
            }
            LineKind::Marker(Keyword::FinalAnswer, _) => {
                return Err(ReactParseError::BothActionAndFinalAnswer);
            }
            LineKind::Marker(Keyword::Action | Keyword::Observation, _) => break,
            LineKind::Marker(Keyword::Thought, _) => {}
            LineKind::Text | LineKind::Undecided => {
                if name.is_empty() && start == tool_line_end + 1 && !line.trim().is_empty() {
                    name = line.trim();
                    tool_line_end = end;
                }
            }
        }
    }
    let tool = clean_tool_name(name);
    if tool.is_empty() {
        return Err(ReactParseError::MissingToolName);
    }
    Err(ReactParseError::MissingActionInput { tool })
}

/// Removes quoting models put around a tool name: backticks, quotes, brackets, bold, a
/// trailing period.
pub(crate) fn clean_tool_name(raw: &str) -> String {
    let mut s = raw.trim();
    // The usual name, written plainly: nothing to remove.
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
    {
        return s.to_string();
    }
    loop {
        let before = s;
        s = s.trim_end_matches(['.', ',', ';']).trim();
        for (open, close) in [
            ("**", "**"),
            ("`", "`"),
            ("\"", "\""),
            ("'", "'"),
            ("[", "]"),
            ("(", ")"),
            ("<", ">"),
        ] {
            if s.len() >= open.len() + close.len() && s.starts_with(open) && s.ends_with(close) {
                s = s[open.len()..s.len() - close.len()].trim();
            }
        }
        if s == before {
            return s.to_string();
        }
    }
}

/// Where the input starts after `Action Input:` (skipping blanks and an opening fence), and
/// whether it is fenced. `None` when the text ends before anything.
pub(crate) fn input_start(t: &str, content: usize) -> Option<(usize, bool)> {
    let mut i = content + (t.len() - content - t[content..].trim_start().len());
    if i >= t.len() {
        return None;
    }
    let mut fenced = false;
    if t[i..].starts_with("```") {
        fenced = true;
        let nl = t[i..].find('\n')?;
        i += nl + 1;
        i += t[i..].len() - t[i..].trim_start().len();
        if i >= t.len() {
            return None;
        }
    }
    Some((i, fenced))
}

/// Where a bare (non-object) input starting at `start` ends: a closing fence (fenced), else a
/// blank line or a marker line. `complete` says whether `t` is the whole reply; when not, `None`
/// means the end is not known yet.
pub(crate) fn bare_end(t: &str, start: usize, fenced: bool, complete: bool) -> Option<usize> {
    if fenced {
        return match t[start..].find("```") {
            Some(i) => Some(start + i),
            None if complete => Some(t.len()),
            None => None,
        };
    }
    let Some(first_end) = t[start..].find('\n').map(|i| start + i) else {
        return complete.then_some(t.len());
    };
    let mut at = first_end + 1;
    loop {
        let Some(nl) = t[at..].find('\n').map(|i| at + i) else {
            let line = &t[at..];
            if complete {
                return Some(match classify(line, true) {
                    LineKind::Marker(..) => at,
                    _ if line.trim().is_empty() || is_cut_stop_sequence(line) => at,
                    _ => t.len(),
                });
            }
            return match classify(line, false) {
                LineKind::Marker(..) => Some(at),
                _ => None,
            };
        };
        let line = &t[at..nl];
        if line.trim().is_empty() || matches!(classify(line, true), LineKind::Marker(..)) {
            return Some(at);
        }
        at = nl + 1;
    }
}

fn input(t: &str, content: usize, tool: &str) -> Result<(ActionInput, usize), ReactParseError> {
    let missing = || ReactParseError::MissingActionInput {
        tool: tool.to_string(),
    };
    let (start, fenced) = input_start(t, content).ok_or_else(missing)?;
    if t.as_bytes()[start] == b'{' {
        match ObjectScan::default().feed(&t.as_bytes()[start..]) {
            Some(len) => {
                let end = start + len;
                let object = json_object(&t[start..end], tool)?;
                let mut tail = end;
                if fenced {
                    let rest = &t[end..];
                    if rest.trim_start().starts_with("```") {
                        tail = end + (rest.len() - rest.trim_start().len()) + 3;
                    }
                }
                Ok((ActionInput::Json(object), tail))
            }
            None => {
                let end = if fenced {
                    t[start..].find("```").map_or(t.len(), |i| start + i)
                } else {
                    t.len()
                };
                Err(json_object(&t[start..end], tool).err().unwrap_or_else(|| {
                    ReactParseError::InvalidJson {
                        tool: tool.to_string(),
                        message: "the object is not closed".into(),
                        line: 1,
                        column: 1,
                    }
                }))
            }
        }
    } else {
        let end = bare_end(t, start, fenced, true).unwrap_or(t.len());
        let raw = t[start..end].trim();
        if raw.is_empty() {
            return Err(missing());
        }
        let text = match serde_json::from_str::<Value>(raw) {
            Ok(Value::String(s)) => s,
            _ => raw.to_string(),
        };
        let tail = if fenced && end < t.len() {
            end + 3
        } else {
            end
        };
        Ok((ActionInput::Text(text), tail))
    }
}

/// Checks `s` (a balanced `{...}`) is valid JSON without building it: the same tokenizer and
/// errors as parsing it into a map.
fn json_object(s: &str, tool: &str) -> Result<JsonObject, ReactParseError> {
    match serde_json::from_str::<serde::de::IgnoredAny>(s) {
        Ok(_) => Ok(JsonObject(s.to_string())),
        Err(e) => Err(ReactParseError::InvalidJson {
            tool: tool.to_string(),
            message: strip_position(&e.to_string()),
            line: e.line(),
            column: e.column(),
        }),
    }
}

fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}
