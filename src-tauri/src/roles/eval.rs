//! `sportz eval`: scores a `sportz track` run against the truth of a `sportz synth` match
//! (HOTA, IDF1, ball, pitch error, events) as a table or JSON.

use anyhow::Context as _;

/// `sportz eval`: scores a `track` run against a synth match's truth.
pub fn run(args: &crate::cli::EvalArgs) -> anyhow::Result<()> {
    let frames = sportz_eval::parse_truth_jsonl(
        open_reader(&args.truth, "truth")?,
        &args.truth.display().to_string(),
    )?;
    let events_path = args
        .events
        .clone()
        .unwrap_or_else(|| args.truth.with_file_name("events.json"));
    let truth = if events_path.is_file() {
        let text = std::fs::read_to_string(&events_path)
            .with_context(|| format!("cannot read {}", events_path.display()))?;
        let events = sportz_eval::parse_events_json(&text, &events_path.display().to_string())?;
        sportz_eval::Truth::new(frames, events)
    } else {
        anyhow::ensure!(
            args.events.is_none(),
            "no such events file {}",
            events_path.display()
        );
        eprintln!(
            "note: no {} beside the truth; events are not scored",
            events_path.display()
        );
        sportz_eval::Truth::from_frames(frames)
    };
    let pred = sportz_eval::parse_predictions(
        open_reader(&args.pred, "predictions")?,
        &args.pred.display().to_string(),
    )?;
    let options = sportz_eval::EvalOptions {
        event_tolerance_s: args.event_tolerance,
        ball_tolerance_px: args.ball_tolerance,
        alignment: args
            .align
            .parse()
            .map_err(|e| anyhow::anyhow!("--align: {e}"))?,
        ..sportz_eval::EvalOptions::default()
    };
    let report = sportz_eval::evaluate(&truth, &pred, &options)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("{}", report.table().trim_end());
    }
    Ok(())
}

fn open_reader(
    path: &std::path::Path,
    what: &str,
) -> anyhow::Result<std::io::BufReader<std::fs::File>> {
    let f = std::fs::File::open(path)
        .with_context(|| format!("cannot read the {what} {}", path.display()))?;
    Ok(std::io::BufReader::new(f))
}
