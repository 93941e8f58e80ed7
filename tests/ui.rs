//! The compile-fail suite: every misuse the macros catch, with the exact message users see;
//! and, in `tests/ui/pass`, the forms that must compile (some with `#![deny(warnings)]`).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
