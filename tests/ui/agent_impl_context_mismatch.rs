use agentry::{Context, agent};

struct User;
struct Tenant;

struct Db;

/// A database agent.
#[agent(context = Tenant)]
impl Db {
    /// Who is asking.
    #[tool]
    fn whoami(&self, user: Context<User>) -> String {
        let _ = user;
        String::new()
    }
}

fn main() {}
