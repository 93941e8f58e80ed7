use agentry::persist::SqliteCheckpointer;

async fn open() {
    // A path, not a number.
    let checkpointer = SqliteCheckpointer::open(42).await.unwrap();
    let _ = checkpointer;
}

fn main() {
    let _ = open();
}
