use agentry::tool;

/// Several mistakes at once; all of them are reported.
#[tool(name = "9lives", colour = "red")]
fn many<T>(word: &str, (a, b): (i32, i32)) -> String {
    format!("{word}{a}{b}")
}

fn main() {}
