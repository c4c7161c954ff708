use hermes_tools::tool;

struct Clock;

/// Read the clock.
#[tool(toolset = "time")]
fn now(#[arg(max_items = 2)] clock: &Clock) -> String {
    let _ = clock;
    String::new()
}

fn main() {}
