use agentry::prelude::*;

#[derive(Deserialize)]
struct Point {
    x: f64,
    y: f64,
}

/// Distance from the origin.
///
/// # Arguments
/// * `p` - The point.
#[tool]
fn norm(p: Point) -> f64 {
    (p.x * p.x + p.y * p.y).sqrt()
}

/// Does geometry.
#[agent(tools(norm))]
struct Geometer;

fn main() {
    let agent = Geometer::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("norm of (3, 4)", ());
}
