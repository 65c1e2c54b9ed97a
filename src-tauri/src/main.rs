//! `sportz`: one binary, many roles. See `sportz --help`.
//!
//! `main` parses the command line, layers the config file under it, builds the process's one
//! tokio runtime and dispatches: the serving modes start in [`system`] (the desktop in
//! [`desktop`], which hands the same runtime to Tauri), the other roles live in [`roles`].

/// A line on stderr for the person at the terminal (progress, notes, skipped inputs). A closed
/// stderr (`sportz track … 2>&1 | head`, a pager quit early) is ignored: `eprintln!` would panic
/// there and end the analysis with its output half written.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// [`say!`] without the newline (a progress line redrawn with `\r`).
macro_rules! say_inline {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

mod annotate;
mod cli;
mod config;
mod demo;
mod desktop;
mod detector;
mod open_video;
mod overlay;
mod process;
mod replay_overlay;
mod replay_video;
mod roles;
mod system;
mod viewer_video;

use clap::{CommandFactory, FromArgMatches};

use crate::cli::{Cli, Command};
use crate::system::Mode;

fn main() -> std::process::ExitCode {
    let matches = Cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    match run(cli, &matches) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            say!("sportz: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}

/// Runs the chosen role.
fn run(mut cli: Cli, matches: &clap::ArgMatches) -> anyhow::Result<()> {
    config::layer(&mut cli, matches)?;
    match cli.command {
        Some(Command::Config(args)) => {
            print!("{}", config::render(&args));
            Ok(())
        }
        Some(Command::Synth(args)) => roles::synth::run(&args),
        Some(Command::Eval(args)) => roles::eval::run(&args),
        Some(Command::Export(args)) => roles::export::run(&args),
        Some(Command::Detect(args)) => {
            process::init_logs("warn");
            roles::detect::run(&args)
        }
        Some(Command::Calibrate(args)) => {
            process::init_logs("warn");
            roles::calibrate::run(&args)
        }
        // results go to stdout, logs to stderr: `track` only says what goes wrong
        Some(Command::Track(args)) => on_runtime("warn", roles::track::run(&args)),
        Some(Command::Worker(args)) => on_runtime("info", roles::worker::run(args)),
        Some(Command::Api(args)) => {
            on_runtime("info", system::serve_until_signal(args, Mode::ApiOnly))
        }
        None if cli.headless => on_runtime(
            "info",
            system::serve_until_signal(cli.system, Mode::Headless),
        ),
        None => {
            process::init_logs("info");
            desktop::run(cli.system, &process::runtime()?)
        }
    }
}

/// Runs `role` on the process's runtime, logging at `logs` unless `SPORTZ_LOG` says otherwise.
fn on_runtime(
    logs: &str,
    role: impl std::future::Future<Output = anyhow::Result<()>>,
) -> anyhow::Result<()> {
    process::init_logs(logs);
    process::runtime()?.block_on(role)
}
