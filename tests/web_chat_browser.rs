//! The web chat example (`examples/web_chat`) in a real browser: headless Chromium, driven
//! over WebDriver (`web_chat_browser/chromium.rs`), against the example's own app served
//! in-process on a loopback port with the offline model.
//!
//! One conversation, as a person has it: send a message, watch the answer stream in, see the
//! tool calls and their results, approve the booking, read the final answer; ask for a second
//! booking, reload while it waits for review and reject it; reload the page and find the whole
//! conversation again. Screenshots for a person to look at: `target/web_chat/approval.png`
//! (the run paused for review) and `target/web_chat/final.png`.
//!
//! Needs `/usr/bin/chromium` and `/usr/bin/chromedriver` (Debian's `chromium` and
//! `chromium-driver`): installed on first use when the test runs as root, otherwise it fails
//! naming the command.

#[allow(dead_code)] // the example's module; its `main` uses other parts
#[path = "../examples/web_chat/app.rs"]
mod app;
#[path = "web_chat_browser/chromium.rs"]
mod chromium;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentry::model::SharedModel;
use agentry::testing::MockServer;
use fantoccini::{Client, Locator};
use serde_json::Value;

/// What the offline model says first (see `app::mock_model`), streamed four characters at a
/// time, `app::MOCK_PACE` apart.
const FIRST: &str = "Let me look for a free table for two tomorrow at 20:00.";
const ASK: &str = "Book a table for two tomorrow at 8pm";

/// Where the screenshots and the browser's profile go: `target/web_chat`.
fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target folder")
        .join("web_chat")
}

/// Serves the example's app on a free loopback port, with the mock model and a new SQLite
/// file; returns its URL and the mock server (kept alive by the caller).
async fn serve_app(dir: &Path) -> (String, MockServer) {
    let mock = MockServer::with_handler(app::mock_model).await;
    let model: SharedModel = Arc::new(mock.openai_model("mock-gpt"));
    let db = dir.join("browser-test-threads.db");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    let router = app::app(model, &db, "offline mock model")
        .await
        .expect("the web chat app");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a loopback port");
    let url = format!("http://{}", listener.local_addr().expect("an address"));
    tokio::spawn(async move { axum::serve(listener, router).await });
    (url, mock)
}

/// Runs `script` (a JavaScript function body) in the page.
async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, Vec::new())
        .await
        .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
}

/// The conversation as the page shows it (its visible text).
async fn page_text(c: &Client) -> String {
    js(c, "return document.querySelector('#messages').innerText;")
        .await
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Waits until `condition` (a JavaScript expression) is true in the page; on timeout, fails
/// with what the page shows and a screenshot (`target/web_chat/failure.png`).
async fn wait_for(c: &Client, what: &str, condition: &str) {
    let script = format!("return Boolean({condition});");
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if js(c, &script).await == Value::Bool(true) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let shot = out_dir().join("failure.png");
    if let Ok(png) = c.screenshot().await {
        let _ = std::fs::write(&shot, png);
    }
    panic!(
        "timed out waiting for {what} ({condition}); the page shows:\n{}\n(screenshot: {})",
        page_text(c).await,
        shot.display()
    );
}

/// Types `text` into the message box and presses Send.
async fn send(c: &Client, text: &str) {
    let input = c.find(Locator::Css("#input")).await.expect("the input");
    input.send_keys(text).await.expect("type the message");
    c.find(Locator::Css("#send"))
        .await
        .expect("the send button")
        .click()
        .await
        .expect("send");
}

async fn screenshot(c: &Client, name: &str) -> PathBuf {
    let path = out_dir().join(name);
    let png = c.screenshot().await.expect("a screenshot");
    std::fs::write(&path, png).expect("write the screenshot");
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_with_approvals_streams_and_survives_a_reload() {
    let dir = out_dir();
    std::fs::create_dir_all(&dir).expect("create target/web_chat");
    let (url, _mock) = serve_app(&dir).await;
    let browser = chromium::Browser::start(&dir).await;
    let c = browser.client();

    c.goto(&url).await.expect("open the page");
    wait_for(
        c,
        "the page's script",
        "document.body.dataset.busy === 'false'",
    )
    .await;
    send(c, ASK).await;

    // The first answer streams in: read it until it is whole, and keep each new reading.
    let first_bubble =
        "(document.querySelector('.message.assistant .bubble') || {}).textContent || ''";
    let mut readings: Vec<String> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = js(c, &format!("return {first_bubble};")).await;
        let text = text.as_str().unwrap_or_default().to_owned();
        if !text.is_empty() && readings.last() != Some(&text) {
            readings.push(text.clone());
        }
        if text == FIRST {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the first answer did not arrive; readings: {readings:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let partial: Vec<&String> = readings.iter().filter(|r| r.as_str() != FIRST).collect();
    assert!(
        partial.len() >= 2,
        "the answer appeared at once, not token by token: {readings:?}"
    );
    println!(
        "the first answer grew over {} readings: {readings:?}",
        readings.len()
    );
    for pair in readings.windows(2) {
        assert!(
            pair[1].starts_with(pair[0].as_str()) && pair[1].len() > pair[0].len(),
            "the text did not grow by appending: {readings:?}"
        );
    }

    // The unreviewed tool runs and shows its result; the booking waits for a decision.
    wait_for(
        c,
        "find_tables with its result",
        "document.querySelector('.tool[data-tool=find_tables][data-state=output-available] .output')?.textContent.includes('Casa Azul')",
    )
    .await;
    wait_for(
        c,
        "the Approve button of book_table",
        "document.querySelector('.tool[data-tool=book_table][data-state=approval-requested] button.approve') && document.body.dataset.busy === 'false'",
    )
    .await;
    let text = page_text(c).await;
    assert!(
        text.contains(
            "Casa Azul has a table by the window at 20:00. I'll book it once you approve."
        ),
        "{text}"
    );
    // The call's arguments and result, as the page shows plain objects: one line each.
    assert!(
        text.contains("date: tomorrow · party_size: 2 · time: 20:00"),
        "{text}"
    );
    assert!(
        text.contains("restaurant: Casa Azul · table: by the window · time: 20:00"),
        "{text}"
    );
    let status = js(c, "return document.querySelector('#status').textContent;").await;
    assert_eq!(status, "Waiting for your decision.");
    let thread_url = c.current_url().await.expect("the page's URL");
    let thread = thread_url
        .query_pairs()
        .find(|(k, _)| k == "thread")
        .map(|(_, v)| v.into_owned())
        .expect("the thread id in the URL");
    assert!(!thread.is_empty());
    screenshot(c, "approval.png").await;

    c.find(Locator::Css(".tool[data-tool=book_table] button.approve"))
        .await
        .expect("the Approve button")
        .click()
        .await
        .expect("approve");

    // The booking runs, and the final answer streams in after it.
    wait_for(
        c,
        "book_table with its result",
        "document.querySelector('.tool[data-tool=book_table][data-state=output-available] .output')?.textContent.includes('TBL-')",
    )
    .await;
    wait_for(
        c,
        "the final answer",
        "document.body.dataset.busy === 'false' && document.querySelector('#messages').innerText.includes('anything else.')",
    )
    .await;
    let before = page_text(c).await;
    assert!(
        before
            .contains("All set! I booked Casa Azul for 2 on tomorrow at 20:00; confirmation TBL-"),
        "{before}"
    );
    assert!(
        c.find_all(Locator::Css("button.approve"))
            .await
            .expect("a query")
            .is_empty(),
        "an Approve button is left after the decision"
    );
    assert!(!before.contains("error"), "{before}");

    // A second booking in the same thread. The page is reloaded while it waits for review:
    // the pending call comes back from the server with its buttons, and is rejected there.
    send(c, "Book another table, please").await;
    let pending = "document.querySelector('.tool[data-tool=book_table][data-state=approval-requested] button.reject') && document.body.dataset.busy === 'false'";
    wait_for(c, "the second booking's Reject button", pending).await;
    c.refresh().await.expect("reload");
    wait_for(c, "the Reject button after a reload", pending).await;
    c.find(Locator::Css(
        ".tool[data-tool=book_table][data-state=approval-requested] button.reject",
    ))
    .await
    .expect("the Reject button")
    .click()
    .await
    .expect("reject");
    wait_for(
        c,
        "the answer to the rejection",
        "document.body.dataset.busy === 'false' && document.querySelector('#messages').innerText.includes('I did not book anything')",
    )
    .await;
    let before = page_text(c).await;
    assert_eq!(
        before.matches("TBL-").count(),
        2,
        "the rejected booking was made:\n{before}"
    );
    assert!(
        c.find_all(Locator::Css("button.approve, button.reject"))
            .await
            .expect("a query")
            .is_empty(),
        "a decision button is left after the decisions"
    );

    // A reload shows the same conversation, read back from the server.
    c.refresh().await.expect("reload");
    wait_for(
        c,
        "the history after the reload",
        "document.querySelectorAll('.message').length >= 2 && document.querySelector('#messages').innerText.includes('anything else.')",
    )
    .await;
    let after = page_text(c).await;
    assert_eq!(
        after, before,
        "the reloaded page shows another conversation"
    );
    let reloaded = c.current_url().await.expect("the page's URL");
    assert_eq!(
        reloaded, thread_url,
        "the reload kept the thread in the URL"
    );
    // Tall enough for the whole conversation.
    c.set_window_size(1000, 1500)
        .await
        .expect("resize the window");
    let shot = screenshot(c, "final.png").await;
    println!("screenshots: {} and approval.png beside it", shot.display());

    browser.close().await;
}
