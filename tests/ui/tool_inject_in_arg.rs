use agentry::{Context, tool};

struct User;

/// Who am I?
#[tool]
fn whoami(#[arg(description = "the user")] user: Context<User>) -> String {
    let _ = user;
    String::new()
}

fn main() {}
