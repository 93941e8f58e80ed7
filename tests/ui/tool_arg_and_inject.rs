use agentry::{ToolCallId, tool};

/// Echo the call id.
#[tool]
fn echo_id(
    #[arg]
    #[inject]
    id: ToolCallId,
) -> String {
    id.to_string()
}

fn main() {}
