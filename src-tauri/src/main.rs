//! `sportz`: one binary, many roles. See `sportz --help`.

mod cli;
mod config;
mod desktop;
mod overlay;
mod roles;

use clap::{CommandFactory, FromArgMatches};

fn main() -> std::process::ExitCode {
    let matches = cli::Cli::command().get_matches();
    let cli = match cli::Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    match cli::run(cli, &matches) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sportz: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}
