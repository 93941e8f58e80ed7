//! The evaluation report's HTML page in a real browser: headless Chromium opens the file
//! written by `Report::write_html`, and the test checks that it renders (the plots have a
//! size, the page loaded nothing else) and that its table has a row per case, in order. A
//! screenshot of the top and one of the table are left in `target/eval_report/`.
//!
//! Needs `/usr/bin/chromium` and `/usr/bin/chromedriver` (Debian's `chromium` and
//! `chromium-driver`); see `web_chat_browser/chromium.rs`, shared with the web chat's test.

#[path = "web_chat_browser/chromium.rs"]
mod chromium;

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentry::eval::{
    Case, Contains, Dataset, EvalContext, Experiment, Observed, Progress, Verdict, evaluator_fn,
};
use fantoccini::Client;
use serde_json::Value;

/// Where the page, the screenshot and the browser's profile go: `target/eval_report`.
fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target folder")
        .join("eval_report")
}

async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, Vec::new())
        .await
        .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
}

/// A report of nine cases, three failing, with scores spread out and latencies that differ.
async fn report() -> agentry::eval::Report {
    let words = [
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "<iota>",
    ];
    let dataset = words
        .iter()
        .fold(Dataset::<String, String>::new("greek letters"), |d, w| {
            d.case(Case::new(format!("letter {w}"), w.to_string()).meta("must_mention", *w))
        });
    Experiment::new("shouting", &dataset)
        .evaluator_named(
            "mentions",
            Contains::from_metadata("must_mention").ignore_case(),
        )
        .evaluator(evaluator_fn(
            "short",
            |ctx: &EvalContext<'_, String, String>| {
                Verdict::scored(1.0 - ctx.output().len() as f64 / 12.0, 0.5)
            },
        ))
        .progress(Progress::Hidden)
        .run(async |word: &String| {
            tokio::time::sleep(Duration::from_millis(word.len() as u64 * 3)).await;
            let answer = if word.starts_with('e') {
                "?".to_string()
            } else {
                format!("{}!", word.to_uppercase())
            };
            Ok::<_, String>(Observed::new(answer))
        })
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_html_report_renders_with_a_row_per_case() {
    let dir = out_dir();
    std::fs::create_dir_all(&dir).expect("create target/eval_report");
    let report = report().await;
    assert_eq!(report.summary.passed, 6, "{report}");
    let page = dir.join("report.html");
    report.write_html(&page).expect("write the page");

    let browser = chromium::Browser::start(&dir).await;
    let c = browser.client();
    let url = format!(
        "file://{}",
        std::fs::canonicalize(&page).expect("the page").display()
    );
    c.goto(&url).await.expect("open the report");

    assert_eq!(
        c.title().await.expect("a title"),
        "shouting — greek letters"
    );
    let rows = js(
        c,
        "return [...document.querySelectorAll('#cases tbody tr')].map(r => \
         [r.dataset.case, r.querySelector('td.status').innerText, r.offsetHeight > 0]);",
    )
    .await;
    let rows = rows.as_array().expect("a list of rows");
    assert_eq!(rows.len(), report.cases.len());
    for (row, case) in rows.iter().zip(&report.cases) {
        assert_eq!(row[0], case.name.as_str(), "rows in the dataset's order");
        let status = if case.passed { "pass" } else { "fail" };
        assert_eq!(row[1], status, "{}", case.name);
        assert_eq!(row[2], true, "{} is shown", case.name);
    }
    // The escaped name is shown as written.
    assert_eq!(rows[8][0], "letter <iota>");

    // Four plots (mean score, each evaluator, latency), each drawn with its ten bars, and
    // the bars' counts add up to the cases.
    let plots = js(
        c,
        "return [...document.querySelectorAll('svg')].map(s => { \
           const box = s.getBoundingClientRect(); \
           const bars = [...s.querySelectorAll('rect.bar')]; \
           return [s.id, box.width > 100 && box.height > 100, bars.length, \
                   bars.filter(b => b.getBBox().height > 0).length, \
                   bars.map(b => Number(b.textContent.split(': ')[1])).reduce((a, n) => a + n, 0)]; });",
    )
    .await;
    let plots = plots.as_array().expect("a list of plots");
    let ids: Vec<&str> = plots.iter().map(|p| p[0].as_str().unwrap_or("")).collect();
    assert_eq!(
        ids,
        [
            "plot-score",
            "plot-evaluator-0",
            "plot-evaluator-1",
            "plot-latency"
        ]
    );
    for plot in plots {
        assert_eq!(plot[1], true, "{plot} has a size");
        assert_eq!(plot[2], 10, "{plot}");
        assert!(plot[3].as_u64().unwrap_or(0) >= 1, "{plot} draws bars");
        assert_eq!(plot[4], 9, "{plot} counts every case");
    }
    let summary = js(c, "return document.querySelector('#summary').innerText;").await;
    assert!(
        summary.as_str().unwrap_or("").contains("66.7%"),
        "{summary}"
    );
    // Self-contained: nothing but the page itself was loaded.
    let loaded = js(c, "return performance.getEntriesByType('resource').length;").await;
    assert_eq!(loaded, 0);

    let png = c.screenshot().await.expect("a screenshot");
    std::fs::write(dir.join("report.png"), png).expect("write the screenshot");
    js(
        c,
        "document.querySelector('#cases').scrollIntoView(); return true;",
    )
    .await;
    let png = c.screenshot().await.expect("a screenshot of the table");
    std::fs::write(dir.join("report-table.png"), png).expect("write the screenshot");
    browser.close().await;
}
