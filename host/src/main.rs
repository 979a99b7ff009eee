//! The `trajhost` command line: a thin layer over the `trajhost` library.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
