use agentry::prelude::*;

/// Do something.
#[tool]
fn push(list: &mut Vec<String>) -> String {
    list.join(",")
}

fn main() {}
