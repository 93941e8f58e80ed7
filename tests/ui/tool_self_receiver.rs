use agentry::tool;

struct Db;

impl Db {
    /// Count the rows.
    #[tool]
    fn count(&self, table: String) -> usize {
        table.len()
    }
}

fn main() {}
