//! `sportz synth`: renders a synthetic broadcast match (H.264) with exact ground truth into a
//! folder, with a progress line on stderr.

/// `sportz synth`: renders a synthetic match with its ground truth into a folder.
pub fn run(args: &crate::cli::SynthArgs) -> anyhow::Result<()> {
    let cfg = sportz_synth::SynthConfig {
        width: args.size.0,
        height: args.size.1,
        fps: args.fps,
        duration_secs: args.seconds,
        scoreboard: !args.no_scoreboard,
        motion_blur: args.motion_blur,
        noise: args.noise,
        cuts: !args.no_cuts,
        one_kit: args.one_kit,
        ball: !args.no_ball,
    };
    let started = std::time::Instant::now();
    let mut last_print = std::time::Instant::now();
    let summary = sportz_synth::write_match(&cfg, args.seed, &args.out, |p| {
        if last_print.elapsed().as_millis() >= 500 || p.frames_done == p.frames_total {
            last_print = std::time::Instant::now();
            let fps = p.frames_done as f64 / started.elapsed().as_secs_f64().max(1e-9);
            let eta = (p.frames_total - p.frames_done) as f64 / fps.max(1e-9);
            say_inline!(
                "\rrendering {}/{} frames  {fps:5.1} fps  ETA {eta:4.0} s ",
                p.frames_done,
                p.frames_total
            );
        }
    })
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    say!();
    println!(
        "wrote {} frames ({} v {}, final score {}-{}, {} goals, {} events) to {}",
        summary.frames,
        summary.home,
        summary.away,
        summary.final_score.home,
        summary.final_score.away,
        summary.goals,
        summary.events,
        args.out.display()
    );
    println!(
        "  video {}\n  truth {}\n  events {}\n  calibration {}",
        summary.video.display(),
        summary.truth.display(),
        summary.events_file.display(),
        summary.calibration.display()
    );
    Ok(())
}
