//! Compile-fail UI tests of `#[tool]`: each `tests/ui/*.rs` shows one mistake and its
//! `.stderr` pins the diagnostic; `tests/ui/pass/*.rs` must compile and run.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
    t.pass("ui/pass/*.rs");
}
