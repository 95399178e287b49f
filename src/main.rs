//! The `stagec` command: arguments, files, output and exit codes around the
//! library.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
