//! A review of a tool the agent does not have never pauses: building such an agent warns.

use std::sync::{Arc, Mutex};

use agentry::middleware::{DecisionKind::*, HumanInTheLoop};
use agentry::testing::ScriptedModel;
use tracing::field::{Field, Visit};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};

/// The `tool` field of every warning.
#[derive(Clone, Default)]
struct Warned(Arc<Mutex<Vec<String>>>);

impl<S: tracing::Subscriber> Layer<S> for Warned {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        struct Tool<'a>(&'a mut Vec<String>);
        impl Visit for Tool<'_> {
            fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
                if field.name() == "tool" {
                    self.0.push(format!("{value:?}"));
                }
            }
        }
        if *event.metadata().level() == tracing::Level::WARN {
            event.record(&mut Tool(&mut self.0.lock().unwrap()));
        }
    }
}

fn warned_while(build: impl FnOnce()) -> Vec<String> {
    let warned = Warned::default();
    let subscriber = tracing_subscriber::registry().with(warned.clone());
    tracing::subscriber::with_default(subscriber, build);
    warned.0.lock().unwrap().clone()
}

#[test]
fn a_review_of_a_tool_the_agent_lacks_warns_at_build() {
    let warned = warned_while(|| {
        let _agent = super::Assistant::builder(ScriptedModel::new([]))
            .middleware(
                HumanInTheLoop::new()
                    .review("send_email", Approve | Reject)
                    .review("send_mail", Approve),
            )
            .build();
    });
    assert_eq!(warned, ["send_mail"], "only the name no tool has");
}

#[test]
fn reviews_of_the_agents_tools_build_quietly() {
    let warned = warned_while(|| {
        let _agent = super::Assistant::builder(ScriptedModel::new([]))
            .middleware(HumanInTheLoop::new().review("search", Approve))
            .build();
    });
    assert!(warned.is_empty(), "{warned:?}");
}
