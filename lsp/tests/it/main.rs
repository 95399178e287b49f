//! The language server's integration tests, in one binary: a module per
//! area. The editor tests (`neovim`, `vscode`) follow the
//! `STAGEC_REQUIRE_TOOLS` switch (`tests/support/tools.rs`): without it
//! they install nothing and skip with a notice unless the tool is there.

#[path = "../../../tests/support/tools.rs"]
mod tools;

mod hostile;
mod neovim;
mod stdio;
mod vscode;
