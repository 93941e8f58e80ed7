use std::rc::Rc;

use agentry::prelude::*;

struct App {
    notes: Vec<String>,
}

struct Notes {
    items: Rc<Vec<String>>,
}

fn notes_of(app: &App) -> Notes {
    Notes {
        items: Rc::new(app.notes.clone()),
    }
}

/// Counts the notes.
#[tool]
fn count(notes: Context<Notes>) -> usize {
    notes.items.len()
}

/// Keeps notes.
#[agent(tools(count), context = Notes, as_tool(context_from(App = notes_of)))]
struct NoteKeeper;

/// Answers with the help of the note keeper.
#[agent(tools(NoteKeeper), context = App)]
struct Assistant;

fn main() {
    let agent = Assistant::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("How many notes?", App { notes: vec![] });
}
