hermes_tools::toolset! {
    /// Every tool, under a name no selection could reach alone.
    pub static EVERYTHING = "all" {
        tools: [],
        includes: ["files"],
    }
}

hermes_tools::toolset! {
    /// Two words.
    pub static SPACED = "my tools" {
        tools: [],
        includes: [],
    }
}

fn main() {}
