//! `context_from(App = |app| ..)`: a closure that captures nothing makes the sub-agent's context.
#![deny(warnings)]

use agentry::prelude::*;

struct App {
    notes: String,
}
struct Notebook {
    notes: String,
}

/// Reads the notebook.
#[tool]
fn read_notes(notebook: Context<Notebook>) -> String {
    notebook.notes.clone()
}

/// Keeps notes.
#[agent(tools(read_notes), context = Notebook, as_tool(context_from(App = |app| Notebook { notes: app.notes.clone() })))]
struct NoteKeeper;

/// The desk.
#[agent(tools(NoteKeeper), context = App)]
struct Desk;

fn main() {
    let agent = Desk::builder(agentry::testing::TestModel::new()).build();
    drop(agent.run(
        "note this",
        App {
            notes: String::new(),
        },
    ));
}
