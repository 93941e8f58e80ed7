//! The four streamed jobs the bench times, each over the same deltas: two SDK paths and the
//! hand-written baseline of each.

use std::hint::black_box;

use agentry::agent::{AgentBuilder, AgentEvent, NoTools};
use agentry::model::{ChatModel, ChatRequest, StreamEvent};
use agentry::output::{OutputMode, PartialJson, StructuredEvent, StructuredExt, StructuredSpec};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use futures::StreamExt;

/// One row of the streamed answer.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
pub struct Row {
    /// Position.
    id: u64,
    /// A title.
    title: String,
    /// A longer text.
    summary: String,
    /// A score.
    score: f64,
    /// Labels.
    tags: Vec<String>,
    /// Whether it is done.
    done: bool,
}

/// A large structured answer.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
pub struct Report {
    /// The rows.
    pub rows: Vec<Row>,
}

/// What is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    /// `model.structured::<Report>().stream(..)`, every partial read.
    Stream,
    /// By hand: the deltas through `PartialJson`, the value read after each, one typed parse
    /// of the whole text.
    Baseline,
    /// An agent with `output = Report` streamed (`agent.stream`), every
    /// `AgentEvent::PartialOutput` read, then the run's typed output.
    Agent,
    /// By hand: the model's event stream read, its text deltas through `PartialJson`, the
    /// value read after each, one typed parse of the assembled answer.
    AgentBaseline,
}

impl Case {
    pub const ALL: [Case; 4] = [
        Case::Stream,
        Case::Baseline,
        Case::Agent,
        Case::AgentBaseline,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Case::Stream => "stream",
            Case::Baseline => "baseline",
            Case::Agent => "agent",
            Case::AgentBaseline => "agent-baseline",
        }
    }

    pub fn parse(name: &str) -> Option<Case> {
        Case::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The SDK case's hand-written baseline.
    pub fn baseline(self) -> Case {
        match self {
            Case::Stream | Case::Baseline => Case::Baseline,
            Case::Agent | Case::AgentBaseline => Case::AgentBaseline,
        }
    }
}

/// One input: a whole JSON document of about `n` deltas of 64 bytes.
pub struct Input {
    pub doc: String,
    pub parts: Vec<String>,
}

impl Input {
    pub fn new(n: usize) -> Input {
        let text = report_text(n * 64);
        let parts = deltas(&text, 64);
        let text = parts[..parts.len().min(n)].concat();
        // Whole rows only: cut after the last complete row and close the document.
        let cut = text.rfind("},{").map_or(text.len(), |i| i + 1);
        let doc = format!("{}]}}", &text[..cut]);
        let parts = deltas(&doc, 64).into_iter().map(str::to_string).collect();
        Input { doc, parts }
    }

    /// A scripted model that streams the deltas as text (not timed: the script is built
    /// before the clock starts).
    fn model(&self) -> ScriptedModel {
        let events = self
            .parts
            .iter()
            .map(|p| Ok(StreamEvent::TextDelta { text: p.clone() }));
        ScriptedModel::new([Turn::chunks(events)])
    }
}

/// Runs `case` over `input` once, timing what `time` wraps; returns the partial values seen.
pub fn run(
    rt: &tokio::runtime::Runtime,
    case: Case,
    input: &Input,
    time: &mut dyn FnMut(&mut dyn FnMut() -> usize) -> usize,
) -> usize {
    match case {
        Case::Baseline => time(&mut || baseline(input)),
        Case::Stream => {
            let model = input.model();
            time(&mut || rt.block_on(stream(&model)))
        }
        Case::Agent => {
            let agent = AgentBuilder::<_, _, (), ()>::new(input.model(), NoTools)
                .output(StructuredSpec::<Report>::new(OutputMode::Native))
                .build();
            time(&mut || {
                rt.block_on(async {
                    let mut events = agent.stream("report", ());
                    let mut partials = 0;
                    while let Some(event) = events.next().await {
                        if let AgentEvent::PartialOutput { partial, .. } =
                            event.expect("the scripted run succeeds")
                        {
                            partials += 1;
                            black_box(partial.get("rows"));
                        }
                    }
                    let run = events.result().await.expect("the scripted run succeeds");
                    assert!(!run.output.rows.is_empty());
                    partials
                })
            })
        }
        Case::AgentBaseline => {
            let model = input.model();
            time(&mut || rt.block_on(by_hand(&model)))
        }
    }
}

async fn stream(model: &ScriptedModel) -> usize {
    let mut stream = model
        .structured::<Report>()
        .mode(OutputMode::Native)
        .stream(vec![Message::user("report")]);
    let mut partials = 0;
    let mut rows = 0;
    while let Some(event) = stream.next().await {
        match event.expect("the scripted answer is valid") {
            StructuredEvent::Partial(p) => {
                partials += 1;
                black_box(p.get("rows"));
            }
            StructuredEvent::Done { value, .. } => rows = value.rows.len(),
            StructuredEvent::Retry(a) => panic!("unexpected retry: {}", a.error),
        }
    }
    assert!(rows > 0);
    partials
}

fn baseline(input: &Input) -> usize {
    let mut parser = PartialJson::new();
    let mut partials = 0;
    for part in &input.parts {
        if parser.push(black_box(part)).unwrap() {
            partials += 1;
            black_box(parser.value().map(|v| v.get("rows")));
        }
    }
    let report: Report = serde_json::from_str(black_box(&input.doc)).unwrap();
    assert!(!report.rows.is_empty());
    partials
}

/// The model's stream read by hand: text deltas parsed as they come, the final answer's text
/// parsed whole into the type.
async fn by_hand(model: &ScriptedModel) -> usize {
    let mut events = model.stream(ChatRequest::new(vec![Message::user("report")]));
    let mut parser = PartialJson::new();
    let mut partials = 0;
    while let Some(event) = events.next().await {
        match event.expect("the scripted stream succeeds") {
            StreamEvent::TextDelta { text } if parser.push(&text).unwrap() => {
                partials += 1;
                black_box(parser.value().map(|v| v.get("rows")));
            }
            StreamEvent::Completed { response } => {
                let report: Report = serde_json::from_str(&response.message.text()).unwrap();
                assert!(!report.rows.is_empty());
                return partials;
            }
            _ => {}
        }
    }
    panic!("the scripted stream ended without its answer")
}

/// A JSON text of at least `bytes` bytes, shaped like a large structured answer.
fn report_text(bytes: usize) -> String {
    use serde_json::json;
    let mut rows = Vec::new();
    let mut len = 0;
    let mut i = 0u64;
    while len < bytes {
        let row = json!({
            "id": i,
            "title": format!("Item number {i} with a reasonably long title"),
            "summary": "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do \
                        eiusmod tempor \"incididunt\" ut labore et dolore magna aliqua.\n",
            "score": (i as f64) * 0.25 - 12.5,
            "tags": ["alpha", "beta", "gamma"],
            "done": i.is_multiple_of(3),
        });
        len += row.to_string().len() + 1;
        rows.push(row);
        i += 1;
    }
    serde_json::to_string(&json!({ "rows": rows })).unwrap()
}

/// `text` in deltas of about `size` bytes, split at char boundaries.
pub fn deltas(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::with_capacity(text.len() / size + 1);
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[start..end]);
        start = end;
    }
    out
}

/// A JSON text of about `bytes` bytes (for the parser-alone case).
pub fn text_of(bytes: usize) -> String {
    report_text(bytes)
}
