//! Helpers for the end-to-end tests in `tests/tests/`: finding the built `sportz` binary and
//! running it as a user would.

use std::path::PathBuf;
use std::process::{Command, Output};

/// The `sportz` binary of this build (`target/<profile>/sportz`), built by `cargo build --bins`
/// (the README test command does that before running tests).
///
/// # Panics
/// When the binary is missing, with the command that builds it.
#[must_use]
pub fn sportz_bin() -> PathBuf {
    // test executables live in target/<profile>/deps/
    let exe = std::env::current_exe().expect("the test binary knows its path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("test binaries live in target/<profile>/deps");
    let bin = profile_dir.join(format!("sportz{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: build it first with `cargo build -p sportz`",
        bin.display()
    );
    bin
}

/// Runs `sportz` with arguments and returns its output.
///
/// # Panics
/// When the process cannot be started.
#[must_use]
pub fn run_sportz(args: &[&str]) -> Output {
    Command::new(sportz_bin())
        .args(args)
        .env_remove("DISPLAY")
        .output()
        .expect("sportz starts")
}
