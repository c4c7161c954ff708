//! Tools shared by the benches: 49 realistic three-parameter tools, so registries have the
//! size of a real agent's (with the bench's own tools, 50).

use hermes_tools::tool;

/// Add two integers: the two-argument tool every bench calls.
#[tool(toolset = "bench")]
pub fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

macro_rules! filler_tools {
    ($($name:ident),*) => {$(
        /// A tool that exists so the registry has a realistic size.
        #[tool(toolset = "filler", check = always)]
        pub fn $name(
            /// Some text.
            text: String,
            /// Up to four items.
            #[arg(max_items = 4)]
            items: Option<Vec<String>>,
            /// A bound.
            #[arg(minimum = 0, maximum = 100, default = 10)]
            limit: u32,
        ) -> String {
            format!("{text}{items:?}{limit}")
        }
    )*};
}

filler_tools!(
    f01, f02, f03, f04, f05, f06, f07, f08, f09, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19,
    f20, f21, f22, f23, f24, f25, f26, f27, f28, f29, f30, f31, f32, f33, f34, f35, f36, f37, f38,
    f39, f40, f41, f42, f43, f44, f45, f46, f47, f48, f49
);

/// The check every filler tool shares: probed once per definitions computation.
fn always() -> bool {
    true
}
