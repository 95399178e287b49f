//! stagec-lsp: the language server of stagec. It speaks LSP 3.17 over stdio
//! with a plain synchronous loop and calls the same library as the CLI, so
//! diagnostics, codes, messages and fixes are the CLI's. Only this crate
//! knows LSP types; conversions live in [`convert`].

// `lsp_types::Uri` hashes and compares by its text; clippy cannot see that
// its lazily initialised parts never change it (rust-analyzer allows this too).
#![allow(clippy::mutable_key_type)]

pub mod convert;
pub mod server;
pub mod settings;
pub mod store;
pub mod transport;

/// Runs the server over stdin/stdout; returns the process exit code.
pub fn run_stdio() -> i32 {
    let Ok((conn, writer)) = transport::stdio() else {
        return 2;
    };
    let code = server::serve(&conn);
    // Let the writer flush every response, then leave (the reader may be
    // blocked on stdin; the process exit ends it).
    drop(conn);
    writer.join();
    code
}
