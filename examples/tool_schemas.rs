//! Tool schemas: two tools, and what each provider is shown of them — the one canonical schema
//! lowered into the OpenAI strict, OpenAI, Anthropic and Gemini dialects — then a model's
//! tool call run by hand, valid and invalid. No model, no network.
//!
//! Run: `cargo run --example tool_schemas`

use agentry::prelude::*;

/// Temperature unit.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Units {
    Celsius,
    Fahrenheit,
}

/// Who is asking; filled in by the runtime, never by the model.
struct User {
    name: String,
}

/// Look up the current weather for a city.
///
/// # Arguments
/// * `city` - City name, e.g. "Paris".
/// * `units` - Temperature unit; celsius when omitted.
#[tool]
async fn get_weather(city: String, units: Option<Units>, user: Context<User>) -> String {
    let (value, unit) = match units.unwrap_or(Units::Celsius) {
        Units::Celsius => (18, "°C"),
        Units::Fahrenheit => (64, "°F"),
    };
    format!(
        "{city}: {value}{unit}, clear skies (asked by {})",
        user.name
    )
}

/// Book a hotel room for some nights.
#[tool(strict = true)]
fn book_hotel(
    /// The hotel's name.
    hotel: String,
    /// Number of nights, at least one.
    nights: u32,
) -> Result<String, String> {
    if nights == 0 {
        return Err("a stay needs at least one night".to_string());
    }
    Ok(format!("Booked {nights} night(s) at {hotel}."))
}

fn print_definition(def: &ToolDefinition) {
    println!("tool `{}`: {}", def.name, def.description);
    for dialect in Dialect::ALL {
        match def.parameters_for(dialect) {
            Ok(schema) => println!("  {dialect:<14} {schema}"),
            Err(e) => println!("  {dialect:<14} refused: {e}"),
        }
    }
}

#[tokio::main]
async fn main() -> agentry::Result<()> {
    print_definition(<get_weather as Tool>::definition());
    print_definition(<book_hotel as Tool>::definition());

    // A model's tool call, run the way the agent runtime runs it.
    let runtime = ToolRuntime::new().with_context(User {
        name: "Ada".to_string(),
    });
    let call = ToolCall::new("call_1", "get_weather", r#"{"city":"Paris"}"#);
    let out = agentry::tool::invoke(&get_weather {}, &call, &runtime).await?;
    println!("\nget_weather(Paris) -> {}", out.text_content());

    let bad = ToolCall::new("call_2", "book_hotel", r#"{"hotel":"Ritz","nights":"two"}"#);
    let err = agentry::tool::invoke(&book_hotel {}, &bad, &runtime)
        .await
        .unwrap_err();
    println!("book_hotel(nights: \"two\") -> {}", err.model_message());
    Ok(())
}
