//! Every `tests/fixtures/**/*.yaml` is checked and its rendered diagnostics
//! (human and JSON) are compared with the snapshot beside the others in
//! `tests/snapshots/`.

mod common;

#[test]
fn fixtures() {
    insta::glob!("fixtures/**/*.yaml", |path| {
        insta::assert_snapshot!(common::render_fixture(path));
    });
}
