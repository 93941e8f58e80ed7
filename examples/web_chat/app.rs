//! The web chat's agent, its offline model and its HTTP app: shared by the example's `main`
//! and the browser test (`tests/web_chat_browser.rs`), which serves the same app.

use std::path::Path;
use std::time::Duration;

use agentry::model::SharedModel;
use agentry::persist::SqliteCheckpointer;
use agentry::prelude::*;
use agentry::serve::{Server, anonymous};
use agentry::testing::{MockResponse, RecordedRequest};
use serde_json::json;

/// The page, shipped with the example (no build step).
pub const INDEX_HTML: &str = include_str!("static/index.html");
/// The page's script: the AI SDK UI message stream, read with `fetch`.
pub const APP_JS: &str = include_str!("static/app.js");
/// The page's style.
pub const STYLE_CSS: &str = include_str!("static/style.css");

/// How fast the offline model types: one streamed piece (about four characters) this often.
pub const MOCK_PACE: Duration = Duration::from_millis(35);

/// A free table.
#[derive(Debug, Serialize)]
pub struct Slot {
    /// The restaurant.
    pub restaurant: String,
    /// The time, `HH:MM`.
    pub time: String,
    /// Where the table is.
    pub table: String,
}

/// Find free tables for a party.
///
/// # Arguments
/// * `date` - The day, e.g. "tomorrow" or "2026-05-14".
/// * `time` - The time wanted, `HH:MM` in 24 hours.
/// * `party_size` - How many people.
#[tool]
pub fn find_tables(date: String, time: String, party_size: u32) -> Vec<Slot> {
    // A real tool would ask a booking system; this one always has two tables.
    let _ = (date, party_size);
    vec![
        Slot {
            restaurant: "Casa Azul".to_string(),
            time: time.clone(),
            table: "by the window".to_string(),
        },
        Slot {
            restaurant: "O Pescador".to_string(),
            time: "21:30".to_string(),
            table: "on the terrace".to_string(),
        },
    ]
}

/// Book a table. Needs the user's approval: the run pauses until they decide.
///
/// # Arguments
/// * `restaurant` - The restaurant, as `find_tables` named it.
/// * `date` - The day.
/// * `time` - The time, `HH:MM`.
/// * `party_size` - How many people.
#[tool]
pub fn book_table(restaurant: String, date: String, time: String, party_size: u32) -> String {
    // A real tool would book it here.
    let code = 4000 + (restaurant.len() * 97 + time.len() * 13 + party_size as usize) % 1000;
    format!("Booked {restaurant} for {party_size} on {date} at {time}; confirmation TBL-{code}.")
}

/// You book restaurant tables. Look for free tables with `find_tables`, pick the best one
/// and book it with `book_table` (the user approves each booking). Answer in one or two
/// friendly sentences.
#[agent(tools(find_tables, book_table), review(book_table(approve, reject)))]
pub struct Concierge;

/// The offline stand-in for a model (OpenAI wire format), streaming at [`MOCK_PACE`]: it
/// looks for tables, books the first one (which pauses for approval), then confirms what the
/// booking (or the reviewer) answered. Anything that is not about a table gets a short help
/// text.
pub fn mock_model(request: &RecordedRequest) -> MockResponse {
    let asked = request.last_user_text().to_lowercase();
    let results = request.tool_results_since_last_user();
    let result = |name: &str| {
        results
            .iter()
            .find(|(id, _)| id.starts_with(name))
            .map(|(_, content)| content.clone())
    };
    let answer = if let Some(booked) = result("call_book") {
        if booked.starts_with("Booked") {
            MockResponse::text(format!(
                "All set! {} Enjoy your dinner — tell me if you need anything else.",
                booked.replace("Booked", "I booked")
            ))
        } else {
            MockResponse::text(
                "Understood — I did not book anything. Shall I look at another time or place?",
            )
        }
    } else if let Some(found) = result("call_find") {
        let slots: Vec<serde_json::Value> = serde_json::from_str(&found).unwrap_or_default();
        let first = slots.first().cloned().unwrap_or_default();
        let restaurant = first["restaurant"].as_str().unwrap_or("Casa Azul");
        let time = first["time"].as_str().unwrap_or("20:00");
        MockResponse::tool_calls(vec![ToolCall::new(
            "call_book",
            "book_table",
            json!({ "restaurant": restaurant, "date": "tomorrow", "time": time, "party_size": 2 })
                .to_string(),
        )])
        .with_text(format!(
            "{restaurant} has a table {} at {time}. I'll book it once you approve.",
            first["table"].as_str().unwrap_or("free")
        ))
    } else if ["book", "table", "reserv", "dinner"]
        .iter()
        .any(|w| asked.contains(w))
    {
        MockResponse::tool_calls(vec![ToolCall::new(
            "call_find",
            "find_tables",
            json!({ "date": "tomorrow", "time": "20:00", "party_size": 2 }).to_string(),
        )])
        .with_text("Let me look for a free table for two tomorrow at 20:00.")
    } else {
        MockResponse::text(
            "I book restaurant tables. Tell me when and for how many people, for example: \
             \"Book a table for two tomorrow at 8pm\".",
        )
    };
    answer.pace(MOCK_PACE)
}

/// The whole app: the page at `/`, and the agent served under `/api` (its threads kept in
/// the SQLite file `db`). `model` names the model in the page's header.
pub async fn app(
    model: SharedModel,
    db: &Path,
    label: &str,
) -> Result<axum::Router, Box<dyn std::error::Error>> {
    if let Some(dir) = db.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let checkpointer = SqliteCheckpointer::open(db).await?;
    let agent = Concierge::builder(model)
        .max_turns(8)
        .checkpointer(checkpointer)
        .build();
    // Everyone is the same guest here; a real app builds the caller from the request (a
    // session cookie, a bearer token) and each user sees only their own threads.
    let server = Server::new(agent, anonymous())?;
    Ok(pages(label).nest("/api", server.router()))
}

/// The page's files and `/info.json` (which model answers, shown in the page's header).
pub fn pages(model: &str) -> axum::Router {
    use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
    use axum::routing::get;
    let file = |content_type: &'static str, body: &'static str| {
        get(move || async move {
            (
                [(CONTENT_TYPE, content_type), (CACHE_CONTROL, "no-cache")],
                body,
            )
        })
    };
    let info = json!({ "model": model });
    axum::Router::new()
        .route("/", file("text/html; charset=utf-8", INDEX_HTML))
        .route("/app.js", file("text/javascript; charset=utf-8", APP_JS))
        .route("/style.css", file("text/css; charset=utf-8", STYLE_CSS))
        .route(
            "/info.json",
            get(move || async move { axum::Json(info.clone()) }),
        )
}
