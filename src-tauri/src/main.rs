//! `sportz`: one binary, many roles. See `sportz --help`.

mod cli;
mod roles;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = cli::Cli::parse();
    match cli::run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sportz: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}
