//! The web chat example in a real browser (headless Chromium, see `web_chat_browser/chromium.rs`).

#[allow(dead_code)]
#[path = "../examples/web_chat/app.rs"]
mod app;
#[path = "web_chat_browser/chromium.rs"]
mod chromium;

use std::path::PathBuf;

use fantoccini::Locator;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smoke() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("web_chat");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app::pages("mock")).await });
    let browser = chromium::Browser::start(&dir).await;
    let c = browser.client();
    c.goto(&format!("http://{addr}/")).await.unwrap();
    c.wait().for_element(Locator::Css("#input")).await.unwrap();
    std::fs::write(dir.join("smoke.png"), c.screenshot().await.unwrap()).unwrap();
    browser.close().await;
}
