use std::sync::Arc;

use agentry::prelude::*;

/// Remember a fact.
///
/// # Arguments
/// * `fact` - What to remember.
#[tool]
async fn remember(fact: String, store: Arc<Store>) -> String {
    let _ = store;
    fact
}

fn main() {}
