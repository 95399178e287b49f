//! `stagec-lsp`: the stagec language server over stdio.

fn main() {
    std::process::exit(stagec_lsp::run_stdio());
}
