//! Google Gemini `functionDeclarations[].parametersJsonSchema` (and
//! `generationConfig.responseJsonSchema`) for a recursive type: the JSON Schema fields accept
//! `$defs` and `$ref`, which the OpenAPI-subset `parameters` lacks.
//!
//! The schema is lowered as for [`Dialect::Gemini`] (same keywords kept, refused and
//! rewritten), except that a reference back into a type being inlined is kept as a `$ref` —
//! to the root (`#`) or to a `#/$defs/Name` entry, which is lowered the same way and written
//! into the root's `$defs`. The result is in the Gemini `Schema` vocabulary (`nullable`); the
//! provider writes it in JSON Schema terms before sending.

use serde_json::{Map, Value};

use super::gemini::{Gemini, def_name, lower_root};
use super::walk::resolve;
use super::{Dialect, SchemaError, size};

/// Lowers `canonical` for Gemini keeping its recursive references; a schema without any is
/// the same as [`lower`](super::lower) with [`Dialect::Gemini`] gives.
pub(crate) fn lower(canonical: &Value) -> Result<Value, SchemaError> {
    size::check(canonical, Dialect::Gemini)?;
    let mut gemini = Gemini::new(canonical, Some(Vec::new()));
    let mut root = lower_root(&mut gemini).inspect_err(super::walk::log_refusal)?;
    let mut defs = Map::new();
    let mut next = 0;
    // Each kept definition is lowered once; lowering it may keep further references.
    while let Some(&reference) = gemini.kept.as_ref().and_then(|kept| kept.get(next)) {
        next += 1;
        let Some(name) = def_name(reference) else {
            continue; // the root itself
        };
        let Some(target) = resolve(canonical, reference) else {
            return Err(gemini.cx.error(format!("`{reference}` points at nothing")));
        };
        gemini.inlining = vec!["#", reference];
        let saved = gemini.cx.jump(reference)?;
        let lowered = gemini
            .schema(target)
            .inspect_err(super::walk::log_refusal)?;
        gemini.cx.back(saved);
        defs.insert(name.to_string(), lowered);
    }
    if !defs.is_empty()
        && let Value::Object(root) = &mut root
    {
        root.insert("$defs".to_string(), Value::Object(defs));
    }
    Ok(root)
}
