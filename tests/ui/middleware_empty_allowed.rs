use agentry::middleware::{Allowed, HumanInTheLoop};

fn main() {
    // There is no empty set of decisions: a review allows at least one.
    let _ = HumanInTheLoop::new().review("send_email", Allowed::default());
}
