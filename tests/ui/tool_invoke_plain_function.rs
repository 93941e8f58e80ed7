use agentry::prelude::*;

/// A function without `#[tool]`.
fn shout(text: String) -> String {
    text.to_uppercase()
}

async fn by_hand() {
    let rt = ToolRuntime::new();
    let call = ToolCall::new("c1", "shout", r#"{"text":"hi"}"#);
    let out = agentry::tool::invoke(&shout, &call, &rt).await.unwrap();
    println!("{}", out.text_content());
}

fn main() {
    let _ = by_hand();
}
