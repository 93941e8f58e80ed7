//! An MCP server's tool result (`CallToolResult` JSON) mapped to what the model reads: never
//! panics; `isError: true` is an error and nothing else is; one block per content block (a
//! text block for `structuredContent` alone); text blocks keep their text.

use agentry::__fuzz::mcp_result_to_output;
use agentry::mcp::StructuredContent;
use agentry::mcp::rmcp::model::{CallToolResult, ContentBlock as McpBlock};

/// Checks the property above on one input; panics when it does not hold.
pub fn check(data: &[u8]) {
    let Ok(result) = serde_json::from_slice::<CallToolResult>(data) else {
        return;
    };
    let is_error = result.is_error == Some(true);
    let blocks = result.content.clone();
    let structured = result.structured_content.clone();
    match mcp_result_to_output("t", result) {
        Err(_) => assert!(is_error, "an error without isError"),
        Ok(output) => {
            assert!(!is_error, "isError: true was not an error");
            let expected = if blocks.is_empty() && structured.is_some() {
                1
            } else {
                blocks.len()
            };
            assert_eq!(output.content.len(), expected);
            for (mcp, ours) in blocks.iter().zip(&output.content) {
                if let McpBlock::Text(t) = mcp {
                    assert_eq!(ours.as_text(), Some(t.text.as_str()));
                }
            }
            let artifact = output
                .artifact
                .as_ref()
                .and_then(|a| a.downcast_ref::<StructuredContent>());
            assert_eq!(artifact.map(|s| &s.0), structured.as_ref());
        }
    }
}
