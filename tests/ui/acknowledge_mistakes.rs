use hermes_tools::tool;

/// Looks up a ticket by its code.
#[tool(
    toolset = "demo",
    acknowledge(rule = "strict-mod", reason = "typo in the rule"),
    acknowledge(rule = "summary"),
    acknowledge(reason = "no rule"),
    acknowledge(rule = "placeholder", reason = "first"),
    acknowledge(rule = "placeholder", reason = "twice"),
    acknowledge(rule = "summary", reason = "x", colour = "red")
)]
pub fn ticket(code: String) -> String {
    code
}

fn main() {}
