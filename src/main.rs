fn main() -> std::process::ExitCode {
    stagec::cli::main()
}
