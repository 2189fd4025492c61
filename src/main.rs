//! The `pogo` command-line tool. See [`cli`] for the subcommands and the error contract.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
