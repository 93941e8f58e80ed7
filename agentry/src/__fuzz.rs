//! Entry points for the fuzz targets in `fuzz/` (the non-default `fuzzing` feature) to
//! decoders that have no public path. Not a public API: it may change in any release.

#[cfg(all(feature = "openai", feature = "anthropic", feature = "gemini"))]
pub use crate::providers::fuzz::{KEY, Provider, decode_answer, decode_stream};

/// Maps an MCP server's tool result to what the model reads (the MCP client's mapping).
#[cfg(feature = "mcp-client")]
pub fn mcp_result_to_output(
    tool: &str,
    result: rmcp::model::CallToolResult,
) -> Result<crate::tool::ToolOutput, crate::tool::ToolCallError> {
    crate::mcp::content::from_mcp(tool, result)
}

/// Maps a tool's output to an MCP result (the MCP server's mapping).
#[cfg(feature = "mcp-server")]
pub fn output_to_mcp(output: crate::tool::ToolOutput) -> rmcp::model::CallToolResult {
    crate::mcp::content::to_mcp(output)
}
