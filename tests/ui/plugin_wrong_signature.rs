use hermes_tools::plugin;

/// A plugin whose register function takes nothing.
#[plugin(name = "empty")]
pub fn register() {}

fn main() {}
