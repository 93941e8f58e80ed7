use agentry::tool;

/// Shout a word.
#[tool]
fn shout(word: &str) -> String {
    word.to_uppercase()
}

fn main() {}
