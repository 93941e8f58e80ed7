use agentry::multi::Team;
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};

#[derive(Clone)]
struct Customer {
    id: u64,
}

/// Looks up the customer's invoices.
#[tool]
fn invoices(customer: Context<Customer>) -> String {
    format!("invoices of {}", customer.id)
}

/// You answer billing questions.
#[agent(tools(invoices), context = Customer)]
struct Billing;

async fn answer(team: &Team<String, Customer>) {
    // The team's context is a `Customer`, not its id.
    let run = team.run("My invoice is wrong.", 42u64).await.unwrap();
    println!("{}", run.output);
}

fn main() {
    let team = Team::<String, Customer>::builder()
        .agent("billing", "Answers billing questions.", Billing::builder(ScriptedModel::new([Turn::text("ok")])))
        .build()
        .unwrap();
    let _ = answer(&team);
}
