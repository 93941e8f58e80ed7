use agentry::agent;

struct Cache;

/// Answers from a cache.
#[agent]
impl Cache {
    /// Look something up.
    ///
    /// # Arguments
    /// * `key` - The key.
    #[tool(sequential, inline = true)]
    async fn lookup(&self, key: String) -> String {
        key
    }
}

fn main() {}
