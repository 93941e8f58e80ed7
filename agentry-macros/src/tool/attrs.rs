//! The arguments of `#[tool(...)]`.

use darling::{Error, FromMeta};

use super::flag::Switch;
use super::schema_override::SchemaPath;
use crate::text::Text;
use crate::{docs, names};

/// `#[tool(name = "...", description = "...", strict = bool, return_direct, sequential,
/// idempotent, inline, timeout = "5s", schema = path)]`.
#[derive(FromMeta, Default)]
struct RawToolAttrs {
    name: Option<Text>,
    description: Option<Text>,
    #[darling(default)]
    strict: Switch,
    #[darling(default)]
    return_direct: Switch,
    #[darling(default)]
    sequential: Switch,
    #[darling(default)]
    idempotent: Switch,
    #[darling(default)]
    inline: Switch,
    #[darling(default)]
    external: Switch,
    timeout: Option<Text>,
    schema: Option<SchemaPath>,
}

/// The checked tool attributes, with doc-comment defaults applied.
pub struct ToolAttrs {
    pub name: String,
    pub description: String,
    pub strict: bool,
    pub return_direct: bool,
    pub sequential: bool,
    pub idempotent: bool,
    /// A sync body is called on the run's task instead of the blocking pool.
    pub inline: bool,
    /// The per-call timeout in milliseconds.
    pub timeout_ms: Option<u64>,
    /// A body-less tool the caller runs (`#[tool(external)]`).
    pub external: bool,
    /// `#[tool(schema = path)]`: the function making the whole arguments schema.
    pub schema: Option<syn::Path>,
}

impl ToolAttrs {
    pub fn parse(
        metas: &[darling::ast::NestedMeta],
        fn_ident: &syn::Ident,
        fn_attrs: &[syn::Attribute],
        is_async: bool,
    ) -> darling::Result<Self> {
        let (metas, mut unknown) = crate::keys::known_keys(metas, &KEYS, "tool", &ALIASES);
        // A bare literal (`#[tool("lookup")]`, or `#[tool = "lookup"]`, which rustc reports
        // and then passes on as the literal) is said in our words, not as darling's "meta-item
        // format".
        let metas: Vec<_> = metas
            .into_iter()
            .filter(|meta| {
                let darling::ast::NestedMeta::Lit(lit) = meta else {
                    return true;
                };
                let message = match lit {
                    syn::Lit::Str(name) => format!(
                        "write the tool's name as a key: `#[tool(name = \"{}\")]`",
                        name.value()
                    ),
                    _ => format!(
                        "`#[tool]` takes keys, not a bare value: `#[tool(name = \"..\", timeout = \"5s\")]`; valid keys: {}",
                        KEYS.join(", ")
                    ),
                };
                unknown.push(Error::custom(message).with_span(lit));
                false
            })
            .collect();
        let raw = match RawToolAttrs::from_list(&metas) {
            Ok(raw) => raw,
            Err(e) => return Err(Error::multiple(unknown.into_iter().chain([e]).collect())),
        };
        let mut errors = Error::accumulator();
        for e in unknown {
            errors.push(e);
        }

        if raw.inline.is_on() && (is_async || raw.external.is_on()) {
            let mut error = Error::custom(if raw.external.is_on() {
                "`inline` has no meaning on an `external` tool: it has no body to call, its \
                 result comes from outside the run; remove `inline`"
            } else {
                "`inline` is for a plain `fn` tool: an `async fn` tool already runs on the run's \
                 task; remove `inline`"
            });
            if let Some(span) = raw.inline.key_span() {
                error = error.with_span(&span);
            }
            errors.push(error);
        }

        let name = match raw.name {
            Some(name) => {
                if let Err(reason) =
                    names::check_provider_name(&name.value(), "tool", "get_weather")
                {
                    errors.push(Error::custom(reason).with_span(&name.span()));
                }
                name.value()
            }
            None => {
                let ident = fn_ident.to_string();
                ident.strip_prefix("r#").unwrap_or(&ident).to_string()
            }
        };

        let doc_lines = docs::doc_lines(fn_attrs);
        let description = match raw.description {
            Some(d) if d.value().trim().is_empty() => {
                errors.push(
                    Error::custom(
                        "`description` is empty: say what the tool does, the model reads it to \
                         decide when to call the tool (or remove it to use the doc comment)",
                    )
                    .with_span(&d.span()),
                );
                d.value()
            }
            Some(d) => d.value(),
            None => {
                let d = docs::first_paragraph(&doc_lines);
                if d.trim().is_empty() {
                    errors.push(
                        Error::custom(
                            "a tool needs a description the model can read: add a `///` doc \
                             comment to the function, or `#[tool(description = \"...\")]`",
                        )
                        .with_span(fn_ident),
                    );
                }
                d
            }
        };

        if raw.inline.is_on()
            && let Some(timeout) = &raw.timeout
        {
            errors.push(
                Error::custom(
                    "an `inline` tool runs on the run's task and is never interrupted, so a \
                     `timeout` could not cancel it: remove `inline` (the call then runs on the \
                     blocking pool, and the timeout stops waiting for it) or remove `timeout`",
                )
                .with_span(&timeout.span()),
            );
        }

        if raw.external.is_on()
            && let Some(timeout) = &raw.timeout
        {
            errors.push(
                Error::custom(
                    "an `external` tool's result comes from outside the run, which stops at the \
                     call and waits for it without a clock: a `timeout` could never fire; \
                     remove `timeout` (bound the wait where your code answers the call)",
                )
                .with_span(&timeout.span()),
            );
        }

        let timeout_ms = raw
            .timeout
            .and_then(|lit| match parse_duration_ms(&lit.value()) {
                Ok(ms) => Some(ms),
                Err(reason) => {
                    errors.push(Error::custom(reason).with_span(&lit.span()));
                    None
                }
            });

        errors.finish_with(ToolAttrs {
            name,
            description,
            strict: raw.strict.is_on(),
            return_direct: raw.return_direct.is_on(),
            sequential: raw.sequential.is_on(),
            idempotent: raw.idempotent.is_on(),
            inline: raw.inline.is_on(),
            timeout_ms,
            external: raw.external.is_on(),
            schema: raw.schema.map(|p| p.0),
        })
    }
}

/// The keys of `#[tool(...)]`, as listed in an unknown key's error.
const KEYS: [&str; 10] = [
    "name",
    "description",
    "strict",
    "return_direct",
    "sequential",
    "idempotent",
    "inline",
    "external",
    "timeout",
    "schema",
];

/// Where retries go, for `retries` and `max_retries`.
const RETRIES: &str =
    "`.max_tool_retries(n)` on the agent's builder (retries are the agent's, for every tool)";

/// Keys other frameworks have, and what to write here instead.
const ALIASES: [(&str, &str); 5] = [
    ("retries", RETRIES),
    ("max_retries", RETRIES),
    (
        "parallel",
        "`sequential` for a tool that must run alone (tools run in parallel by default)",
    ),
    (
        "blocking",
        "`inline` for a quick sync tool called in place (a sync tool runs on the blocking pool by default)",
    ),
    (
        "doc",
        "the function's `///` doc comment, which is the tool's description",
    ),
];

/// `"500ms"`, `"5s"`, `"2m"`, `"1h"` → milliseconds.
fn parse_duration_ms(text: &str) -> Result<u64, String> {
    let usage = "write the timeout as a whole number with a unit: `timeout = \"500ms\"`, \
                 `\"5s\"`, `\"2m\"` or `\"1h\"`";
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let Ok(number) = number.parse::<u64>() else {
        return Err(format!("`{text}` is not a duration; {usage}"));
    };
    let factor = match unit.trim() {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return Err(format!("`{text}` is not a duration; {usage}")),
    };
    match number.checked_mul(factor) {
        Some(0) => Err(format!(
            "a timeout of zero would cancel every call; {usage}"
        )),
        Some(ms) => Ok(ms),
        None => Err(format!("`{text}` is too long a timeout; {usage}")),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_duration_ms;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ms("500ms"), Ok(500));
        assert_eq!(parse_duration_ms("5s"), Ok(5_000));
        assert_eq!(parse_duration_ms("2m"), Ok(120_000));
        assert_eq!(parse_duration_ms("1h"), Ok(3_600_000));
        assert!(parse_duration_ms("5").is_err());
        assert!(parse_duration_ms("5 sec").is_err());
        assert!(parse_duration_ms("0s").is_err());
        assert!(parse_duration_ms("-1s").is_err());
    }
}
