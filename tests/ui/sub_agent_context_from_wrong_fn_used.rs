use agentry::prelude::*;

struct App {
    notes: String,
}
struct Notebook {
    notes: String,
}

fn notebook(app: App) -> Notebook {
    Notebook { notes: app.notes }
}

/// Reads the notebook.
#[tool]
fn read_notes(book: Context<Notebook>) -> String {
    book.notes.clone()
}

/// Keeps notes.
#[agent(tools(read_notes), context = Notebook, as_tool(context_from(App = notebook)))]
struct NoteKeeper;

/// The desk.
#[agent(tools(NoteKeeper), context = App)]
struct Desk;

fn main() {
    let agent = Desk::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("note this", App { notes: String::new() });
}
