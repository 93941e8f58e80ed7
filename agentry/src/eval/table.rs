//! The terminal tables: `{report}` and `{comparison}`.

use std::fmt;

use comfy_table::{Cell, CellAlignment, Table, presets};

use super::compare::{Change, Comparison};
use super::report::Report;

fn right(text: impl ToString) -> Cell {
    Cell::new(text).set_alignment(CellAlignment::Right)
}

fn table() -> Table {
    let mut table = Table::new();
    table.load_style(presets::UTF8_FULL_CONDENSED);
    table
}

/// The first line of a reason or error, cut to `max` characters.
fn brief(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() <= max {
        line.to_owned()
    } else {
        let cut: String = line.chars().take(max).collect();
        format!("{cut}…")
    }
}

impl fmt::Display for Report {
    /// One row per case (status, each evaluator's score, latency, tokens, cost, the first
    /// failure's reason), then the aggregate.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut cases = table();
        let mut header = vec![Cell::new("case"), Cell::new("result")];
        header.extend(self.evaluators.iter().map(Cell::new));
        header.extend(["ms", "tokens", "cost $", "why"].map(Cell::new));
        cases.set_header(header);
        for case in &self.cases {
            let mut row = vec![
                Cell::new(&case.name),
                Cell::new(if case.passed { "pass" } else { "FAIL" }),
            ];
            row.extend(self.evaluators.iter().map(|name| match case.score(name) {
                Some(s) if s.error.is_some() => right("error"),
                Some(s) => right(format!(
                    "{:.2}{}",
                    s.score,
                    if s.passed { "" } else { " ✗" }
                )),
                None => right("-"),
            }));
            let why = case
                .error
                .as_deref()
                .or_else(|| {
                    case.scores
                        .iter()
                        .find(|s| !s.passed)
                        .and_then(|s| s.error.as_deref().or(s.reason.as_deref()))
                })
                .map(|w| brief(w, 60))
                .unwrap_or_default();
            row.extend([
                right(format!("{:.0}", case.latency_ms)),
                right(case.tokens),
                right(
                    case.cost
                        .map_or("-".into(), |c| format!("{:.6}", c.as_usd())),
                ),
                Cell::new(why),
            ]);
            cases.add_row(row);
        }
        writeln!(f, "{} on {}", self.name, self.dataset)?;
        writeln!(f, "{cases}")?;
        let s = &self.summary;
        let mut summary = table();
        summary.set_header(["aggregate", "value"]);
        summary.add_row([
            Cell::new("pass rate"),
            right(format!(
                "{:.1}% ({}/{})",
                s.pass_rate * 100.0,
                s.passed,
                s.cases
            )),
        ]);
        for (name, score) in &s.scores {
            summary.add_row([
                Cell::new(format!("mean {name}")),
                right(format!(
                    "{:.3} ({:.0}% pass)",
                    score.mean,
                    score.pass_rate * 100.0
                )),
            ]);
        }
        let l = &s.latency_ms;
        summary.add_row([
            Cell::new("latency p50 / p90 / p99"),
            right(format!("{:.0} / {:.0} / {:.0} ms", l.p50, l.p90, l.p99)),
        ]);
        summary.add_row([Cell::new("tokens"), right(s.tokens)]);
        if let Some(cost) = s.cost {
            summary.add_row([Cell::new("cost"), right(format!("${:.6}", cost.as_usd()))]);
        }
        write!(f, "{summary}")
    }
}

impl fmt::Display for Comparison {
    /// The aggregate changes, then one row per case that moved, regressions marked.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut totals = table();
        totals.set_header(["", "baseline", "now", "change"]);
        let mut add =
            |name: String, baseline: String, current: String, change: f64, worse: bool| {
                let mark = if worse { " REGRESSED" } else { "" };
                totals.add_row([
                    Cell::new(name),
                    right(baseline),
                    right(current),
                    right(format!("{change:+.3}{mark}")),
                ]);
            };
        let p = &self.pass_rate;
        add(
            "pass rate".into(),
            format!("{:.1}%", p.baseline * 100.0),
            format!("{:.1}%", p.current * 100.0),
            p.change(),
            p.change() < 0.0,
        );
        for (name, d) in &self.scores {
            add(
                format!("mean {name}"),
                format!("{:.3}", d.baseline),
                format!("{:.3}", d.current),
                d.change(),
                d.change() < 0.0,
            );
        }
        let l = &self.latency_p50_ms;
        add(
            "latency p50 ms".into(),
            format!("{:.0}", l.baseline),
            format!("{:.0}", l.current),
            l.change(),
            false,
        );
        writeln!(f, "{totals}")?;
        let moved: Vec<_> = self
            .cases
            .iter()
            .filter(|c| c.change != Change::Unchanged)
            .collect();
        if moved.is_empty() {
            return write!(f, "no case changed");
        }
        let mut cases = table();
        cases.set_header(["case", "change", "passed", "scores"]);
        let passed = |p: Option<bool>| match p {
            Some(true) => "pass",
            Some(false) => "fail",
            None => "-",
        };
        for case in moved {
            let change = match case.change {
                Change::Regressed => "REGRESSED",
                Change::Improved => "improved",
                Change::Added => "added",
                Change::Removed => "removed",
                Change::Unchanged => "unchanged",
            };
            let scores: Vec<String> = case
                .scores
                .iter()
                .map(|(name, d)| format!("{name} {:.2} → {:.2}", d.baseline, d.current))
                .collect();
            cases.add_row([
                Cell::new(&case.name),
                Cell::new(change),
                Cell::new(format!(
                    "{} → {}",
                    passed(case.baseline_passed),
                    passed(case.current_passed)
                )),
                Cell::new(scores.join(", ")),
            ]);
        }
        write!(f, "{cases}")
    }
}
