//! The `sportz` command line names every role and explains itself.

use sportz_e2e::run_sportz;

#[test]
fn help_names_every_role_with_an_example() {
    let out = run_sportz(&["--help"]);
    assert!(out.status.success(), "{out:?}");
    let help = String::from_utf8(out.stdout).unwrap();
    for role in [
        "--headless",
        "api",
        "worker",
        "track",
        "synth",
        "eval",
        "detect",
        "Examples:",
    ] {
        assert!(
            help.contains(role),
            "`sportz --help` does not mention `{role}`:\n{help}"
        );
    }
}

#[test]
fn every_subcommand_has_help_with_an_example() {
    for sub in [
        "api", "worker", "track", "synth", "eval", "detect", "config", "export",
    ] {
        let out = run_sportz(&[sub, "--help"]);
        assert!(out.status.success(), "sportz {sub} --help: {out:?}");
        let help = String::from_utf8(out.stdout).unwrap();
        assert!(
            help.contains("Example:") || help.contains("Examples:"),
            "`sportz {sub} --help` has no example:\n{help}"
        );
        assert!(help.contains(&format!("sportz {sub}")), "{help}");
    }
}

#[test]
fn unknown_arguments_are_refused_with_usage() {
    let out = run_sportz(&["--definitely-not-a-flag"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("Usage:"), "{err}");
}
