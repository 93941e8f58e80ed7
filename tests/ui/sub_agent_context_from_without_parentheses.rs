use agentry::prelude::*;

struct App {
    notes: Vec<String>,
}

struct Notebook {
    notes: Vec<String>,
}

fn notebook_for(app: &App) -> Notebook {
    Notebook { notes: app.notes.clone() }
}

/// Count the notes.
#[tool]
fn count_notes(book: Context<Notebook>) -> usize {
    book.notes.len()
}

/// You read notes.
#[agent(tools(count_notes), context = Notebook, as_tool(context_from = notebook_for))]
struct Reader;

/// You ask the reader.
#[agent(tools(Reader), context = App)]
struct Boss;

fn main() {
    let agent = Boss::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("how many notes?", App { notes: vec![] });
}
