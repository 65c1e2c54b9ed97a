//! Configuration layering: a TOML file, then `SPORTZ_*` environment variables, then flags (each
//! later source wins). The file is `--config FILE`, else `$XDG_CONFIG_HOME/sportz/config.toml`
//! (`~/.config/sportz/config.toml`) when it exists. `sportz config` prints the effective
//! configuration with secrets masked.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::ArgMatches;
use clap::parser::ValueSource;
use serde::Deserialize;

use crate::cli::{Cli, Command, SystemArgs};

/// Layers the config file (when there is one) under the environment and the flags of the
/// serving modes (`api`, `config`, and no subcommand).
///
/// # Errors
/// When the file cannot be read or has unknown keys or bad values.
pub fn layer(cli: &mut Cli, matches: &ArgMatches) -> anyhow::Result<()> {
    let Some(file) = path(cli.config.as_deref()) else {
        return Ok(());
    };
    let loaded = load(&file)?;
    match (&mut cli.command, matches.subcommand()) {
        (Some(Command::Api(a) | Command::Config(a)), Some((_, sub))) => apply(a, loaded, sub),
        (None, _) => apply(&mut cli.system, loaded, matches),
        _ => {}
    }
    Ok(())
}

/// The keys a config file may set (the long flag names, with `_`).
#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub bind: Option<SocketAddr>,
    pub redis: Option<String>,
    pub database: Option<String>,
    pub data_dir: Option<PathBuf>,
    pub ui_dir: Option<PathBuf>,
    pub operator_token: Option<String>,
    pub require_viewer_token: Option<bool>,
    pub no_rate_limit: Option<bool>,
    pub no_demo: Option<bool>,
    pub model: Option<PathBuf>,
    pub capacity: Option<u32>,
    pub allow_private_sources: Option<bool>,
    pub recording_days: Option<u32>,
    pub recording_max_gb: Option<f64>,
    pub no_recording: Option<bool>,
    pub viewer_video: Option<crate::cli::ViewerVideoMode>,
}

/// The config file to read: the given one (which must exist), else the default when present.
#[must_use]
pub fn path(given: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = given {
        return Some(p.to_path_buf());
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    let p = base.join("sportz/config.toml");
    p.is_file().then_some(p)
}

/// Reads a config file.
///
/// # Errors
/// When it cannot be read or has an unknown key or a wrongly typed value (the message names it).
pub fn load(path: &Path) -> anyhow::Result<FileConfig> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the config file {}", path.display()))?;
    toml::from_str(&text)
        .map_err(|e| anyhow::anyhow!("invalid config file {}: {e}", path.display()))
}

/// Whether a value came from the command line or the environment (which beat the file).
fn explicit(m: &ArgMatches, id: &str) -> bool {
    matches!(
        m.value_source(id),
        Some(ValueSource::CommandLine | ValueSource::EnvVariable)
    )
}

/// Fills every setting not given by a flag or an environment variable from the file.
pub fn apply(args: &mut SystemArgs, file: FileConfig, m: &ArgMatches) {
    macro_rules! take {
        ($field:ident) => {
            if !explicit(m, stringify!($field)) {
                if let Some(v) = file.$field {
                    args.$field = v.into();
                }
            }
        };
    }
    take!(bind);
    take!(redis);
    take!(database);
    take!(data_dir);
    take!(ui_dir);
    take!(operator_token);
    take!(require_viewer_token);
    take!(no_rate_limit);
    take!(no_demo);
    take!(model);
    take!(capacity);
    take!(allow_private_sources);
    take!(recording_days);
    take!(recording_max_gb);
    take!(no_recording);
    take!(viewer_video);
}

/// Hides a URL's password.
fn mask_url(u: &str) -> String {
    match (u.find("://"), u.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &u[s + 3..at];
            let user = creds.split(':').next().unwrap_or("");
            if creds.contains(':') {
                format!("{}://{user}:***@{}", &u[..s], &u[at + 1..])
            } else {
                u.to_owned()
            }
        }
        _ => u.to_owned(),
    }
}

/// The effective configuration as TOML, secrets masked.
#[must_use]
pub fn render(args: &SystemArgs) -> String {
    let q = |s: &str| format!("{s:?}");
    let opt = |k: &str, v: Option<String>| match v {
        Some(v) => format!("{k} = {v}\n"),
        None => format!("# {k} is not set\n"),
    };
    let mut out = String::new();
    out += &format!("bind = {}\n", q(&args.bind.to_string()));
    out += &opt("redis", args.redis.as_deref().map(|u| q(&mask_url(u))));
    out += &opt(
        "database",
        args.database.as_deref().map(|u| q(&mask_url(u))),
    );
    out += &opt(
        "data_dir",
        args.data_dir.as_ref().map(|p| q(&p.display().to_string())),
    );
    out += &opt(
        "ui_dir",
        args.ui_dir.as_ref().map(|p| q(&p.display().to_string())),
    );
    out += &opt(
        "operator_token",
        args.operator_token.as_ref().map(|_| q("***")),
    );
    out += &format!("require_viewer_token = {}\n", args.require_viewer_token);
    out += &format!("no_rate_limit = {}\n", args.no_rate_limit);
    out += &format!("no_demo = {}\n", args.no_demo);
    out += &opt(
        "model",
        args.model.as_ref().map(|p| q(&p.display().to_string())),
    );
    out += &opt("capacity", args.capacity.map(|c| c.to_string()));
    out += &format!("allow_private_sources = {}\n", args.allow_private_sources);
    out += &format!("recording_days = {}\n", args.recording_days);
    out += &format!("recording_max_gb = {}\n", args.recording_max_gb);
    out += &format!("no_recording = {}\n", args.no_recording);
    out += &format!("viewer_video = {}\n", q(&args.viewer_video.to_string()));
    out
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, FromArgMatches};

    use super::*;
    use crate::cli::Cli;

    fn effective(argv: &[&str], file: &str) -> SystemArgs {
        let m = Cli::command().try_get_matches_from(argv).unwrap();
        let mut cli = Cli::from_arg_matches(&m).unwrap();
        apply(&mut cli.system, toml::from_str(file).unwrap(), &m);
        cli.system
    }

    #[test]
    fn flags_beat_the_file_and_the_file_beats_defaults() {
        let file =
            "bind = \"127.0.0.1:9000\"\nredis = \"redis://h:6379\"\ncapacity = 3\nno_demo = true\n";
        let a = effective(&["sportz", "--headless"], file);
        assert_eq!(a.bind.to_string(), "127.0.0.1:9000");
        assert_eq!(a.redis.as_deref(), Some("redis://h:6379"));
        assert_eq!(a.capacity, Some(3));
        assert!(a.no_demo);
        let b = effective(
            &[
                "sportz",
                "--headless",
                "--bind",
                "0.0.0.0:1234",
                "--capacity",
                "1",
            ],
            file,
        );
        assert_eq!(b.bind.to_string(), "0.0.0.0:1234");
        assert_eq!(b.capacity, Some(1));
        assert_eq!(b.redis.as_deref(), Some("redis://h:6379"));
    }

    #[test]
    fn unknown_keys_and_bad_values_are_named() {
        let e = toml::from_str::<FileConfig>("binds = \"x\"")
            .unwrap_err()
            .to_string();
        assert!(e.contains("binds"), "{e}");
        let e = toml::from_str::<FileConfig>("capacity = \"two\"")
            .unwrap_err()
            .to_string();
        assert!(e.contains("capacity") || e.contains("integer"), "{e}");
    }

    #[test]
    fn secrets_are_masked() {
        let a = effective(
            &[
                "sportz",
                "--headless",
                "--operator-token",
                "s3cret",
                "--database",
                "postgres://u:pw@db/sportz",
                "--redis",
                "redis://:rpw@r:6379",
            ],
            "",
        );
        let text = render(&a);
        assert!(
            !text.contains("s3cret") && !text.contains("pw@") && !text.contains("rpw"),
            "{text}"
        );
        assert!(text.contains("postgres://u:***@db/sportz"), "{text}");
        assert!(text.contains("operator_token = \"***\""), "{text}");
        // the output reads back as a config file
        let back: FileConfig = toml::from_str(&text).unwrap();
        assert_eq!(back.bind, Some(a.bind));
    }
}
