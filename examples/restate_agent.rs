//! Durable agent runs on Restate: a support agent served as the virtual object `Support`,
//! one object per conversation. Each model request and each tool call is a journaled step:
//! kill this process mid-run, start it again, and the run goes on from its journal without
//! asking the model again or repeating a refund. A refund waits for a person's approval as
//! an awakeable: the run suspends (nothing waits in this process) until a decision arrives
//! from anywhere. Each run's events (text deltas, tool results, the pause, the end) are
//! served over SSE next to the endpoint, by invocation id (`EventHub`).
//!
//! Offline by default (the built-in MockServer plays the model); set `OPENAI_API_KEY`,
//! `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`, `OPENAI_BASE_URL` or `AGENTRY_MODEL` for a real one.
//!
//! Start the server (the binary ships in the npm package `@restatedev/restate-server`; the
//! tests pin it in `agentry/tests/restate_server/package.json`), then this service, then
//! register it and talk to it:
//!
//! ```text
//! npx @restatedev/restate-server                       # ingress :8080, admin :9070
//! cargo run --example restate_agent                    # serves 127.0.0.1:9080 (RESTATE_SERVICE_ADDR),
//!                                                      # events on 127.0.0.1:9081 (RESTATE_EVENTS_ADDR)
//! curl -s localhost:9070/deployments -H 'content-type: application/json' \
//!      -d '{"uri": "http://127.0.0.1:9080"}'
//! curl -s localhost:8080/Support/ada/run -H 'content-type: application/json' \
//!      -d '"Please refund order 42"' &                 # waits for the review
//! curl -s localhost:8080/Support/bob/run/send -H 'content-type: application/json' \
//!      -d '"Refund order 7"'                           # one-way: {"invocationId": "inv_…"}
//! curl -N localhost:9081/runs/inv_…/events             # that run's events, as they are journaled
//! curl -s -X POST localhost:8080/Support/ada/pending   # the awakeable and the call to review
//! curl -s localhost:8080/Support/ada/decide -H 'content-type: application/json' \
//!      -d '{"refund-1": {"decision": "approve"}}'      # from any process; the run finishes
//! curl -s -X POST localhost:8080/Support/ada/thread    # the saved conversation
//! ```
//!
//! Run: `cargo run --example restate_agent`

mod support;

use agentry::middleware::{DecisionKind, HumanInTheLoop};
use agentry::prelude::*;
use agentry::restate::{EventHub, RestateAgent};
use agentry::testing::{MockResponse, RecordedRequest};
use restate_sdk::prelude::{Endpoint, HttpServer};
use serde_json::json;

/// Look up an order (read-only: runs again if a crash interrupted it).
///
/// # Arguments
/// * `order` - The order number.
#[tool(idempotent)]
fn lookup_order(order: u32) -> String {
    format!("Order {order}: one kettle, 39 EUR, delivered broken.")
}

/// Refund an order (not idempotent: at most once, and only once a person approved it).
///
/// # Arguments
/// * `order` - The order number.
/// * `amount` - The amount in euros.
#[tool]
fn refund(order: u32, amount: u32) -> String {
    println!("  [payments] refunding {amount} EUR for order {order}");
    format!("Refunded {amount} EUR for order {order}.")
}

/// You are a support agent. Look orders up before refunding them.
#[agent(tools(lookup_order, refund))]
struct Helpdesk;

type Agent = RestateAgent<Helpdesk, agentry::output::TextOutput, (), ()>;

agentry::restate_object! {
    /// The virtual object: one per conversation, keyed by its id (`run`, `pending`,
    /// `decide` and `thread` handlers).
    struct Support(Agent);
}

/// The offline model: look the order up, refund it, then confirm.
fn mock(request: &RecordedRequest) -> MockResponse {
    let results = request.tool_results_since_last_user();
    match results.len() {
        0 => MockResponse::tool_calls(vec![ToolCall::new(
            "lookup-1",
            "lookup_order",
            json!({ "order": 42 }).to_string(),
        )]),
        1 => MockResponse::tool_calls(vec![ToolCall::new(
            "refund-1",
            "refund",
            json!({ "order": 42, "amount": 39 }).to_string(),
        )]),
        _ => MockResponse::text(format!("Done: {}", results[1].1)),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = support::backend(mock).await?;
    let agent = Helpdesk::builder(backend.model)
        .middleware(
            HumanInTheLoop::new().review("refund", DecisionKind::Approve | DecisionKind::Reject),
        )
        .build();
    // The runs' events, followed over SSE at `GET /runs/{invocation id}/events`.
    let hub = EventHub::new();
    let events = std::env::var("RESTATE_EVENTS_ADDR").unwrap_or_else(|_| "127.0.0.1:9081".into());
    let listener = tokio::net::TcpListener::bind(&events).await?;
    println!("serving run events on http://{events}/runs/{{invocation id}}/events");
    let router = hub.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let service = Support(RestateAgent::new(agent, ()).events(hub));
    let addr = std::env::var("RESTATE_SERVICE_ADDR").unwrap_or_else(|_| "127.0.0.1:9080".into());
    println!("serving the Restate service `Support` on http://{addr}; register it with the server");
    // `TCP_NODELAY` on the engine's connections: each journaled step is a small frame.
    let listener = agentry::restate::listener(addr.parse()?)?;
    HttpServer::new(Endpoint::builder().bind(service).build())
        .serve(listener)
        .await;
    Ok(())
}
