use agentry::prelude::*;

/// A review.
#[derive(StructuredOutput)]
struct Review {
    title: String,
}

fn main() {}
