use agentry::prelude::*;

struct App;
struct Notebook;

/// Keeps notes.
#[agent(tools(), context = Notebook)]
struct NoteKeeper;

/// Delegates to the note keeper.
#[agent(tools(NoteKeeper), context = App)]
struct Desk;

fn main() {
    let agent = Desk::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("note", App);
}
