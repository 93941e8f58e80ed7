use agentry::prelude::*;

/// A shape.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
enum Shape {
    Circle {
        #[output(range(min = 0))]
        radius: f64,
    },
    #[output(validate = check)]
    Square(f64),
}

fn main() {}
