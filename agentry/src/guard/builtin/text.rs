//! The text a built-in guardrail reads in each kind of value.

use serde::Serialize;
use serde_json::Value;

use crate::message::ContentBlock;
use crate::tool::ToolOutput;

/// Every string in `value` as it serializes (a `String` output is itself; a struct's string
/// fields, map keys excluded, in order). A value that does not serialize has no text.
pub(super) fn strings_of<O: Serialize>(value: &O) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(json) = serde_json::to_value(value) {
        collect(json, &mut out);
    }
    out
}

/// Every string in a tool call's arguments: the string values of its JSON, or the text
/// itself when it is not JSON.
pub(super) fn strings_of_arguments(arguments: &str) -> Vec<String> {
    match serde_json::from_str::<Value>(arguments) {
        Ok(json) => {
            let mut out = Vec::new();
            collect(json, &mut out);
            out
        }
        Err(_) => vec![arguments.to_string()],
    }
}

fn collect(value: Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.into_iter().for_each(|v| collect(v, out)),
        Value::Object(map) => map.into_iter().for_each(|(_, v)| collect(v, out)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// The text blocks of a tool's result.
pub(super) fn texts_of(output: &ToolOutput) -> impl Iterator<Item = &str> {
    output.content.iter().filter_map(ContentBlock::as_text)
}
