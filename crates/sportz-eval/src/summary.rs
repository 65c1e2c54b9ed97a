//! Several runs at once (`sportz eval --truth a --pred p --truth b --pred q …`): the headline
//! figures of each run, their mean and the worst run per figure, as a table or JSON.

use std::fmt::Write as _;

use serde::Serialize;

use crate::Report;

/// Whether more of a figure is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    Higher,
    Lower,
}

/// Reads one figure from a report (`None`: undefined for that run, e.g. no events scored).
pub type Reading = fn(&Report) -> Option<f64>;

/// The figures a summary compares, in column order: name, which way is better, and how to read
/// it from a report.
pub const HEADLINE: [(&str, Better, Reading); 11] = [
    ("HOTA", Better::Higher, |r| Some(r.players.hota)),
    ("AssA", Better::Higher, |r| Some(r.players.ass_a)),
    ("IDF1", Better::Higher, |r| Some(r.players.identity.idf1)),
    ("ID sw", Better::Lower, |r| {
        // a count, exact in f64
        Some(r.players.clear.id_switches as f64)
    }),
    ("ball R", Better::Higher, |r| r.ball.recall),
    ("ball P", Better::Higher, |r| r.ball.precision),
    ("events F1", Better::Higher, |r| {
        r.events.per_kind.last().and_then(|s| s.f1)
    }),
    ("pitch m", Better::Lower, |r| r.players.pitch_error_m),
    ("pitch p95", Better::Lower, |r| r.players.pitch_error_p95_m),
    ("cam ≤1 m", Better::Higher, |r| r.camera.accurate_share),
    ("kit RGB", Better::Lower, |r| {
        // the worse of the two sides
        r.kits.as_ref()?.error.map(|[h, a]| h.max(a))
    }),
];

/// One figure over the runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    pub name: String,
    pub better: Better,
    /// Per run, in order.
    pub values: Vec<Option<f64>>,
    /// Over the runs where it is defined.
    pub mean: Option<f64>,
    /// The worst defined value and the index of its run.
    pub worst: Option<(f64, usize)>,
}

/// The headline figures of several runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub runs: Vec<String>,
    pub figures: Vec<Figure>,
}

/// Mean and worst of each figure; `runs` names the runs (their truth files), `values[r][f]` is
/// figure `f` of run `r` (`names`/`better` describe the figures).
#[must_use]
pub fn summarise_values(
    runs: Vec<String>,
    names: &[(&str, Better)],
    values: &[Vec<Option<f64>>],
) -> Summary {
    let figures = names
        .iter()
        .enumerate()
        .map(|(f, (name, better))| {
            let column: Vec<Option<f64>> = values
                .iter()
                .map(|row| row.get(f).copied().flatten())
                .collect();
            let defined: Vec<(usize, f64)> = column
                .iter()
                .enumerate()
                .filter_map(|(r, v)| v.map(|v| (r, v)))
                .collect();
            // run counts are small
            let mean = (!defined.is_empty())
                .then(|| defined.iter().map(|(_, v)| v).sum::<f64>() / defined.len() as f64);
            let worst = defined
                .iter()
                .copied()
                .reduce(|a, b| {
                    let b_worse = match better {
                        Better::Higher => b.1 < a.1,
                        Better::Lower => b.1 > a.1,
                    };
                    if b_worse { b } else { a }
                })
                .map(|(r, v)| (v, r));
            Figure {
                name: (*name).to_owned(),
                better: *better,
                values: column,
                mean,
                worst,
            }
        })
        .collect();
    Summary { runs, figures }
}

/// [`summarise_values`] of the [`HEADLINE`] figures of each report.
#[must_use]
pub fn summarise(runs: &[(String, Report)]) -> Summary {
    let names: Vec<(&str, Better)> = HEADLINE.iter().map(|(n, b, _)| (*n, *b)).collect();
    let values: Vec<Vec<Option<f64>>> = runs
        .iter()
        .map(|(_, r)| HEADLINE.iter().map(|(_, _, get)| get(r)).collect())
        .collect();
    summarise_values(
        runs.iter().map(|(n, _)| n.clone()).collect(),
        &names,
        &values,
    )
}

impl Summary {
    /// A row per run, then `mean` and `worst` (with the worst run's number).
    #[must_use]
    pub fn table(&self) -> String {
        let cell = |v: Option<f64>, name: &str| match v {
            None => "n/a".to_owned(),
            Some(v) if name == "ID sw" || name == "kit RGB" => format!("{v:.0}"),
            Some(v) if name.starts_with("pitch") => format!("{v:.2}"),
            Some(v) => format!("{v:.3}"),
        };
        let mut out = String::new();
        let _ = write!(out, "{:>5}", "run");
        for f in &self.figures {
            let _ = write!(out, " {:>11}", f.name);
        }
        out.push('\n');
        for r in 0..self.runs.len() {
            let _ = write!(out, "{:>5}", r + 1);
            for f in &self.figures {
                let _ = write!(out, " {:>11}", cell(f.values[r], &f.name));
            }
            out.push('\n');
        }
        let _ = write!(out, "{:>5}", "mean");
        for f in &self.figures {
            let _ = write!(out, " {:>11}", cell(f.mean, &f.name));
        }
        out.push('\n');
        let _ = write!(out, "{:>5}", "worst");
        for f in &self.figures {
            let text = f.worst.map_or_else(
                || "n/a".to_owned(),
                |(v, r)| format!("{} ({})", cell(Some(v), &f.name), r + 1),
            );
            let _ = write!(out, " {text:>11}");
        }
        out.push('\n');
        for (r, name) in self.runs.iter().enumerate() {
            let _ = writeln!(out, "  run {}: {name}", r + 1);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_worst_follow_which_way_is_better() {
        let s = summarise_values(
            vec!["a".into(), "b".into(), "c".into()],
            &[
                ("HOTA", Better::Higher),
                ("ID sw", Better::Lower),
                ("F1", Better::Higher),
            ],
            &[
                vec![Some(0.8), Some(10.0), None],
                vec![Some(0.6), Some(4.0), Some(0.5)],
                vec![Some(0.7), Some(30.0), Some(0.9)],
            ],
        );
        let hota = &s.figures[0];
        assert!((hota.mean.unwrap() - 0.7).abs() < 1e-12);
        assert_eq!(hota.worst, Some((0.6, 1)));
        let sw = &s.figures[1];
        assert!((sw.mean.unwrap() - 44.0 / 3.0).abs() < 1e-12);
        assert_eq!(sw.worst, Some((30.0, 2)));
        // undefined in one run: mean and worst over the others
        let f1 = &s.figures[2];
        assert!((f1.mean.unwrap() - 0.7).abs() < 1e-12);
        assert_eq!(f1.worst, Some((0.5, 1)));
        let table = s.table();
        assert!(table.contains("mean") && table.contains("worst"), "{table}");
        assert!(
            table.contains("0.600 (2)") && table.contains("30 (3)"),
            "{table}"
        );
        assert!(
            table.contains("n/a") && table.contains("run 3: c"),
            "{table}"
        );
    }

    #[test]
    fn nothing_defined_gives_no_mean_and_no_worst() {
        let s = summarise_values(vec!["a".into()], &[("F1", Better::Higher)], &[vec![None]]);
        assert_eq!((s.figures[0].mean, s.figures[0].worst), (None, None));
    }
}
