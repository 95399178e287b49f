//! The language server's integration tests, in one binary: a module per
//! area. `lsp/tests/hostile.rs` stays a binary of its own: its cases hold
//! the server to wall-clock limits, so they should not share the CPU with
//! the servers of the other tests. The editor tests (`neovim`, `vscode`)
//! follow the `STAGEC_REQUIRE_TOOLS` switch (`tests/support/tools.rs`): without it
//! they install nothing and skip with a notice unless the tool is there.

#[path = "../../../tests/support/tools.rs"]
mod tools;

mod neovim;
mod stdio;
mod vscode;
