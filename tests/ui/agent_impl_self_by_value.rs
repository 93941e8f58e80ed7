use agentry::prelude::*;

struct Db {
    rows: Vec<String>,
}

/// Answers from the database.
#[agent]
impl Db {
    /// Count the rows.
    #[tool]
    fn count(self) -> usize {
        self.rows.len()
    }
}

fn main() {}
