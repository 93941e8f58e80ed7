//! The quickstart's tools served over MCP (stdio), for any MCP client: Claude Desktop, an IDE,
//! the Python SDK's client, or this SDK's own `McpClient`.
//!
//! Each call's typed context (`Traveller`) is built from the MCP request: the `traveller`
//! entry of the request's `_meta`, if the client sends one. The schemas served are the ones a
//! model sees (the injected `Context<Traveller>` is not in them), and arguments are checked
//! against them before a tool runs.
//!
//! Run: `cargo run --example mcp_server` (speaks MCP on stdin/stdout; logs go to stderr), or
//! `cargo run --example mcp_server -- --http 127.0.0.1:8000` for streamable HTTP at `/mcp`.

use agentry::agent::Typed;
use agentry::mcp::McpServer;
use agentry::prelude::*;

/// Who is asking; built per request from the MCP request's `_meta`.
struct Traveller {
    home_city: String,
}

/// Temperature unit.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Units {
    Celsius,
    Fahrenheit,
}

/// Look up the weather forecast for a city.
///
/// # Arguments
/// * `city` - City name, e.g. "Lisbon".
/// * `units` - Temperature unit; celsius when omitted.
#[tool]
async fn get_weather(city: String, units: Option<Units>, traveller: Context<Traveller>) -> String {
    let celsius = 14 + (city.len() as i32 % 9);
    let temperature = match units.unwrap_or(Units::Celsius) {
        Units::Celsius => format!("{celsius}°C"),
        Units::Fahrenheit => format!("{}°F", celsius * 9 / 5 + 32),
    };
    let from = if city.eq_ignore_ascii_case(&traveller.home_city) {
        " (that is home)"
    } else {
        ""
    };
    format!("{city}: {temperature}, light wind, dry{from}")
}

/// Suggest things to do in a city.
///
/// # Arguments
/// * `city` - City name.
/// * `outdoor` - Whether to suggest outdoor activities.
#[tool]
fn find_activities(city: String, outdoor: bool) -> Vec<String> {
    let ideas: &[&str] = if outdoor {
        &["a walk along the river", "the botanical garden"]
    } else {
        &["the city museum", "a food market"]
    };
    ideas
        .iter()
        .map(|idea| format!("{idea} in {city}"))
        .collect()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = McpServer::builder("trip-tools")
        .instructions("Weather and activities for city trips.")
        .context(|request| Traveller {
            home_city: request
                .meta()
                .0
                .get("traveller")
                .and_then(|t| t.get("home_city"))
                .and_then(|c| c.as_str())
                .unwrap_or("London")
                .to_string(),
        })
        .tool(Typed(get_weather {}))
        .tool(Typed(find_activities {}))
        .build();

    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, addr] = args.as_slice()
        && flag == "--http"
    {
        let listener = tokio::net::TcpListener::bind(addr.as_str()).await?;
        let http = server.serve_http(listener).await?;
        eprintln!("serving MCP on {} (Ctrl-C to stop)", http.url());
        std::future::pending::<()>().await;
        http.shutdown().await;
        return Ok(());
    }
    eprintln!("serving MCP on stdio: get_weather, find_activities");
    server.serve_stdio().await?;
    Ok(())
}
