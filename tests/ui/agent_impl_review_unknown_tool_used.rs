use agentry::prelude::*;

struct Db {
    rows: Vec<String>,
}

/// Answers from the database.
#[agent(review(delete_row(approve, reject)))]
impl Db {
    /// Count the rows.
    #[tool]
    fn count(&self) -> usize {
        self.rows.len()
    }

    /// Delete a row.
    ///
    /// # Arguments
    /// * `index` - The row to delete.
    #[tool]
    fn delete(&self, index: usize) -> String {
        format!("would delete row {index}")
    }
}

fn main() {
    let db = Db { rows: Vec::new() };
    let _ = db.into_builder(agentry::testing::TestModel::new()).build();
}
