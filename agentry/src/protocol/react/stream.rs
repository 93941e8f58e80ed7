//! The ReAct parser fed text deltas.
//!
//! [`ReactStream`] gives the same result as [`parse`](super::parse) on the concatenated text
//! (whatever the splits), and emits as it goes:
//! - [`ReactEvent::Thought`] deltas whose concatenation is the reply's thought; a line that could
//!   still become a marker (`Act…`) is held back until it is decided;
//! - [`ReactEvent::Action`] once, the moment the input is complete: the balanced `}` of a JSON
//!   object, the end of a bare input (blank line, marker line, closing fence) or the end of text;
//! - [`ReactEvent::FinalAnswer`] deltas whose concatenation is the final answer.
//!
//! Deltas are provisional: a reply that turns out malformed (say a `Final Answer:` followed by an
//! `Action:`) has had deltas emitted before the error [`finish`](ReactStream::finish) returns.

use super::markers::{Keyword, LineKind, ObjectScan, classify};
use super::parser::{bare_end, input_start, parse_normalized, push_line};
use super::reply::{ReactAction, ReactParseError, ReactReply, ReactStep};

/// What the streaming parser reports.
#[derive(Clone, Debug, PartialEq)]
pub enum ReactEvent {
    /// More of the thought.
    Thought(String),
    /// The action, complete.
    Action(ReactAction),
    /// More of the final answer.
    FinalAnswer(String),
}

#[derive(Clone, Debug)]
enum Phase {
    Thought,
    Final {
        content: usize,
    },
    Action,
    Input {
        content: usize,
    },
    Json {
        scan: ObjectScan,
        scanned: usize,
    },
    /// `from`: where to resume looking for the end (see `bare_end`).
    Bare {
        from: usize,
        fenced: bool,
    },
    /// Nothing more is emitted; `finish` reports the outcome.
    Stopped,
}

/// Incremental ReAct parser; see the module docs.
///
/// ```
/// use agentry::protocol::react::{ReactEvent, ReactStream};
///
/// let mut stream = ReactStream::new();
/// let mut events = stream.push("Thought: hm\nAction: search\nAction Input: {\"q\":");
/// events.extend(stream.push(" 1} and more"));
/// assert!(matches!(events.last(), Some(ReactEvent::Action(a)) if a.tool == "search"));
/// ```
#[derive(Clone, Debug)]
pub struct ReactStream {
    buf: String,
    pending_cr: bool,
    line_start: usize,
    /// Bytes before this hold no newline after `line_start` (so a long line is searched once).
    searched: usize,
    phase: Phase,
    thought: String,
    thought_emitted: usize,
    final_emitted: usize,
    action_emitted: bool,
}

impl Default for ReactStream {
    fn default() -> Self {
        Self::new()
    }
}

impl ReactStream {
    /// A parser at the start of a reply.
    pub fn new() -> Self {
        ReactStream {
            buf: String::new(),
            pending_cr: false,
            line_start: 0,
            searched: 0,
            phase: Phase::Thought,
            thought: String::new(),
            thought_emitted: 0,
            final_emitted: 0,
            action_emitted: false,
        }
    }

    /// Feeds a delta; returns what it made known.
    pub fn push(&mut self, delta: &str) -> Vec<ReactEvent> {
        for c in delta.chars() {
            if self.pending_cr {
                self.pending_cr = false;
                self.buf.push('\n');
                if c == '\n' {
                    continue;
                }
            }
            if c == '\r' {
                self.pending_cr = true;
            } else {
                self.buf.push(c);
            }
        }
        let mut out = Vec::new();
        self.advance(&mut out);
        out
    }

    /// Ends the reply: the last events and the result, equal to [`parse`](super::parse) of the
    /// whole text.
    pub fn finish(mut self) -> (Vec<ReactEvent>, Result<ReactReply, ReactParseError>) {
        if self.pending_cr {
            self.pending_cr = false;
            self.buf.push('\n');
        }
        let mut out = Vec::new();
        self.advance(&mut out);
        let result = parse_normalized(&self.buf);
        if let Ok(reply) = &result {
            if let Some(rest) = rest_of(&reply.thought, self.thought_emitted) {
                out.push(ReactEvent::Thought(rest.to_string()));
            }
            match &reply.step {
                ReactStep::FinalAnswer(answer) => {
                    if let Some(rest) = rest_of(answer, self.final_emitted) {
                        out.push(ReactEvent::FinalAnswer(rest.to_string()));
                    }
                }
                ReactStep::Action(action) if !self.action_emitted => {
                    out.push(ReactEvent::Action(action.clone()));
                }
                ReactStep::Action(_) => {}
            }
        }
        (out, result)
    }

    fn advance(&mut self, out: &mut Vec<ReactEvent>) {
        loop {
            let before = std::mem::discriminant(&self.phase);
            match self.phase.clone() {
                Phase::Thought => self.thought_lines(out),
                Phase::Final { content } => self.final_lines(content, out),
                Phase::Action => self.action_lines(),
                Phase::Input { content } => self.input(content),
                Phase::Json { mut scan, scanned } => {
                    if scan.feed(&self.buf.as_bytes()[scanned..]).is_some() {
                        self.emit_action(out);
                    } else {
                        self.phase = Phase::Json {
                            scan,
                            scanned: self.buf.len(),
                        };
                    }
                }
                Phase::Bare { from, fenced } => {
                    if bare_end(&self.buf, from, fenced, false).is_some() {
                        self.emit_action(out);
                    } else {
                        // Lines already checked need no second look: resume at the newline
                        // before the unfinished line (or just before a fence that may be split).
                        let resume = if fenced {
                            let mut r = self.buf.len().saturating_sub(2).max(from);
                            while !self.buf.is_char_boundary(r) {
                                r -= 1;
                            }
                            r.max(from)
                        } else {
                            self.buf.rfind('\n').map_or(from, |nl| nl.max(from))
                        };
                        self.phase = Phase::Bare {
                            from: resume,
                            fenced,
                        };
                    }
                }
                Phase::Stopped => {}
            }
            if std::mem::discriminant(&self.phase) == before {
                return;
            }
        }
    }

    fn emit_action(&mut self, out: &mut Vec<ReactEvent>) {
        self.phase = Phase::Stopped;
        if let Ok(ReactReply {
            step: ReactStep::Action(action),
            ..
        }) = parse_normalized(&self.buf)
        {
            self.action_emitted = true;
            out.push(ReactEvent::Action(action));
        }
    }

    /// The next complete line from `line_start`, advancing past it.
    fn next_line(&mut self) -> Option<(usize, usize)> {
        let start = self.line_start;
        let from = self.searched.max(start);
        let Some(i) = self.buf[from..].find('\n') else {
            self.searched = self.buf.len();
            return None;
        };
        let nl = from + i;
        self.line_start = nl + 1;
        Some((start, nl))
    }

    fn thought_lines(&mut self, out: &mut Vec<ReactEvent>) {
        while let Some((start, end)) = self.next_line() {
            match classify(&self.buf[start..end], true) {
                LineKind::Text | LineKind::Undecided => {
                    push_thought(&mut self.thought, &self.buf[start..end])
                }
                LineKind::Marker(Keyword::Thought, off) => {
                    push_thought(&mut self.thought, self.buf[start + off..end].trim_start())
                }
                LineKind::Marker(Keyword::FinalAnswer, off) => {
                    self.phase = Phase::Final {
                        content: start + off,
                    };
                    self.line_start = end + 1;
                    return;
                }
                LineKind::Marker(Keyword::Action, _) => {
                    self.phase = Phase::Action;
                    return;
                }
                LineKind::Marker(Keyword::Observation | Keyword::ActionInput, _) => {
                    self.phase = Phase::Stopped;
                    return;
                }
            }
            emit_thought(&self.thought, "", &mut self.thought_emitted, out);
        }
        let partial = &self.buf[self.line_start..];
        match classify(partial, false) {
            LineKind::Text => emit_thought(&self.thought, partial, &mut self.thought_emitted, out),
            LineKind::Marker(Keyword::Thought, off) => emit_thought(
                &self.thought,
                partial[off..].trim_start(),
                &mut self.thought_emitted,
                out,
            ),
            LineKind::Marker(Keyword::FinalAnswer, off) => {
                self.phase = Phase::Final {
                    content: self.line_start + off,
                };
            }
            _ => {}
        }
    }

    fn final_lines(&mut self, content: usize, out: &mut Vec<ReactEvent>) {
        // The marker line itself is content; lines after it are checked for markers.
        let mut decided = self.line_start.max(content);
        if self.line_start <= content {
            // Still on the marker line.
            let from = self.searched.max(content);
            match self.buf[from..].find('\n') {
                Some(i) => {
                    self.line_start = from + i + 1;
                    decided = self.line_start;
                }
                None => {
                    self.searched = self.buf.len();
                    decided = self.buf.len();
                }
            }
        }
        if self.line_start > content {
            while let Some((start, end)) = self.next_line() {
                match classify(&self.buf[start..end], true) {
                    LineKind::Marker(Keyword::Observation, _) => {
                        decided = start;
                        self.phase = Phase::Stopped;
                        break;
                    }
                    LineKind::Marker(Keyword::Action | Keyword::ActionInput, _) => {
                        decided = start;
                        self.phase = Phase::Stopped;
                        break;
                    }
                    _ => decided = end + 1,
                }
            }
            if matches!(self.phase, Phase::Final { .. }) {
                let partial = &self.buf[self.line_start..];
                match classify(partial, false) {
                    LineKind::Text
                    | LineKind::Marker(Keyword::Thought | Keyword::FinalAnswer, _) => {
                        decided = self.buf.len()
                    }
                    _ => decided = self.line_start,
                }
            }
        }
        let answer = self.buf[content..decided.max(content)].trim();
        if let Some(rest) = rest_of(answer, self.final_emitted) {
            self.final_emitted += rest.len();
            out.push(ReactEvent::FinalAnswer(rest.to_string()));
        }
    }

    fn action_lines(&mut self) {
        while let Some((start, end)) = self.next_line() {
            match classify(&self.buf[start..end], true) {
                LineKind::Marker(Keyword::ActionInput, off) => {
                    self.phase = Phase::Input {
                        content: start + off,
                    };
                    return;
                }
                LineKind::Marker(Keyword::Thought, _) | LineKind::Text | LineKind::Undecided => {}
                LineKind::Marker(..) => {
                    self.phase = Phase::Stopped;
                    return;
                }
            }
        }
        if let LineKind::Marker(Keyword::ActionInput, off) =
            classify(&self.buf[self.line_start..], false)
        {
            self.phase = Phase::Input {
                content: self.line_start + off,
            };
        }
    }

    fn input(&mut self, content: usize) {
        let rest = self.buf[content..].trim_start();
        if rest.is_empty() || (rest.len() < 3 && "```".starts_with(rest)) {
            return;
        }
        if rest.starts_with("```") && !rest.contains('\n') {
            return;
        }
        let Some((start, fenced)) = input_start(&self.buf, content) else {
            return;
        };
        self.phase = if self.buf.as_bytes()[start] == b'{' {
            Phase::Json {
                scan: ObjectScan::default(),
                scanned: start,
            }
        } else {
            Phase::Bare {
                from: start,
                fenced,
            }
        };
    }
}

/// Appends a line to a thought kept without leading blanks (the result is trimmed anyway).
fn push_thought(thought: &mut String, line: &str) {
    if thought.is_empty() {
        let line = line.trim_start();
        if !line.is_empty() {
            push_line(thought, line);
        }
    } else {
        push_line(thought, line);
    }
}

/// Emits what became stable of `trim(thought + partial)`, without copying the thought.
fn emit_thought(thought: &str, partial: &str, emitted: &mut usize, out: &mut Vec<ReactEvent>) {
    let partial = if thought.is_empty() {
        partial.trim()
    } else {
        partial.trim_end()
    };
    let (head, tail) = if partial.is_empty() {
        (thought.trim_end(), "")
    } else {
        (thought, partial)
    };
    let total = head.len() + tail.len();
    if total <= *emitted {
        return;
    }
    let mut delta = String::new();
    if *emitted < head.len() {
        delta.push_str(&head[*emitted..]);
        delta.push_str(tail);
    } else {
        delta.push_str(&tail[*emitted - head.len()..]);
    }
    *emitted = total;
    out.push(ReactEvent::Thought(delta));
}

/// `full[emitted..]` when it is non-empty and `emitted` is a boundary.
fn rest_of(full: &str, emitted: usize) -> Option<&str> {
    if full.len() > emitted && full.is_char_boundary(emitted) {
        Some(&full[emitted..])
    } else {
        None
    }
}
