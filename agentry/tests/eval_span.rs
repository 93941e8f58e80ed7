//! An experiment runs each case in an `eval_case` span that records whether it passed.
//!
//! Alone in its binary: the test sets a thread-local subscriber, and a callsite that another
//! test's thread registers meanwhile keeps the interest it computed without that subscriber
//! ("never"), so the span could go unseen (seen once in a fresh-clone CI run).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use agentry::eval::{Case, Dataset, Equals, Experiment, ToolTrajectory};
use agentry::model::ChatRequest;
use agentry::prelude::*;
use agentry::testing::FunctionModel;
use tracing::span;
use tracing_subscriber::layer::{Context as LayerContext, Layer, SubscriberExt};

/// A span's case, and whether it passed once recorded.
type CaseSpan = (String, Option<bool>);

/// Each `eval_case` span, by id.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<HashMap<u64, CaseSpan>>>);

#[derive(Default)]
struct Fields {
    case: Option<String>,
    passed: Option<bool>,
}

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "case" {
            self.case = Some(format!("{value:?}"));
        }
    }
    fn record_bool(&mut self, field: &tracing::field::Field, value: bool) {
        if field.name() == "passed" {
            self.passed = Some(value);
        }
    }
}

impl<S: tracing::Subscriber> Layer<S> for Spans {
    fn on_new_span(&self, attrs: &span::Attributes<'_>, id: &span::Id, _: LayerContext<'_, S>) {
        if attrs.metadata().name() != "eval_case" {
            return;
        }
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        let case = fields.case.unwrap_or_default();
        self.0.lock().unwrap().insert(id.into_u64(), (case, None));
    }

    fn on_record(&self, id: &span::Id, values: &span::Record<'_>, _: LayerContext<'_, S>) {
        let mut fields = Fields::default();
        values.record(&mut fields);
        if let Some(entry) = self.0.lock().unwrap().get_mut(&id.into_u64()) {
            entry.1 = fields.passed.or(entry.1);
        }
    }
}

/// Says which tool to call from the question; answers once the tool has.
fn tool_model() -> FunctionModel {
    FunctionModel::new(|req: &ChatRequest| {
        let asked_already = req.messages.iter().any(|m| matches!(m, Message::Tool(_)));
        if asked_already {
            return FunctionModel::text("Done.");
        }
        let question = req.messages.last().map(Message::text).unwrap_or_default();
        FunctionModel::tool_call("lookup", serde_json::json!({ "topic": question }))
    })
}

/// Look something up.
///
/// # Arguments
/// * `topic` - What.
#[tool]
fn lookup(topic: String) -> String {
    format!("about {topic}")
}

/// Looks things up.
#[agent(tools(lookup))]
struct Librarian;

#[tokio::test]
async fn each_case_runs_an_agent_in_its_own_span() {
    let spans = Spans::default();
    let subscriber = tracing_subscriber::registry().with(spans.clone());
    let _guard = tracing::subscriber::set_default(subscriber);

    let agent = Librarian::builder(Arc::new(tool_model())).build();
    let dataset: Dataset<String, String> = Dataset::new("questions")
        .case(Case::new("owls", "owls".to_string()).expect("Done.".to_string()))
        .case(Case::new("bats", "bats".to_string()).expect("Nope.".to_string()));
    let report = Experiment::new("librarian", &dataset)
        .evaluator(Equals)
        .evaluator(ToolTrajectory::new().call("lookup"))
        .concurrency(2)
        // An agent's `RunResult` is what the task returns: the evaluators read its calls.
        .run(async |question: &String| agent.run(question.as_str(), ()).await)
        .await;
    assert_eq!(report.case("owls").unwrap().turns, 2);
    assert!(report.case("owls").unwrap().passed);
    assert!(!report.case("bats").unwrap().passed);

    let mut seen: Vec<CaseSpan> = spans.0.lock().unwrap().values().cloned().collect();
    seen.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        seen,
        [
            ("bats".to_string(), Some(false)),
            ("owls".to_string(), Some(true))
        ]
    );
}
