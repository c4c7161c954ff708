use hermes_tools::tool;

pub struct Greeter;

impl Greeter {
    /// Says hello.
    #[tool(toolset = "demo")]
    pub fn greet(&self, name: String) -> String {
        format!("hello {name}")
    }
}

fn main() {}
