//! Tools as methods: `#[agent]` on an `impl` block whose `#[tool]` methods take `&self`, so
//! tools use a resource the value holds — here a small library catalogue behind a lock,
//! standing in for a database pool — with no globals.
//!
//! Offline by default (the built-in `MockServer` plays the model); set `OPENAI_API_KEY` (or
//! another provider's key, see `examples/support/mod.rs`) to use a real model.
//!
//! Run: `cargo run --example tools_as_methods`

mod support;

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use agentry::prelude::*;
use agentry::testing::{MockResponse, RecordedRequest};

/// A book in the catalogue.
#[derive(Debug, Clone, Serialize)]
struct Book {
    title: String,
    author: String,
    on_loan: bool,
}

/// Who is borrowing; injected, never shown to the model.
struct Member {
    name: String,
}

/// The library: its catalogue is the resource the tools share.
struct Library {
    books: RwLock<BTreeMap<String, Book>>,
}

/// You are a librarian. Search the catalogue before answering, and lend books when asked.
#[agent(context = Member)]
impl Library {
    /// Find books whose title or author contains a word.
    ///
    /// # Arguments
    /// * `word` - A word from the title or the author's name (case-insensitive).
    #[tool]
    fn search(&self, word: String) -> Vec<Book> {
        let word = word.to_lowercase();
        let books = self.books.read().unwrap_or_else(|p| p.into_inner());
        books
            .values()
            .filter(|b| {
                b.title.to_lowercase().contains(&word) || b.author.to_lowercase().contains(&word)
            })
            .cloned()
            .collect()
    }

    /// Lend a book to the member asking.
    ///
    /// # Arguments
    /// * `title` - The exact title.
    #[tool(sequential)]
    fn lend(&self, title: String, member: Context<Member>) -> Result<String, String> {
        let mut books = self.books.write().unwrap_or_else(|p| p.into_inner());
        let book = books
            .get_mut(&title)
            .ok_or_else(|| format!("no book titled {title:?}; search first"))?;
        if book.on_loan {
            return Err(format!("{title:?} is already on loan"));
        }
        book.on_loan = true;
        Ok(format!("{title:?} is lent to {}", member.name))
    }

    /// How many books are on loan (an ordinary method, not a tool).
    fn on_loan(&self) -> usize {
        let books = self.books.read().unwrap_or_else(|p| p.into_inner());
        books.values().filter(|b| b.on_loan).count()
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = support::backend(mock_model).await?;
    let library = Arc::new(Library {
        books: RwLock::new(
            [
                ("Dune", "Frank Herbert"),
                ("Children of Dune", "Frank Herbert"),
                ("The Left Hand of Darkness", "Ursula K. Le Guin"),
            ]
            .into_iter()
            .map(|(title, author)| {
                let book = Book {
                    title: title.to_string(),
                    author: author.to_string(),
                    on_loan: false,
                };
                (title.to_string(), book)
            })
            .collect(),
        ),
    });

    // The agent shares the library; the program keeps its own handle to it.
    let librarian = Library::shared_builder(Arc::clone(&library), backend.model).build();
    let run = librarian
        .run(
            "Do you have anything by Herbert? I'd like to borrow Dune.",
            Member {
                name: "Ada".to_string(),
            },
        )
        .await?;
    for step in &run.steps {
        let result = step.result.as_ref().map(ToolOutput::text_content);
        println!(
            "{}({}) → {}",
            step.call.name,
            step.call.arguments,
            result.unwrap_or_else(|e| e.model_message())
        );
    }
    println!("\nlibrarian: {}", run.output);
    println!("books on loan now: {}", library.on_loan());
    Ok(())
}

/// The offline stand-in for a model: search, then lend, then answer from the results.
fn mock_model(request: &RecordedRequest) -> MockResponse {
    let results = request.tool_results();
    match results.len() {
        0 => MockResponse::tool_calls(vec![ToolCall::new("s", "search", r#"{"word":"herbert"}"#)]),
        1 => MockResponse::tool_calls(vec![ToolCall::new("l", "lend", r#"{"title":"Dune"}"#)]),
        _ => MockResponse::text(format!(
            "We have two books by Frank Herbert. {}.",
            results[1].1
        )),
    }
}
