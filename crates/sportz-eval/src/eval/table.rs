//! [`Report::table`]: the report as readable, aligned text tables.

use std::fmt::Write as _;

use super::{FrameAlignment, Report};

fn opt3(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.3}"))
}

/// Rows of cells, each column right-aligned to its widest cell (the first one left-aligned when
/// `label_column`).
pub(crate) fn grid_with(rows: &[Vec<String>], label_column: bool) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        out.push_str("  ");
        for (c, cell) in r.iter().enumerate() {
            if c == 0 && label_column {
                let _ = write!(out, "{cell:<w$}", w = widths[0]);
            } else if c == 0 {
                let _ = write!(out, "{cell:>w$}", w = widths[0]);
            } else {
                let _ = write!(out, "  {cell:>w$}", w = widths[c]);
            }
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
    }
    out
}

fn grid(rows: &[Vec<String>]) -> String {
    grid_with(rows, false)
}

fn s<T: ToString>(v: T) -> String {
    v.to_string()
}

impl Report {
    /// A readable, aligned table.
    #[must_use]
    pub fn table(&self) -> String {
        let mut out = String::new();
        let f = &self.frames;
        let _ = writeln!(out, "frames");
        out.push_str(&grid(&[
            vec![
                s("truth"),
                s("predicted"),
                s("evaluated"),
                s("unaligned"),
                s("aligned by"),
            ],
            vec![
                s(f.truth_frames),
                s(f.pred_frames),
                s(f.evaluated_frames),
                s(f.pred_frames_unaligned),
                s(match f.alignment {
                    FrameAlignment::Timestamp => "timestamp",
                    FrameAlignment::FrameNumber => "frame_number",
                }),
            ],
        ]));
        let p = &self.players;
        let _ = writeln!(out, "\nplayers");
        out.push_str(&grid(&[
            vec![
                s("truth objects"),
                s("truth ids"),
                s("predicted"),
                s("pred ids"),
                s("ignored preds"),
            ],
            vec![
                s(p.truth_objects),
                s(p.truth_ids),
                s(p.pred_objects),
                s(p.pred_ids),
                s(p.pred_ignored),
            ],
        ]));
        let x3 = |v: f64| format!("{v:.3}");
        out.push_str(&grid(&[
            vec![
                s("HOTA"),
                s("DetA"),
                s("AssA"),
                s("LocA"),
                s("DetRe"),
                s("DetPr"),
                s("AssRe"),
                s("AssPr"),
            ],
            vec![
                x3(p.hota),
                x3(p.det_a),
                x3(p.ass_a),
                x3(p.loc_a),
                x3(p.det_re),
                x3(p.det_pr),
                x3(p.ass_re),
                x3(p.ass_pr),
            ],
        ]));
        out.push_str(&grid(&[
            vec![
                s("IDF1"),
                s("IDP"),
                s("IDR"),
                s("MOTA"),
                s("MOTP"),
                s("ID switches"),
                s("pitch error"),
            ],
            vec![
                x3(p.identity.idf1),
                x3(p.identity.idp),
                x3(p.identity.idr),
                x3(p.clear.mota),
                x3(p.clear.motp),
                s(p.clear.id_switches),
                p.pitch_error_m.map_or_else(
                    || "n/a".to_owned(),
                    |e| {
                        let p95 = p.pitch_error_p95_m.unwrap_or(e);
                        format!("{e:.2} m, p95 {p95:.2} m ({} pairs)", p.pitch_pairs)
                    },
                ),
            ],
        ]));
        let b = &self.ball;
        let _ = writeln!(out, "\nball (within {} px)", b.tolerance_px);
        out.push_str(&grid(&[
            vec![
                s("truth visible"),
                s("predicted"),
                s("extrapolated"),
                s("recall"),
                s("precision"),
                s("pitch error"),
            ],
            vec![
                s(b.truth_visible),
                s(b.pred),
                s(b.pred_extrapolated),
                opt3(b.recall),
                opt3(b.precision),
                b.pitch_error_m.map_or_else(
                    || "n/a".to_owned(),
                    |e| {
                        let air = b.pitch_error_air_m.map_or_else(String::new, |a| {
                            format!("; in the air {a:.2} m, {}", b.pitch_frames_air)
                        });
                        format!("{e:.2} m ({} frames{air})", b.pitch_frames)
                    },
                ),
            ],
        ]));
        let e = &self.events;
        let _ = writeln!(out, "\nevents (within {} s)", e.tolerance_s);
        let mut rows = vec![vec![
            s("kind"),
            s("truth"),
            s("pred"),
            s("matched"),
            s("precision"),
            s("recall"),
            s("F1"),
        ]];
        for k in &e.per_kind {
            rows.push(vec![
                k.kind.clone(),
                s(k.truth),
                s(k.pred),
                s(k.matched),
                opt3(k.precision),
                opt3(k.recall),
                opt3(k.f1),
            ]);
        }
        out.push_str(&grid_with(&rows, true));
        let nc = &e.not_comparable;
        let list = |v: &[String]| {
            if v.is_empty() {
                "none".to_owned()
            } else {
                v.join(", ")
            }
        };
        let _ = writeln!(
            out,
            "  not comparable: truth only {}; predictions only {}",
            list(&nc.truth_only),
            list(&nc.pred_only)
        );
        if e.truth_outside_span > 0 {
            let _ = writeln!(
                out,
                "  {} true events lie outside the evaluated frames and were not scored",
                e.truth_outside_span
            );
        }
        let c = &self.camera;
        let _ = writeln!(
            out,
            "\ncamera (predicted image_to_pitch against the truth camera, pitch grid every {} m)",
            c.grid_step_m
        );
        let share = |v: Option<f64>, n: u64| {
            v.map_or_else(|| "n/a".to_owned(), |v| format!("{:.1} % ({n})", v * 100.0))
        };
        let metres = |v: Option<f64>| v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.2} m"));
        out.push_str(&grid(&[
            vec![
                s("pitch-visible frames"),
                s("calibrated"),
                s("mean error"),
                s("p95 error"),
                format!("within {} m", c.accurate_within_m),
            ],
            vec![
                s(c.pitch_visible_frames),
                share(c.calibrated_share, c.calibrated_frames),
                metres(c.mean_error_m),
                metres(c.p95_error_m),
                share(c.accurate_share, c.accurate_frames),
            ],
        ]));
        out.push_str(&grid(&[
            vec![
                s("close-up frames"),
                s("given a camera"),
                s("cut frames"),
                s("in pixel mode"),
            ],
            vec![
                s(c.no_pitch_frames),
                share(c.no_pitch_with_camera_share, c.no_pitch_with_camera),
                s(c.cut_frames),
                share(c.cut_pixel_mode_share, c.cut_frames_pixel_mode),
            ],
        ]));
        if let Some(k) = &self.kits {
            let _ = writeln!(
                out,
                "\nkits (published colour of the last frame against the true shirt)"
            );
            let published = |i: usize| {
                k.published
                    .as_ref()
                    .map_or_else(|| s("none"), |p| p[i].clone())
            };
            let error = |i: usize| k.error.map_or_else(|| s("n/a"), |e| format!("{:.0}", e[i]));
            out.push_str(&grid(&[
                vec![
                    s("side"),
                    s("true shirt"),
                    s("published"),
                    s("RGB distance"),
                    s("frames with kits"),
                ],
                vec![
                    s("home"),
                    k.truth[0].clone(),
                    published(0),
                    error(0),
                    format!("{} of {}", k.frames_with_kits, k.frames),
                ],
                vec![
                    s("away"),
                    k.truth[1].clone(),
                    published(1),
                    error(1),
                    String::new(),
                ],
            ]));
        }
        out
    }
}
