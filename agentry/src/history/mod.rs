//! History that fits: counting a conversation's tokens for a model
//! ([`token_counter`]) and trimming it to a budget without a model ([`trim_messages`]).
//!
//! ```
//! use agentry::history::{TrimOptions, token_counter, trim_messages};
//! use agentry::Message;
//!
//! let mut history = vec![Message::system("Be brief."), Message::user("My name is Ada.")];
//! for i in 0..50 {
//!     history.push(Message::user(format!("question {i}: {}", "words ".repeat(20))));
//!     history.push(Message::assistant(format!("answer {i}: {}", "words ".repeat(20))));
//! }
//! let counter = token_counter("anthropic", "claude-sonnet-4-5");
//! let trimmed = trim_messages(&history, &TrimOptions::new(400), &*counter).unwrap();
//! assert!(counter.count(&trimmed) <= 400);
//! assert_eq!(trimmed[0], history[0]); // the system message
//! assert_eq!(trimmed[1], history[1]); // the first user message
//! assert_eq!(trimmed.last(), history.last()); // the latest turns
//! ```

mod count;
mod trim;

#[cfg(feature = "tiktoken")]
pub use count::Tiktoken;
pub use count::token_counter;
pub use trim::{TrimError, TrimOptions, trim_messages};
