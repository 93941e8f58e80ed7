use agentry::agent;

struct App;
struct Notebook;

fn notebook_for(_: &App) -> String {
    String::new()
}

/// Keeps notes.
#[agent(tools(), context = Notebook, as_tool(context_from(App = notebook_for)))]
struct NoteKeeper;

fn main() {}
