use agentry::agent;

struct App;
struct Notebook;

/// Keeps notes.
#[agent(tools(), context = Notebook)]
struct NoteKeeper;

/// Delegates to the note keeper, but has no way to make its `Notebook`.
#[agent(tools(NoteKeeper), context = App)]
struct Desk;

fn main() {}
