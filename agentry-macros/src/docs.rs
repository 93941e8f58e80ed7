//! Reading doc comments: the tool description and rustdoc `# Arguments` lists.

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The lines of the `///` doc comments in `attrs`, with the one leading space rustdoc strips.
pub fn doc_lines(attrs: &[Attribute]) -> Vec<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
        {
            for line in s.value().split('\n') {
                lines.push(
                    line.strip_prefix(' ')
                        .unwrap_or(line)
                        .trim_end()
                        .to_string(),
                );
            }
        }
    }
    lines
}

/// The whole doc comment as one string, paragraphs kept, surrounding blank lines trimmed.
pub fn doc_text(attrs: &[Attribute]) -> String {
    doc_lines(attrs).join("\n").trim().to_string()
}

/// The first paragraph of a doc comment, its lines joined with spaces.
pub fn first_paragraph(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| l.trim())
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty() && !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Descriptions from a rustdoc `# Arguments` section:
///
/// ```text
/// # Arguments
/// * `city` - City name, e.g. "Paris".
///   Continuation lines are appended.
/// ```
///
/// `-` and `:` are both accepted as separators, `*` and `-` as bullets.
pub fn arguments_section(lines: &[String]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut in_section = false;
    for raw in lines {
        let line = raw.trim();
        if let Some(heading) = line.strip_prefix('#') {
            let title = heading.trim_start_matches('#').trim().to_ascii_lowercase();
            in_section = matches!(title.as_str(), "arguments" | "args" | "parameters");
            continue;
        }
        if !in_section || line.is_empty() {
            continue;
        }
        let bullet = line.strip_prefix("* ").or_else(|| line.strip_prefix("- "));
        match bullet.and_then(parse_item) {
            Some((name, desc)) => out.push((name, desc)),
            None => {
                if let Some((_, desc)) = out.last_mut() {
                    if !desc.is_empty() {
                        desc.push(' ');
                    }
                    desc.push_str(line);
                }
            }
        }
    }
    out
}

fn parse_item(item: &str) -> Option<(String, String)> {
    let item = item.trim_start();
    let rest = item.strip_prefix('`')?;
    let end = rest.find('`')?;
    let name = rest[..end].trim().to_string();
    let after = rest[end + 1..].trim_start();
    let desc = after
        .strip_prefix("--")
        .or_else(|| after.strip_prefix('-'))
        .or_else(|| after.strip_prefix(':'))
        .or_else(|| after.strip_prefix('—'))
        .unwrap_or(after)
        .trim();
    Some((name, desc.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        s.lines().map(str::to_string).collect()
    }

    #[test]
    fn reads_first_paragraph_and_arguments() {
        let doc = lines(
            "Look up the weather\nfor a city.\n\nMore detail.\n\n# Arguments\n* `city` - City name.\n  Continued.\n- `units`: Unit.\n\n# Errors\nNone.",
        );
        assert_eq!(first_paragraph(&doc), "Look up the weather for a city.");
        assert_eq!(
            arguments_section(&doc),
            vec![
                ("city".to_string(), "City name. Continued.".to_string()),
                ("units".to_string(), "Unit.".to_string())
            ]
        );
    }
}
