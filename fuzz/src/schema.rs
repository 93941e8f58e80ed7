//! A foreign tool schema (as a dynamic or MCP tool brings it) lowered into every provider
//! dialect through `ToolDefinition::parameters_for`: never panics; an accepted schema lowers
//! to a JSON object the same way every time, and its lowered form is accepted again.

use agentry::schema::lower;
use agentry::{Dialect, ToolDefinition};

const DIALECTS: [Dialect; 4] = [
    Dialect::OpenAiStrict,
    Dialect::OpenAi,
    Dialect::Anthropic,
    Dialect::Gemini,
];

/// Checks the property above on one input; panics when it does not hold.
pub fn check(data: &[u8]) {
    let Ok(schema) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let def = ToolDefinition::new("t", "d", schema.clone(), false);
    for dialect in DIALECTS {
        let via_def = def.parameters_for(dialect).cloned();
        let direct = lower(&schema, dialect);
        assert_eq!(
            via_def.as_ref().map_err(|e| e.to_string()),
            direct.as_ref().map_err(|e| e.to_string()),
            "{dialect}"
        );
        if let Ok(lowered) = direct {
            let _ = lower(&lowered, dialect);
        }
    }
}
