use hermes_tools::{plugin, plugins::PluginContext};

/// A plugin with a name no config could enable.
#[plugin(name = "has space")]
pub fn register(ctx: &mut PluginContext<'_>) {
    let _ = ctx;
}

fn main() {}
