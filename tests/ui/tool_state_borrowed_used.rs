use agentry::prelude::*;

/// Read the note.
#[tool]
fn read_note(note: State<&str>) -> String {
    note.to_string()
}

/// You read notes.
#[agent(tools(read_note), state = String)]
struct Reader;

#[tokio::main]
async fn main() {
    let agent = Reader::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("Read", ()).await.unwrap();
    println!("{}", run.output);
}
