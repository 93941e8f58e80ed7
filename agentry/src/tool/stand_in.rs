//! The stand-in `#[tool]` emits for a function whose attribute or signature it rejected.
//!
//! The rejection is the program's one compile error; the stand-in is a tool of the same name,
//! so an agent listing the function adds no second error ("expected type, found function").
//! A program with the stand-in never compiles, so nothing here runs in practice: it still
//! answers every call with an error, never a panic.

use std::sync::OnceLock;

use super::{InjectError, Tool, ToolCallError, ToolDefinition, ToolOutput};

/// The definition every stand-in shares: an object schema with no properties.
pub fn definition() -> &'static ToolDefinition {
    static DEFINITION: OnceLock<ToolDefinition> = OnceLock::new();
    DEFINITION.get_or_init(|| {
        ToolDefinition::new(
            "rejected_tool",
            "a function whose `#[tool]` attribute did not compile",
            serde_json::json!({ "type": "object", "properties": {} }),
            false,
        )
    })
}

/// Answers a call of the stand-in `T` with an error.
pub fn call<T: Tool>() -> std::future::Ready<Result<ToolOutput, ToolCallError>> {
    std::future::ready(Err(ToolCallError::Inject {
        tool: T::NAME.to_string(),
        source: InjectError::new::<T>("the tool's `#[tool]` attribute did not compile"),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Rejected;

    impl Tool for Rejected {
        const NAME: &'static str = "rejected";
        type Args = serde_json::Value;

        fn definition() -> &'static ToolDefinition {
            definition()
        }
    }

    #[test]
    fn a_call_is_an_error_naming_the_tool() {
        let result = futures::executor::block_on(call::<Rejected>());
        assert!(matches!(result, Err(ToolCallError::Inject { tool, .. }) if tool == "rejected"));
        assert_eq!(Rejected::definition().parameters["type"], "object");
    }
}
