use agentry::prelude::*;

struct User;

/// Do something.
#[tool]
fn whoami(#[inject(user)] user: Context<User>) -> String {
    let _ = user;
    String::new()
}

fn main() {}
