//! Ball scoring: precision and recall within the pixel tolerance, and the ball's pitch error.

use sportz_contract::FrameData;
use sportz_synth::FrameTruth;

use super::{BallMetrics, EvalOptions, dist, ratio, truth_pitch_to_contract};

pub(super) fn ball(
    truth: &[FrameTruth],
    pred: &[FrameData],
    pairs: &[(usize, usize)],
    opts: &EvalOptions,
) -> BallMetrics {
    let mut m = BallMetrics {
        tolerance_px: opts.ball_tolerance_px,
        truth_visible: 0,
        pred: 0,
        pred_extrapolated: 0,
        recall_hits: 0,
        precision_hits: 0,
        recall: None,
        precision: None,
        pitch_error_m: None,
        pitch_frames: 0,
        pitch_error_air_m: None,
        pitch_frames_air: 0,
    };
    let mut err_sum = 0.0;
    let mut air_err_sum = 0.0;
    for &(i, j) in pairs {
        let tb = &truth[i].ball;
        if tb.visible {
            m.truth_visible += 1;
        }
        let Some(pb) = &pred[j].ball else { continue };
        m.pred += 1;
        m.pred_extrapolated += u64::from(pb.predicted);
        let d = (pb.pixel.x - tb.pixel.x).hypot(pb.pixel.y - tb.pixel.y);
        if d <= opts.ball_tolerance_px + 1e-9 {
            m.precision_hits += 1;
            m.recall_hits += u64::from(tb.visible);
            if let Some(pp) = pb.pitch {
                let err = dist(truth_pitch_to_contract(tb.pitch), pp);
                err_sum += err;
                m.pitch_frames += 1;
                if tb.height_m >= super::BALL_IN_THE_AIR_M {
                    air_err_sum += err;
                    m.pitch_frames_air += 1;
                }
            }
        }
    }
    m.recall = ratio(m.recall_hits, m.truth_visible);
    m.precision = ratio(m.precision_hits, m.pred);
    m.pitch_error_m = (m.pitch_frames > 0).then(|| err_sum / m.pitch_frames as f64);
    m.pitch_error_air_m = (m.pitch_frames_air > 0).then(|| air_err_sum / m.pitch_frames_air as f64);
    m
}
