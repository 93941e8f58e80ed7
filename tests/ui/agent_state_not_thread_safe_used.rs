use std::cell::RefCell;

use agentry::prelude::*;

#[derive(Default)]
struct Log {
    entries: RefCell<Vec<String>>,
}

/// Record an event.
///
/// # Arguments
/// * `event` - What happened.
#[tool]
fn record(event: String, log: State<Log>) -> String {
    format!("{} after {} entries", event, log.entries.borrow().len())
}

/// You keep a log.
#[agent(tools(record), state = Log)]
struct Logger;

fn main() {
    let agent = Logger::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("Log the start.", ());
}
