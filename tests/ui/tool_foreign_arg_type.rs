use agentry::prelude::*;

/// Do something.
#[tool]
fn connect(addr: std::net::TcpStream) -> String {
    format!("{addr:?}")
}

fn main() {}
