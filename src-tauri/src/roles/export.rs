//! `sportz export`: a session in an analyst's format — its recording from the data dir's
//! `recordings/` and its events from the store, joined by the API's exporter
//! (`sportz_api::recording::export`) —, or the list of recordings.

use std::io::Write as _;

use anyhow::Context as _;
use sportz_api::recording::export::{Format, Source, export};
use sportz_contract::{MatchId, SessionId};

use crate::cli::ExportArgs;

/// Runs the export.
///
/// # Errors
/// Unknown ids or format, no recording, or a file that cannot be written.
pub fn run(args: &ExportArgs) -> anyhow::Result<()> {
    let data_dir = args
        .data_dir
        .clone()
        .unwrap_or_else(crate::system::default_data_dir);
    let dir = data_dir.join("recordings");
    let all = sportz_api::recording::list(&dir)
        .with_context(|| format!("cannot read the recordings in {}", dir.display()))?;
    if args.list {
        if all.is_empty() {
            println!("no recordings in {}", dir.display());
        }
        for r in &all {
            let when = sportz_eval::export::utc(
                r.modified
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0.0, |d| d.as_secs_f64()),
            );
            println!(
                "{}  {}  {:>9.1} KiB  last written {when}",
                r.match_id,
                r.session_id,
                r.bytes as f64 / 1024.0
            );
        }
        return Ok(());
    }
    let (Some(m), Some(format), Some(out)) = (&args.match_id, &args.format, &args.out) else {
        anyhow::bail!("--match, --format and --out are needed (or --list)");
    };
    let m: MatchId = m.parse().map_err(|e| anyhow::anyhow!("--match: {e}"))?;
    let format: Format = format
        .parse()
        .map_err(|e: String| anyhow::anyhow!("--format: {e}"))?;
    let session: SessionId = match &args.session {
        Some(s) => s.parse().map_err(|e| anyhow::anyhow!("--session: {e}"))?,
        None => all
            .iter()
            .filter(|r| r.match_id == m)
            .map(|r| r.session_id)
            .max()
            .with_context(|| {
                format!(
                    "no recording of match {m} in {} (sportz export --list shows what there is)",
                    dir.display()
                )
            })?,
    };
    let path = dir.join(sportz_api::recording::file::file_name(m, session));
    anyhow::ensure!(
        path.exists() || matches!(format, Format::EventsCsv | Format::Jsonl),
        "no recording of session {session} of match {m} in {} (sportz export --list shows what there is)",
        dir.display()
    );
    let database = args
        .database
        .clone()
        .unwrap_or_else(|| data_dir.join("sportz.sqlite3").display().to_string());
    let events = crate::process::runtime()?.block_on(async {
        let store = sportz_store::open(&database)
            .await
            .map_err(|e| anyhow::anyhow!("cannot open the store {database}: {e}"))?;
        sportz_api::service::recordings::session_events(store.as_ref(), m, session)
            .await
            .map_err(|e| anyhow::anyhow!("cannot read the events of session {session}: {e}"))
    })?;
    let src = Source {
        match_id: m,
        session_id: session,
        recording: path.exists().then_some(path.as_path()),
        events: &events,
    };
    let opts = sportz_eval::ExportOptions {
        match_id: m.to_string(),
        ..sportz_eval::ExportOptions::default()
    };
    let done = if out.as_os_str() == "-" {
        let stdout = std::io::stdout();
        let mut w = std::io::BufWriter::new(stdout.lock());
        let done = export(&src, format, &opts, &mut w)?;
        w.flush()?;
        done
    } else {
        let f = std::fs::File::create(out)
            .with_context(|| format!("cannot create {}", out.display()))?;
        let mut w = std::io::BufWriter::new(f);
        let done = export(&src, format, &opts, &mut w)
            .with_context(|| format!("cannot write {}", out.display()))?;
        w.flush()?;
        done
    };
    if let Some(why) = &done.damaged {
        say!("warning: {why}; everything before it was exported");
    }
    if done.unreadable > 0 {
        say!(
            "warning: {} recorded lines were not contract messages and were skipped",
            done.unreadable
        );
    }
    say!(
        "exported session {session} of match {m} as {}: {} messages, {} frames, {} events{}",
        format.name(),
        done.messages,
        done.frames,
        done.events,
        if out.as_os_str() == "-" {
            String::new()
        } else {
            format!(" → {}", out.display())
        }
    );
    Ok(())
}
