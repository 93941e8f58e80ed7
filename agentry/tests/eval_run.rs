//! Running an experiment: the concurrency cap, failed tasks, the report's three forms,
//! baselines and thresholds. The span per case is in `eval_span.rs`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agentry::eval::{
    Case, Change, Contains, Dataset, Equals, Experiment, Observed, Progress, Report, Thresholds,
};

fn numbers(n: i64) -> Dataset<i64, i64> {
    (1..=n).fold(Dataset::new("numbers"), |d, i| {
        d.case(Case::new(format!("n{i}"), i).expect(i * 2))
    })
}

#[tokio::test]
async fn at_most_the_cap_of_cases_run_at_once() {
    let dataset = numbers(12);
    for cap in [1, 3] {
        let in_flight = AtomicUsize::new(0);
        let peak = AtomicUsize::new(0);
        let report = Experiment::new("double", &dataset)
            .evaluator(Equals)
            .concurrency(cap)
            .progress(Progress::Hidden)
            .run(async |n: &i64| {
                let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(5)).await;
                in_flight.fetch_sub(1, Ordering::SeqCst);
                Ok::<_, String>(Observed::new(n * 2))
            })
            .await;
        assert_eq!(report.summary.passed, 12);
        assert_eq!(peak.load(Ordering::SeqCst), cap, "cap {cap}");
    }
}

#[tokio::test]
async fn cases_finish_in_any_order_and_are_reported_in_the_datasets() {
    let dataset = numbers(6);
    let report = Experiment::new("double", &dataset)
        .evaluator(Equals)
        .concurrency(6)
        .run(async |n: &i64| {
            // Later cases finish first; the third fails.
            tokio::time::sleep(Duration::from_millis(30 - 5 * *n as u64)).await;
            if *n == 3 {
                return Err("the task broke on 3".to_string());
            }
            Ok(Observed::new(if *n == 5 { 11 } else { n * 2 }))
        })
        .await;
    let names: Vec<&str> = report.cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["n1", "n2", "n3", "n4", "n5", "n6"]);
    let three = report.case("n3").unwrap();
    assert!(!three.passed);
    assert_eq!(three.error.as_deref(), Some("the task broke on 3"));
    assert!(
        three.scores.is_empty(),
        "no evaluator runs on a failed task"
    );
    assert_eq!(three.mean_score(), 0.0);
    let five = report.case("n5").unwrap();
    assert!(!five.passed);
    assert_eq!(five.output, Some(serde_json::json!(11)));
    assert_eq!(report.summary.passed, 4);
    assert!((report.summary.pass_rate - 4.0 / 6.0).abs() < 1e-9);
    assert!((report.summary.scores["equals"].mean - 4.0 / 6.0).abs() < 1e-9);
    assert!(
        report.summary.latency_ms.max >= 20.0,
        "{:?}",
        report.summary
    );
}

#[tokio::test]
async fn a_repeated_case_name_fails_the_second_case() {
    let dataset = Dataset::new("d")
        .case(Case::new("same", 1).expect(2))
        .case(Case::new("same", 2).expect(4));
    let report = Experiment::new("double", &dataset)
        .evaluator(Equals)
        .run(async |n: &i64| Ok::<_, String>(Observed::new(n * 2)))
        .await;
    assert!(report.cases[0].passed);
    assert_eq!(
        report.cases[1].error.as_deref(),
        Some("another case is named `same`")
    );
}

async fn words_report(words: &[(&str, &str)], answer: impl Fn(&str) -> String) -> Report {
    let dataset = words
        .iter()
        .fold(Dataset::new("words"), |d, (name, input)| {
            d.case(Case::new(*name, input.to_string()).meta("must_mention", *input))
        });
    let answer = &answer;
    Experiment::new("echo", &dataset)
        .evaluator(Contains::from_metadata("must_mention"))
        .evaluator(Contains::new("!"))
        .run(async |input: &String| Ok::<_, String>(Observed::new(answer(input))))
        .await
}

#[tokio::test]
async fn the_report_is_a_table_json_and_a_self_contained_html_page() {
    let report = words_report(&[("a", "alpha"), ("b", "<beta>"), ("c", "gamma")], |w| {
        if w == "gamma" {
            "nothing".into()
        } else {
            format!("{w}!")
        }
    })
    .await;
    let table = report.to_string();
    for needle in [
        "echo on words",
        "contains metadata.must_mention",
        "contains !",
        "FAIL",
        "missing `gamma`",
        "66.7% (2/3)",
        "latency p50 / p90 / p99",
    ] {
        assert!(table.contains(needle), "{needle} not in\n{table}");
    }

    let json = report.to_json();
    assert_eq!(Report::from_json(&json).unwrap(), report);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/report.json");
    report.save_json(&path).unwrap();
    assert_eq!(Report::load_json(&path).unwrap(), report);
    let err = Report::from_json(r#"{"name": "x", "dataset": 3}"#).unwrap_err();
    assert!(err.to_string().contains("at `dataset`"), "{err}");
    assert!(Report::load_json(dir.path().join("missing.json")).is_err());

    let html = report.to_html();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert_eq!(html.matches("<tr class=\"case ").count(), 3);
    assert_eq!(
        html.matches("<svg").count(),
        4,
        "score, two evaluators, latency"
    );
    assert!(html.contains("&lt;beta&gt;"), "text is escaped");
    assert!(!html.contains("<beta>"));
    for outside in ["<script", "<link", "src=", "href=", "@import", "url("] {
        assert!(!html.contains(outside), "the page loads nothing: {outside}");
    }
    report.write_html(dir.path().join("report.html")).unwrap();
}

#[tokio::test]
async fn a_report_against_its_baseline_marks_regressions() {
    let words = [
        ("a", "alpha"),
        ("b", "beta"),
        ("c", "gamma"),
        ("d", "delta"),
    ];
    let baseline = words_report(&words, |w| {
        if w == "beta" {
            "no".into()
        } else {
            format!("{w}!")
        }
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("baseline.json");
    baseline.save_json(&saved).unwrap();
    let baseline = Report::load_json(&saved).unwrap();

    // Now beta passes, gamma fails, delta loses its "!" (a score drop) and alpha is
    // unchanged; "e" is new and "d" is renamed away.
    let now = words_report(
        &[
            ("a", "alpha"),
            ("b", "beta"),
            ("c", "gamma"),
            ("e", "delta"),
        ],
        |w| match w {
            "gamma" => "no".into(),
            _ => format!("{w}!"),
        },
    )
    .await;
    let comparison = now.compare(&baseline);
    let change = |name: &str| {
        comparison
            .cases
            .iter()
            .find(|c| c.name == name)
            .unwrap()
            .change
    };
    assert_eq!(change("a"), Change::Unchanged);
    assert_eq!(change("b"), Change::Improved);
    assert_eq!(change("c"), Change::Regressed);
    assert_eq!(change("e"), Change::Added);
    assert_eq!(change("d"), Change::Removed);
    let regressed: Vec<&str> = comparison.regressions().map(|c| c.name.as_str()).collect();
    assert_eq!(regressed, ["c"]);
    let c = comparison.cases.iter().find(|c| c.name == "c").unwrap();
    assert_eq!(c.scores["contains metadata.must_mention"].change(), -1.0);
    assert!(comparison.has_regressions(0.0));
    let text = comparison.to_string();
    assert!(text.contains("REGRESSED"), "{text}");
    assert!(text.contains("pass → fail"), "{text}");
    let panic = std::panic::catch_unwind(|| comparison.assert_no_regressions()).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(
        message.contains("regressed against its baseline"),
        "{message}"
    );

    // A score that drops without changing the verdict is a regression too.
    let before = words_report(&[("a", "alpha")], |_| "alpha!".into()).await;
    let mut after = before.clone();
    after.cases[0].scores[1].score = 0.9;
    let moved = after.compare(&before);
    assert_eq!(moved.cases[0].change, Change::Regressed);
    assert_eq!(
        after.compare_within(&before, 0.2).cases[0].change,
        Change::Unchanged
    );
    before.compare(&before).assert_no_regressions();

    let html = now.to_html_against(&comparison);
    assert!(html.contains(r#"<td class="regressed">regressed</td>"#));
    assert!(html.contains("vs baseline"));
}

#[tokio::test]
async fn thresholds_fail_a_test_when_the_pass_rate_or_a_score_drops() {
    let report = words_report(&[("a", "alpha"), ("b", "beta")], |w| {
        if w == "beta" {
            "beta".into()
        } else {
            format!("{w}!")
        }
    })
    .await;
    report.assert_thresholds(
        &Thresholds::new()
            .pass_rate(0.5)
            .score("contains metadata.must_mention", 1.0),
    );
    let err = report
        .check_thresholds(
            &Thresholds::new()
                .pass_rate(0.75)
                .score("contains !", 0.6)
                .score("judge", 0.5),
        )
        .unwrap_err();
    assert_eq!(err.failures.len(), 3, "{err}");
    assert_eq!(err.failures[0], "pass rate 50.0% < 75.0% (failed: b)");
    assert_eq!(err.failures[1], "mean score of `contains !` 0.500 < 0.600");
    assert!(err.failures[2].starts_with("no evaluator named `judge`"));

    let panic = std::panic::catch_unwind(|| {
        report.assert_thresholds(&Thresholds::new().pass_rate(1.0));
    })
    .unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(
        message.contains("the evaluation `echo` is below its thresholds"),
        "{message}"
    );
    assert!(message.contains("pass rate 50.0% < 100.0%"), "{message}");
}
