//! The report as one self-contained HTML page: the aggregate, score and latency histograms
//! as inline SVG, and the table of cases. No script, no external stylesheet or font.

use std::fmt::Write;

use super::compare::{Change, Comparison};
use super::report::{CaseReport, Report};

const STYLE: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem;color:#1d232a;background:#fafbfc}
h1{font-size:1.5rem;margin:0 0 .25rem}h2{font-size:1.1rem;margin:2rem 0 .5rem}
.sub{color:#5b6570;margin:0 0 1.5rem}
.cards{display:flex;flex-wrap:wrap;gap:.75rem}
.card{background:#fff;border:1px solid #dde2e7;border-radius:8px;padding:.6rem .9rem;min-width:9rem}
.card b{display:block;font-size:1.3rem}.card span{color:#5b6570;font-size:.85rem}
.plots{display:flex;flex-wrap:wrap;gap:1rem}
.plots figure{margin:0;background:#fff;border:1px solid #dde2e7;border-radius:8px;padding:.5rem}
figcaption{font-size:.85rem;color:#5b6570;text-align:center}
table{border-collapse:collapse;background:#fff;font-size:.9rem;width:100%}
th,td{border:1px solid #dde2e7;padding:.35rem .5rem;text-align:left;vertical-align:top}
th{background:#eef1f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.fail td.status{color:#b42318;font-weight:600}tr.pass td.status{color:#067647;font-weight:600}
td.bad{background:#fef3f2}td.good{background:#f0fdf4}
.regressed{color:#b42318;font-weight:600}.improved{color:#067647}
details pre{white-space:pre-wrap;max-width:40rem;font-size:.8rem}
";

/// Escapes text for HTML content and attribute values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A histogram of `values` over `[lo, hi]` in `bins` bars, as an inline SVG.
fn histogram(id: &str, caption: &str, values: &[f64], lo: f64, hi: f64, unit: &str) -> String {
    const W: f64 = 360.0;
    const H: f64 = 180.0;
    const PAD: f64 = 28.0;
    let bins = 10usize;
    let span = if hi > lo { hi - lo } else { 1.0 };
    let mut counts = vec![0usize; bins];
    for v in values.iter().filter(|v| v.is_finite()) {
        let i = (((v - lo) / span) * bins as f64).floor() as isize;
        counts[i.clamp(0, bins as isize - 1) as usize] += 1;
    }
    let top = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let bar_w = (W - 2.0 * PAD) / bins as f64;
    let mut svg = format!(
        r##"<figure><svg id="{id}" xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" role="img" aria-label="{label}">"##,
        label = esc(caption)
    );
    let base = H - PAD;
    let _ = write!(
        svg,
        r##"<line x1="{PAD}" y1="{base}" x2="{x2}" y2="{base}" stroke="#8a949e"/>"##,
        x2 = W - PAD
    );
    for (i, count) in counts.iter().enumerate() {
        let h = (*count as f64 / top) * (H - 2.0 * PAD);
        let x = PAD + i as f64 * bar_w;
        let from = lo + span * i as f64 / bins as f64;
        let to = lo + span * (i + 1) as f64 / bins as f64;
        let _ = write!(
            svg,
            r##"<rect class="bar" x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="#4f7cac"><title>{from:.2}–{to:.2}{unit}: {count}</title></rect>"##,
            y = base - h,
            w = bar_w - 2.0,
        );
        if *count > 0 {
            let _ = write!(
                svg,
                r##"<text x="{cx:.1}" y="{ty:.1}" font-size="10" text-anchor="middle">{count}</text>"##,
                cx = x + bar_w / 2.0 - 1.0,
                ty = base - h - 3.0
            );
        }
    }
    for (x, v) in [(PAD, lo), (W - PAD, lo + span)] {
        let _ = write!(
            svg,
            r##"<text x="{x}" y="{y}" font-size="10" text-anchor="middle">{v:.2}{unit}</text>"##,
            y = H - PAD + 14.0,
            unit = esc(unit)
        );
    }
    let _ = write!(
        svg,
        "</svg><figcaption>{}</figcaption></figure>",
        esc(caption)
    );
    svg
}

fn card(value: &str, label: &str) -> String {
    format!(
        r#"<div class="card"><b>{}</b><span>{}</span></div>"#,
        esc(value),
        esc(label)
    )
}

fn json_details(label: &str, value: &serde_json::Value) -> String {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    format!(
        "<details><summary>{}</summary><pre>{}</pre></details>",
        esc(label),
        esc(&text)
    )
}

fn case_row(report: &Report, case: &CaseReport, comparison: Option<&Comparison>) -> String {
    let status = if case.passed { "pass" } else { "fail" };
    let mut row = format!(
        r#"<tr class="case {status}" data-case="{name}"><td>{name}</td><td class="status">{status}</td>"#,
        name = esc(&case.name)
    );
    if let Some(comparison) = comparison {
        let change = comparison
            .cases
            .iter()
            .find(|c| c.name == case.name)
            .map_or(Change::Added, |c| c.change);
        let (class, text) = match change {
            Change::Regressed => ("regressed", "regressed"),
            Change::Improved => ("improved", "improved"),
            Change::Added => ("", "new"),
            Change::Removed | Change::Unchanged => ("", "="),
        };
        let _ = write!(row, r#"<td class="{class}">{text}</td>"#);
    }
    for name in &report.evaluators {
        match case.score(name) {
            Some(s) => {
                let class = if s.passed { "num good" } else { "num bad" };
                let why = s.error.as_deref().or(s.reason.as_deref()).unwrap_or("");
                let shown = if s.error.is_some() {
                    "error".to_owned()
                } else {
                    format!("{:.2}", s.score)
                };
                let _ = write!(
                    row,
                    r#"<td class="{class}" title="{}">{shown}</td>"#,
                    esc(why)
                );
            }
            None => row.push_str(r#"<td class="num">–</td>"#),
        }
    }
    let cost = case
        .cost
        .map_or("–".to_owned(), |c| format!("{:.6}", c.as_usd()));
    let _ = write!(
        row,
        r#"<td class="num">{:.0}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{cost}</td>"#,
        case.latency_ms, case.turns, case.tokens
    );
    let mut notes = String::new();
    if let Some(error) = &case.error {
        let _ = write!(notes, "<div>{}</div>", esc(error));
    }
    for s in case.scores.iter().filter(|s| !s.passed) {
        let why = s
            .error
            .as_deref()
            .or(s.reason.as_deref())
            .unwrap_or("failed");
        let _ = write!(
            notes,
            "<div><b>{}</b>: {}</div>",
            esc(&s.evaluator),
            esc(why)
        );
    }
    notes.push_str(&json_details("input", &case.input));
    if let Some(output) = &case.output {
        notes.push_str(&json_details("output", output));
    }
    if let Some(expected) = &case.expected {
        notes.push_str(&json_details("expected", expected));
    }
    let _ = write!(row, "<td>{notes}</td></tr>");
    row
}

impl Report {
    /// The report as one self-contained HTML page (inline CSS and SVG, no script): the
    /// aggregate, a histogram of case scores, one per evaluator and one of latencies, and a
    /// table with a row per case (`tr.case`, failures and their reasons, inputs and
    /// outputs folded).
    pub fn to_html(&self) -> String {
        self.html(None)
    }

    /// [`Report::to_html`] with a column marking each case against a baseline.
    pub fn to_html_against(&self, comparison: &Comparison) -> String {
        self.html(Some(comparison))
    }

    fn html(&self, comparison: Option<&Comparison>) -> String {
        let s = &self.summary;
        let title = format!("{} — {}", self.name, self.dataset);
        let mut page = format!(
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>{}</title><style>{STYLE}</style></head><body>",
            esc(&title)
        );
        let _ = write!(
            page,
            "<h1>{}</h1><p class=\"sub\">dataset <b>{}</b>, {} cases, evaluators: {}</p>",
            esc(&self.name),
            esc(&self.dataset),
            s.cases,
            esc(&self.evaluators.join(", "))
        );
        page.push_str(r#"<section class="cards" id="summary">"#);
        page.push_str(&card(
            &format!("{:.1}%", s.pass_rate * 100.0),
            &format!("pass rate ({}/{})", s.passed, s.cases),
        ));
        for (name, score) in &s.scores {
            page.push_str(&card(
                &format!("{:.3}", score.mean),
                &format!("mean {name}"),
            ));
        }
        let l = &s.latency_ms;
        page.push_str(&card(
            &format!("{:.0} / {:.0} / {:.0} ms", l.p50, l.p90, l.p99),
            "latency p50 / p90 / p99",
        ));
        page.push_str(&card(&s.tokens.to_string(), "tokens"));
        if let Some(cost) = s.cost {
            page.push_str(&card(&format!("${:.6}", cost.as_usd()), "cost"));
        }
        if let Some(c) = comparison {
            let change = c.pass_rate.change() * 100.0;
            let class = if c.has_regressions(0.0) {
                "regressed"
            } else {
                "improved"
            };
            let regressed = c.regressions().count();
            let _ = write!(
                page,
                r#"<div class="card"><b class="{class}">{change:+.1} pts</b><span>pass rate vs baseline, {regressed} case(s) regressed</span></div>"#
            );
        }
        page.push_str("</section><h2>Distributions</h2><section class=\"plots\">");
        let means: Vec<f64> = self.cases.iter().map(CaseReport::mean_score).collect();
        page.push_str(&histogram(
            "plot-score",
            "mean score per case",
            &means,
            0.0,
            1.0,
            "",
        ));
        for (i, name) in self.evaluators.iter().enumerate() {
            let scores: Vec<f64> = self
                .cases
                .iter()
                .filter_map(|c| c.score(name).map(|s| s.score))
                .collect();
            page.push_str(&histogram(
                &format!("plot-evaluator-{i}"),
                &format!("{name} scores"),
                &scores,
                0.0,
                1.0,
                "",
            ));
        }
        let latencies: Vec<f64> = self.cases.iter().map(|c| c.latency_ms).collect();
        page.push_str(&histogram(
            "plot-latency",
            "latency (ms)",
            &latencies,
            l.min.min(l.max),
            l.max,
            "",
        ));
        page.push_str(
            "</section><h2>Cases</h2><table id=\"cases\"><thead><tr><th>case</th><th>result</th>",
        );
        if comparison.is_some() {
            page.push_str("<th>vs baseline</th>");
        }
        for name in &self.evaluators {
            let _ = write!(page, "<th>{}</th>", esc(name));
        }
        page.push_str("<th>ms</th><th>turns</th><th>tokens</th><th>cost $</th><th>details</th></tr></thead><tbody>");
        for case in &self.cases {
            page.push_str(&case_row(self, case, comparison));
        }
        page.push_str("</tbody></table></body></html>\n");
        page
    }
}

#[cfg(test)]
mod tests {
    use super::{esc, histogram};

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            esc(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn a_histogram_has_a_bar_per_bin_and_counts_every_value() {
        let svg = histogram(
            "h",
            "scores",
            &[0.0, 0.05, 0.5, 1.0, f64::NAN],
            0.0,
            1.0,
            "",
        );
        assert_eq!(svg.matches("<rect").count(), 10);
        // 0.0 and 0.05 share the first bin; 1.0 falls in the last.
        assert!(svg.contains("0.00–0.10: 2"), "{svg}");
        assert!(svg.contains("0.90–1.00: 1"), "{svg}");
        assert!(svg.contains("0.50–0.60: 1"), "{svg}");
    }
}
