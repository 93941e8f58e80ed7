use agentry::agent;

/// Finds facts.
#[agent(tools(), as_tool(nmae = "finder"))]
struct Researcher;

/// Finds facts, with a name no provider accepts.
#[agent(tools(), as_tool(name = "find facts"))]
struct Finder;

/// A projection without its parent type.
#[agent(tools(), context = u8, as_tool(context_from(make_u8)))]
struct Counter;

fn make_u8(_: &()) -> u8 {
    0
}

/// An impl-block agent cannot be a tool.
struct Desk;

#[agent(as_tool())]
impl Desk {}

fn main() {}
