use agentry::agent;

struct Counter {
    n: u32,
}

/// Counts.
#[agent]
impl Counter {
    /// Add one.
    #[tool]
    fn bump(&mut self) -> u32 {
        self.n += 1;
        self.n
    }
}

fn main() {}
