//! `anyOf`/`oneOf`, `$ref` and `allOf` in OpenAI strict mode: unions lowered to `anyOf`, a
//! reference kept bare or merged with the constraints beside it, `allOf` merged into one
//! schema, every merged object still closed.

use serde_json::{Map, Value, json};

use super::super::SchemaError;
use super::super::keywords::ANNOTATIONS;
use super::super::merge;
use super::super::walk::{UnionWords, View};
use super::Strict;

/// How union errors are worded in OpenAI strict mode.
const UNION_WORDS: UnionWords = UnionWords {
    combined: "in OpenAI strict mode",
    dialect: "OpenAI strict mode",
    fix: "give the enum a serde tag, or set `strict = false`",
};

impl<'a> Strict<'a> {
    /// Adds the node's `anyOf` (or provably disjoint `oneOf`) to what was lowered so far.
    pub(super) fn union(
        &mut self,
        node: View<'a>,
        out: Map<String, Value>,
    ) -> Result<Value, SchemaError> {
        let Some((key, alternatives)) = self.cx.union(node, &UNION_WORDS)? else {
            return Ok(Value::Object(out));
        };
        if alternatives.is_empty() {
            return Err(self
                .cx
                .error_at(key, format!("an empty `{key}` accepts no value; remove it")));
        }
        let outer = self.cx.enter(key)?;
        let mut lowered = Vec::with_capacity(alternatives.len());
        for (i, alternative) in alternatives.iter().enumerate() {
            let mark = self.cx.enter_index(i)?;
            lowered.push(self.schema(alternative)?);
            self.cx.leave(mark);
        }
        self.cx.leave(outer);
        let union = json!({ "anyOf": lowered });
        // Keywords beside the union must hold for every alternative: distribute them.
        merge::with_union_siblings(out, union, merge_closed)
            .map_err(|reason| self.cx.error_at(key, reason))
    }

    /// `$ref` alone, or with a description (moved onto an `anyOf` wrapper, since OpenAI allows
    /// no siblings next to `$ref`). With constraints beside it, the target is merged with them.
    pub(super) fn reference(
        &mut self,
        node: View<'a>,
        reference: &'a Value,
    ) -> Result<Value, SchemaError> {
        let structural = node
            .iter()
            .any(|(k, _)| k != "$ref" && k != "description" && !ANNOTATIONS.contains(&k.as_str()));
        if structural {
            return self.inlined(node);
        }
        let (reference, _) = self.cx.resolve(reference)?;
        self.limits.reference(&self.scope, self.depth, reference);
        let link = json!({ "$ref": reference });
        Ok(match node.get("description") {
            Some(description) => json!({ "description": description, "anyOf": [link] }),
            None => link,
        })
    }

    /// Lowers `node` with its `$ref` (if any) replaced by the referenced schema, so that it
    /// can be merged with other schemas.
    fn inlined(&mut self, node: View<'a>) -> Result<Value, SchemaError> {
        let Some(reference) = node.get("$ref") else {
            return self.map(node);
        };
        let (reference, target) = self.cx.resolve(reference)?;
        if reference == "#" || self.inlining.contains(&reference) {
            return Err(self.cx.error_at(
                "$ref",
                "a recursive type cannot be merged with the constraints beside its reference; move the recursive part into its own field",
            ));
        }
        self.inlining.push(reference);
        let saved = self.cx.jump(reference)?;
        let target = match target {
            Value::Object(map) => self.inlined(View::new(map))?,
            other => self.schema(other)?,
        };
        self.cx.back(saved);
        self.inlining.pop();
        let rest = self.map(node.without(&["$ref"]))?;
        merge_closed(target, rest).map_err(|reason| self.cx.error_at("$ref", reason))
    }

    /// Merges `allOf` (and the keywords beside it) into one schema.
    pub(super) fn all_of(
        &mut self,
        node: View<'a>,
        parts: &'a Value,
    ) -> Result<Value, SchemaError> {
        let Value::Array(parts) = parts else {
            return Err(self
                .cx
                .error_at("allOf", "`allOf` must be an array of schemas"));
        };
        let rest = node.without(&["allOf"]);
        let structural_rest = rest
            .iter()
            .any(|(k, _)| k != "description" && !ANNOTATIONS.contains(&k.as_str()));
        if let ([only], false) = (parts.as_slice(), structural_rest) {
            // `allOf: [X]` is X (with the node's description).
            let mark = self.cx.enter("allOf")?;
            let inner = self.cx.enter_index(0)?;
            let lowered = self.schema(only)?;
            self.cx.leave(inner);
            self.cx.leave(mark);
            return Ok(with_description(lowered, rest.get("description")));
        }
        let outer = self.cx.enter("allOf")?;
        let mut merged: Option<Value> = None;
        for (i, part) in parts.iter().enumerate() {
            let mark = self.cx.enter_index(i)?;
            let lowered = match part {
                Value::Object(map) => self.inlined(View::new(map))?,
                other => self.schema(other)?,
            };
            merged = Some(match merged {
                None => lowered,
                Some(acc) => merge_closed(acc, lowered).map_err(|reason| self.cx.error(reason))?,
            });
            self.cx.leave(mark);
        }
        self.cx.leave(outer);
        let merged = merged.ok_or_else(|| {
            self.cx
                .error_at("allOf", "an empty `allOf` adds nothing; remove it")
        })?;
        let rest = self.map(rest)?;
        merge_closed(merged, rest).map_err(|reason| self.cx.error_at("allOf", reason))
    }
}

/// `a ∧ b` as one schema, with every merged object still listing all its properties in
/// `required` (in property order, as everywhere else in strict output).
fn merge_closed(a: Value, b: Value) -> Result<Value, String> {
    let mut merged = merge::conjunction(a, b)?;
    require_all(&mut merged);
    Ok(merged)
}

fn require_all(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    if let Some(Value::Object(properties)) = map.get("properties") {
        let names = properties.keys().cloned().map(Value::String).collect();
        map.insert("required".to_string(), Value::Array(names));
    }
    if let Some(Value::Array(alternatives)) = map.get_mut("anyOf") {
        alternatives.iter_mut().for_each(require_all);
    }
}

/// Puts `description` on a lowered schema; a bare `$ref` gets an `anyOf` wrapper for it.
fn with_description(schema: Value, description: Option<&Value>) -> Value {
    let Some(description) = description else {
        return schema;
    };
    match schema {
        Value::Object(mut map) if !map.contains_key("$ref") => {
            map.insert("description".to_string(), description.clone());
            Value::Object(map)
        }
        link => json!({ "description": description, "anyOf": [link] }),
    }
}
