use agentry::prelude::*;

mod books {
    use agentry::prelude::*;

    /// Look a book up.
    ///
    /// # Arguments
    /// * `title` - The title.
    #[tool(name = "lookup_book")]
    pub fn lookup(title: String) -> String {
        format!("found {title}")
    }
}

mod films {
    use agentry::prelude::*;

    /// Look a film up.
    ///
    /// # Arguments
    /// * `title` - The title.
    #[tool(name = "lookup_film")]
    pub fn lookup(title: String) -> String {
        format!("found {title}")
    }
}

/// You find books and films.
#[agent(tools(books::lookup, films::lookup))]
struct Librarian;

#[tokio::main]
async fn main() {
    let agent = Librarian::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("Dune", ()).await.unwrap();
    println!("{}", run.output);
}
