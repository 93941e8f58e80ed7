//! The 10-message conversation the thread benches continue. Included with `#[path]`.

use agentry::prelude::*;

/// Five questions and their answers.
pub fn history() -> Vec<Message> {
    (0..5)
        .flat_map(|i| {
            [
                Message::user(format!("question {i}")),
                Message::assistant(format!("answer {i}")),
            ]
        })
        .collect()
}
