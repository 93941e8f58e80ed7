//! Macro-generated code must compile when `agentry` is renamed in `Cargo.toml`
//! (here to `my_sdk`) and no crate named `agentry`, `serde` or `schemars` is in scope.

use my_sdk::Context;

/// Greets someone.
///
/// # Arguments
/// * `name` - Who to greet.
#[my_sdk::tool]
pub async fn greet(name: String, greeting: Context<String>) -> String {
    format!("{}, {name}!", *greeting)
}

#[cfg(test)]
mod tests {
    use super::*;
    use my_sdk::Tool;

    #[tokio::test]
    async fn works_under_a_renamed_dependency() {
        let def = <greet as Tool>::definition();
        assert_eq!(
            def.parameters["properties"]["name"]["description"],
            "Who to greet."
        );
        let rt = my_sdk::ToolRuntime::new().with_context("Hello".to_string());
        let call = my_sdk::ToolCall::new("1", "greet", r#"{"name":"Ada"}"#);
        let out = my_sdk::tool::invoke(&greet {}, &call, &rt).await.unwrap();
        assert_eq!(out.text_content(), "Hello, Ada!");
    }
}
