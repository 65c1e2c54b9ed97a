//! The pitch markings as pitch-space polylines, and the named landmarks a user would click.

use sportz_contract::{PITCH_LENGTH_M as L, PITCH_WIDTH_M as W};

use crate::geom::{V2, v2};

const MID_Y: f64 = W / 2.0;
const PA_HALF: f64 = 20.16;
const PA_DEPTH: f64 = 16.5;
const GA_HALF: f64 = 9.16;
const GA_DEPTH: f64 = 5.5;
const CIRCLE_R: f64 = 9.15;
const SPOT_X: f64 = 11.0;
/// Line width, metres.
pub(crate) const LINE_W: f64 = 0.12;

/// A named landmark (names as in `sportz-vision`'s pitch model).
pub(crate) const LANDMARKS: [(&str, f64, f64); 33] = [
    ("corner_top_left", 0.0, 0.0),
    ("corner_bottom_left", 0.0, W),
    ("corner_top_right", L, 0.0),
    ("corner_bottom_right", L, W),
    ("halfway_top", L / 2.0, 0.0),
    ("halfway_bottom", L / 2.0, W),
    ("centre_spot", L / 2.0, MID_Y),
    ("centre_circle_top", L / 2.0, MID_Y - CIRCLE_R),
    ("centre_circle_bottom", L / 2.0, MID_Y + CIRCLE_R),
    ("centre_circle_left", L / 2.0 - CIRCLE_R, MID_Y),
    ("centre_circle_right", L / 2.0 + CIRCLE_R, MID_Y),
    ("left_penalty_spot", SPOT_X, MID_Y),
    ("right_penalty_spot", L - SPOT_X, MID_Y),
    ("left_penalty_area_top_goal_line", 0.0, MID_Y - PA_HALF),
    ("left_penalty_area_top", PA_DEPTH, MID_Y - PA_HALF),
    ("left_penalty_area_bottom", PA_DEPTH, MID_Y + PA_HALF),
    ("left_penalty_area_bottom_goal_line", 0.0, MID_Y + PA_HALF),
    ("right_penalty_area_top_goal_line", L, MID_Y - PA_HALF),
    ("right_penalty_area_top", L - PA_DEPTH, MID_Y - PA_HALF),
    ("right_penalty_area_bottom", L - PA_DEPTH, MID_Y + PA_HALF),
    ("right_penalty_area_bottom_goal_line", L, MID_Y + PA_HALF),
    ("left_goal_area_top_goal_line", 0.0, MID_Y - GA_HALF),
    ("left_goal_area_top", GA_DEPTH, MID_Y - GA_HALF),
    ("left_goal_area_bottom", GA_DEPTH, MID_Y + GA_HALF),
    ("left_goal_area_bottom_goal_line", 0.0, MID_Y + GA_HALF),
    ("right_goal_area_top_goal_line", L, MID_Y - GA_HALF),
    ("right_goal_area_top", L - GA_DEPTH, MID_Y - GA_HALF),
    ("right_goal_area_bottom", L - GA_DEPTH, MID_Y + GA_HALF),
    ("right_goal_area_bottom_goal_line", L, MID_Y + GA_HALF),
    ("left_goal_post_top", 0.0, MID_Y - 3.66),
    ("left_goal_post_bottom", 0.0, MID_Y + 3.66),
    ("right_goal_post_top", L, MID_Y - 3.66),
    ("right_goal_post_bottom", L, MID_Y + 3.66),
];

/// Every line of the pitch as short straight segments (long lines are cut into ≤ 5 m pieces so
/// that each piece projects well), plus the spots as small discs.
#[derive(Debug, Clone)]
pub(crate) struct Markings {
    pub segments: Vec<(V2, V2)>,
    pub spots: Vec<(V2, f64)>,
}

fn arc(out: &mut Vec<(V2, V2)>, c: V2, r: f64, a0: f64, a1: f64, n: usize) {
    let pt = |a: f64| v2(c.x + r * a.cos(), c.y + r * a.sin());
    for i in 0..n {
        let t0 = a0 + (a1 - a0) * i as f64 / n as f64;
        let t1 = a0 + (a1 - a0) * (i + 1) as f64 / n as f64;
        out.push((pt(t0), pt(t1)));
    }
}

fn line(out: &mut Vec<(V2, V2)>, a: V2, b: V2) {
    let n = (a.dist(b) / 5.0).ceil().max(1.0) as usize;
    for i in 0..n {
        let p = a + (b - a) * (i as f64 / n as f64);
        let q = a + (b - a) * ((i + 1) as f64 / n as f64);
        out.push((p, q));
    }
}

fn rect(out: &mut Vec<(V2, V2)>, x0: f64, y0: f64, x1: f64, y1: f64) {
    line(out, v2(x0, y0), v2(x1, y0));
    line(out, v2(x1, y0), v2(x1, y1));
    line(out, v2(x1, y1), v2(x0, y1));
    line(out, v2(x0, y1), v2(x0, y0));
}

impl Markings {
    pub(crate) fn standard() -> Self {
        use std::f64::consts::{FRAC_PI_2, PI, TAU};
        let mut s = Vec::new();
        rect(&mut s, 0.0, 0.0, L, W);
        line(&mut s, v2(L / 2.0, 0.0), v2(L / 2.0, W));
        arc(&mut s, v2(L / 2.0, MID_Y), CIRCLE_R, 0.0, TAU, 64);
        for left in [true, false] {
            let (gx, sgn) = if left { (0.0, 1.0) } else { (L, -1.0) };
            let pa = gx + sgn * PA_DEPTH;
            let ga = gx + sgn * GA_DEPTH;
            line(&mut s, v2(gx, MID_Y - PA_HALF), v2(pa, MID_Y - PA_HALF));
            line(&mut s, v2(pa, MID_Y - PA_HALF), v2(pa, MID_Y + PA_HALF));
            line(&mut s, v2(pa, MID_Y + PA_HALF), v2(gx, MID_Y + PA_HALF));
            line(&mut s, v2(gx, MID_Y - GA_HALF), v2(ga, MID_Y - GA_HALF));
            line(&mut s, v2(ga, MID_Y - GA_HALF), v2(ga, MID_Y + GA_HALF));
            line(&mut s, v2(ga, MID_Y + GA_HALF), v2(gx, MID_Y + GA_HALF));
            // The penalty arc: the part of the circle around the spot outside the area.
            let half = ((PA_DEPTH - SPOT_X) / CIRCLE_R).acos();
            let spot = v2(gx + sgn * SPOT_X, MID_Y);
            let mid = if left { 0.0 } else { PI };
            arc(&mut s, spot, CIRCLE_R, mid - half, mid + half, 24);
        }
        for (cx, cy, a0) in [
            (0.0, 0.0, 0.0),
            (L, 0.0, FRAC_PI_2),
            (L, W, PI),
            (0.0, W, 3.0 * FRAC_PI_2),
        ] {
            arc(&mut s, v2(cx, cy), 1.0, a0, a0 + FRAC_PI_2, 6);
        }
        let spots = vec![
            (v2(L / 2.0, MID_Y), 0.2),
            (v2(SPOT_X, MID_Y), 0.15),
            (v2(L - SPOT_X, MID_Y), 0.15),
        ];
        Self { segments: s, spots }
    }
}
