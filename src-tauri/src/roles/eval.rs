//! `sportz eval`, two modes: a `sportz track` run against the truth of a `sportz synth` match
//! (HOTA, IDF1, ball, pitch error, events), or the detections of `sportz detect` against YOLO
//! labels (AP50, AP50-95, precision and recall per class); a table or JSON. The files are read
//! here, the scoring is `sportz_eval`'s.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use sportz_eval::detection::{
    DetectionOptions, LabelledImage, class_map, class_name, data_yaml_candidates,
    evaluate_detections, parse_data_yaml_names, parse_detections_jsonl, parse_yolo_labels,
};

use crate::cli::EvalArgs;

/// `sportz eval`: the mode the flags choose (clap makes sure one is given whole).
pub fn run(args: &EvalArgs) -> anyhow::Result<()> {
    if let (Some(cams), Some(kps)) = (&args.cameras, &args.keypoints) {
        return keypoints(args, cams, kps);
    }
    let tracking_given = !args.truth.is_empty() || !args.pred.is_empty();
    match (tracking_given, &args.detections, &args.labels) {
        (true, None, None) => tracking_runs(args),
        (false, Some(dets), Some(labels)) => detection(args, dets, labels),
        _ => anyhow::bail!(
            "expected --truth and --pred (tracking), --detections and --labels (detection), or --cameras and --keypoints (cameras on labelled frames)"
        ),
    }
}

/// One run, or several (`--truth`/`--pred` pairs in order) with a summary after their tables.
fn tracking_runs(args: &EvalArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.truth.len() == args.pred.len(),
        "expected one --pred for each --truth, in the same order; got {} --truth and {} --pred",
        args.truth.len(),
        args.pred.len()
    );
    if let [truth] = args.truth.as_slice() {
        let report = tracking(args, truth, &args.pred[0])?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            println!("{}", report.table().trim_end());
        }
        return Ok(());
    }
    anyhow::ensure!(
        args.events.is_none(),
        "--events works with one --truth only (each run's events.json is read from beside its truth)"
    );
    let mut runs = Vec::new();
    for (i, (truth, pred)) in args.truth.iter().zip(&args.pred).enumerate() {
        let report = tracking(args, truth, pred)
            .with_context(|| format!("run {} ({})", i + 1, truth.display()))?;
        if !args.json {
            println!(
                "== run {}: {} vs {}",
                i + 1,
                truth.display(),
                pred.display()
            );
            println!("{}\n", report.table().trim_end());
        }
        runs.push((truth.display().to_string(), report));
    }
    let summary = sportz_eval::summary::summarise(&runs);
    if args.json {
        let reports: Vec<_> = runs
            .iter()
            .zip(&args.pred)
            .map(|((truth, report), pred)| {
                serde_json::json!({"truth": truth, "pred": pred.display().to_string(), "report": report})
            })
            .collect();
        let out = serde_json::json!({"runs": reports, "summary": summary});
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!("== {} runs: mean and worst", runs.len());
        print!("{}", summary.table());
    }
    Ok(())
}

/// Scores a `track` run against a synth match's truth.
fn tracking(
    args: &EvalArgs,
    truth_path: &Path,
    pred_path: &Path,
) -> anyhow::Result<sportz_eval::Report> {
    let frames = sportz_eval::parse_truth_jsonl(
        open_reader(truth_path, "truth")?,
        &truth_path.display().to_string(),
    )?;
    let events_path = args
        .events
        .clone()
        .unwrap_or_else(|| truth_path.with_file_name("events.json"));
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
        say!(
            "note: no {} beside the truth; events are not scored",
            events_path.display()
        );
        sportz_eval::Truth::from_frames(frames)
    };
    // the synth's meta.json beside the truth holds the shirts the kit colours are scored on
    let meta_path = truth_path.with_file_name("meta.json");
    let truth = if meta_path.is_file() {
        let text = std::fs::read_to_string(&meta_path)
            .with_context(|| format!("cannot read {}", meta_path.display()))?;
        truth.with_kits(sportz_eval::parse_meta_kits(
            &text,
            &meta_path.display().to_string(),
        )?)
    } else {
        truth
    };
    let pred = sportz_eval::parse_predictions(
        open_reader(pred_path, "predictions")?,
        &pred_path.display().to_string(),
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
    Ok(sportz_eval::evaluate(&truth, &pred, &options)?)
}

/// Scores `sportz detect` output against a folder of YOLO labels, paired by file stem.
fn detection(args: &EvalArgs, dets_path: &Path, labels_dir: &Path) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.conf.is_finite() && (0.0..=1.0).contains(&args.conf),
        "--conf {}: expected a confidence in 0..1",
        args.conf
    );
    let labels_name = labels_dir.display().to_string();
    anyhow::ensure!(
        labels_dir.is_dir(),
        "no labels folder {labels_name}: expected a folder of YOLO .txt label files named after the images"
    );
    let dets_name = dets_path.display().to_string();
    let dets = parse_detections_jsonl(open_reader(dets_path, "detections")?, &dets_name)?;

    let yaml_path = match &args.data {
        Some(p) => p.clone(),
        None => data_yaml_candidates(labels_dir)
            .into_iter()
            .find(|p| p.is_file())
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "no data.yaml in {labels_name}, beside it or above it: expected one whose `names` list the class ids, or pass --data"
                )
            })?,
    };
    let yaml_name = yaml_path.display().to_string();
    let yaml = std::fs::read_to_string(&yaml_path)
        .with_context(|| format!("cannot read the dataset description {yaml_name}"))?;
    let names = parse_data_yaml_names(&yaml, &yaml_name)?;
    let classes = class_map(&names, &yaml_name)?;
    let mapping: Vec<String> = names
        .iter()
        .zip(&classes)
        .enumerate()
        .map(|(i, (n, c))| format!("{i} {n} → {}", class_name(*c)))
        .collect();
    say!("classes from {yaml_name}: {}", mapping.join(", "));

    let labels = label_files(labels_dir)?;
    let missing: Vec<&(usize, sportz_eval::detection::ImageDetections)> = dets
        .iter()
        .filter(|(_, d)| !labels.contains_key(d.stem()))
        .collect();
    if let Some((line, first)) = missing.first() {
        let what = if missing.len() == dets.len() {
            format!(
                "none of its {} images has a label file in {labels_name}; are these detections of other images?",
                dets.len()
            )
        } else {
            format!(
                "{} of its {} images have no label file",
                missing.len(),
                dets.len()
            )
        };
        anyhow::bail!(
            "{dets_name} line {line}: image `{}` has no label file {}.txt in {labels_name} ({what})",
            first.image,
            first.stem()
        );
    }
    let detected: std::collections::HashSet<&str> = dets.iter().map(|(_, d)| d.stem()).collect();
    let undetected: Vec<&PathBuf> = labels
        .iter()
        .filter(|(stem, _)| !detected.contains(stem.as_str()))
        .map(|(_, p)| p)
        .collect();
    if let Some(first) = undetected.first() {
        anyhow::bail!(
            "{}: no line of {dets_name} is for this image ({} of the {} label files have none; was the image skipped by `sportz detect`, or are the detections of a subset?)",
            first.display(),
            undetected.len(),
            labels.len()
        );
    }

    let mut images = Vec::with_capacity(dets.len());
    for (_, d) in dets {
        let path = &labels[d.stem()];
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the label file {}", path.display()))?;
        let truths = parse_yolo_labels(
            &text,
            &path.display().to_string(),
            &classes,
            d.width,
            d.height,
        )?;
        images.push(LabelledImage {
            detections: d.detections,
            truths,
        });
    }
    anyhow::ensure!(
        args.ignore_under.is_finite() && args.ignore_under >= 0.0,
        "--ignore-under {}: expected a size in pixels, 0 or more",
        args.ignore_under
    );
    let options = DetectionOptions {
        conf: args.conf,
        ignore_under: args.ignore_under,
    };
    let report = evaluate_detections(&images, &options);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("{}", report.table().trim_end());
    }
    Ok(())
}

/// Scores `sportz calibrate` cameras against YOLO-pose pitch keypoint labels (paired by file
/// stem; an image without a label file is reported and left out).
fn keypoints(args: &EvalArgs, cams_path: &Path, labels_dir: &Path) -> anyhow::Result<()> {
    use sportz_eval::keypoints::{ImageCamera, parse_keypoint_label, report, score_image, table};
    use std::io::BufRead as _;
    let labels = label_files(labels_dir)?;
    let cams_name = cams_path.display().to_string();
    let mut scores = Vec::new();
    let mut unlabelled = 0usize;
    for (i, line) in open_reader(cams_path, "cameras")?.lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {cams_name}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let cam: ImageCamera = serde_json::from_str(&line).with_context(|| {
            format!(
                "{cams_name} line {}: expected a `sportz calibrate` line",
                i + 1
            )
        })?;
        let stem = Path::new(&cam.image)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_owned();
        let Some(label) = labels.get(&stem) else {
            say!(
                "{}: no label file {stem}.txt in {}",
                cam.image,
                labels_dir.display()
            );
            unlabelled += 1;
            continue;
        };
        let text = std::fs::read_to_string(label)
            .with_context(|| format!("cannot read {}", label.display()))?;
        let kps = parse_keypoint_label(&text, &label.display().to_string())?;
        scores.push(score_image(&cam, &kps));
    }
    anyhow::ensure!(
        !scores.is_empty(),
        "no camera of {cams_name} has a label file in {} ({unlabelled} without): are these cameras of other images?",
        labels_dir.display()
    );
    let r = report(scores);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        print!("{}", table(&r));
    }
    Ok(())
}

/// The `.txt` files of a labels folder by file stem.
fn label_files(dir: &Path) -> anyhow::Result<BTreeMap<String, PathBuf>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the labels folder {}", dir.display()))?
    {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "txt")
            && let Some(stem) = path.file_stem().and_then(|s| s.to_str())
        {
            out.insert(stem.to_owned(), path.clone());
        }
    }
    anyhow::ensure!(
        !out.is_empty(),
        "{} holds no .txt label files: expected YOLO labels named after the images",
        dir.display()
    );
    Ok(out)
}

fn open_reader(
    path: &std::path::Path,
    what: &str,
) -> anyhow::Result<std::io::BufReader<std::fs::File>> {
    let f = std::fs::File::open(path)
        .with_context(|| format!("cannot read the {what} {}", path.display()))?;
    Ok(std::io::BufReader::new(f))
}
