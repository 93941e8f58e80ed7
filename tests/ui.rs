//! The compile-fail suite: every misuse the macros catch, with the exact message users see.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
