use agentry::agent;

/// Answers.
#[agent(tools(), guardrails(agentry::guard::builtin::MaxLength::chars(100)))]
struct Answerer;

fn main() {}
