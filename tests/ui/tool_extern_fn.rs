use agentry::prelude::*;

/// Do something.
#[tool]
extern "C" fn add_one(n: i64) -> i64 {
    n + 1
}

fn main() {}
