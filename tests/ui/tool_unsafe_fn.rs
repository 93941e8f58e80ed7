use agentry::prelude::*;

/// Do something.
#[tool]
unsafe fn peek(addr: u64) -> u64 {
    addr
}

fn main() {}
