//! The pitch: a 105×68 model with named landmarks, homographies fitted from point pairs
//! (normalised DLT; RANSAC when more than four are given), and pixel → metre mapping.
//!
//! Pitch coordinates are metres with the origin at a corner, x along the length (0..=105) and y
//! across (0..=68); the left goal is on x = 0, the right one on x = 105, both centred on y = 34.
//!
//! This file holds the model (landmarks, bounds, errors); `homography` the map and its fitting,
//! `calibration` the fitted image ↔ pitch mapping, `ransac` the outlier-robust pair selection.

use thiserror::Error;

use crate::Point;

mod calibration;
mod homography;
mod ransac;

pub use calibration::{Calibration, PointPair, ReprojectionError};
pub use homography::{Homography, fit_dlt, fit_homography};
pub(crate) use homography::{mul3, solve};
pub use ransac::RansacConfig;

/// Pitch length (x), metres.
pub const LENGTH_M: f64 = sportz_contract::PITCH_LENGTH_M;
/// Pitch width (y), metres.
pub const WIDTH_M: f64 = sportz_contract::PITCH_WIDTH_M;
/// Half the distance between the goal posts, metres (the goal is 7.32 m wide).
pub const GOAL_HALF_WIDTH_M: f64 = 3.66;

/// A named point of the pitch markings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Landmark {
    pub name: &'static str,
    pub pitch: Point,
}

const fn lm(name: &'static str, x: f64, y: f64) -> Landmark {
    Landmark {
        name,
        pitch: Point::new(x, y),
    }
}

pub(crate) const MID_Y: f64 = WIDTH_M / 2.0;
/// Penalty area: 40.32 m wide, 16.5 m deep.
pub(crate) const PA_HALF: f64 = 20.16;
pub(crate) const PA_DEPTH: f64 = 16.5;
/// Goal area: 18.32 m wide, 5.5 m deep.
pub(crate) const GA_HALF: f64 = 9.16;
pub(crate) const GA_DEPTH: f64 = 5.5;
/// Centre circle and penalty arcs.
pub(crate) const CIRCLE_R: f64 = 9.15;
/// Penalty spot, from the goal line.
pub(crate) const SPOT_M: f64 = 11.0;

/// Every landmark of the standard pitch ("top" is y = 0, "left" is x = 0).
pub const LANDMARKS: [Landmark; 33] = [
    lm("corner_top_left", 0.0, 0.0),
    lm("corner_bottom_left", 0.0, WIDTH_M),
    lm("corner_top_right", LENGTH_M, 0.0),
    lm("corner_bottom_right", LENGTH_M, WIDTH_M),
    lm("halfway_top", LENGTH_M / 2.0, 0.0),
    lm("halfway_bottom", LENGTH_M / 2.0, WIDTH_M),
    lm("centre_spot", LENGTH_M / 2.0, MID_Y),
    lm("centre_circle_top", LENGTH_M / 2.0, MID_Y - CIRCLE_R),
    lm("centre_circle_bottom", LENGTH_M / 2.0, MID_Y + CIRCLE_R),
    lm("centre_circle_left", LENGTH_M / 2.0 - CIRCLE_R, MID_Y),
    lm("centre_circle_right", LENGTH_M / 2.0 + CIRCLE_R, MID_Y),
    lm("left_penalty_spot", SPOT_M, MID_Y),
    lm("right_penalty_spot", LENGTH_M - SPOT_M, MID_Y),
    lm("left_penalty_area_top_goal_line", 0.0, MID_Y - PA_HALF),
    lm("left_penalty_area_top", PA_DEPTH, MID_Y - PA_HALF),
    lm("left_penalty_area_bottom", PA_DEPTH, MID_Y + PA_HALF),
    lm("left_penalty_area_bottom_goal_line", 0.0, MID_Y + PA_HALF),
    lm(
        "right_penalty_area_top_goal_line",
        LENGTH_M,
        MID_Y - PA_HALF,
    ),
    lm(
        "right_penalty_area_top",
        LENGTH_M - PA_DEPTH,
        MID_Y - PA_HALF,
    ),
    lm(
        "right_penalty_area_bottom",
        LENGTH_M - PA_DEPTH,
        MID_Y + PA_HALF,
    ),
    lm(
        "right_penalty_area_bottom_goal_line",
        LENGTH_M,
        MID_Y + PA_HALF,
    ),
    lm("left_goal_area_top_goal_line", 0.0, MID_Y - GA_HALF),
    lm("left_goal_area_top", GA_DEPTH, MID_Y - GA_HALF),
    lm("left_goal_area_bottom", GA_DEPTH, MID_Y + GA_HALF),
    lm("left_goal_area_bottom_goal_line", 0.0, MID_Y + GA_HALF),
    lm("right_goal_area_top_goal_line", LENGTH_M, MID_Y - GA_HALF),
    lm("right_goal_area_top", LENGTH_M - GA_DEPTH, MID_Y - GA_HALF),
    lm(
        "right_goal_area_bottom",
        LENGTH_M - GA_DEPTH,
        MID_Y + GA_HALF,
    ),
    lm(
        "right_goal_area_bottom_goal_line",
        LENGTH_M,
        MID_Y + GA_HALF,
    ),
    lm("left_goal_post_top", 0.0, MID_Y - GOAL_HALF_WIDTH_M),
    lm("left_goal_post_bottom", 0.0, MID_Y + GOAL_HALF_WIDTH_M),
    lm("right_goal_post_top", LENGTH_M, MID_Y - GOAL_HALF_WIDTH_M),
    lm(
        "right_goal_post_bottom",
        LENGTH_M,
        MID_Y + GOAL_HALF_WIDTH_M,
    ),
];

/// The landmark called `name`.
pub fn landmark(name: &str) -> Result<Point, PitchError> {
    LANDMARKS
        .iter()
        .find(|l| l.name == name)
        .map(|l| l.pitch)
        .ok_or_else(|| PitchError::UnknownLandmark(name.to_owned()))
}

/// Whether a pitch point lies inside the lines, with `margin_m` of slack.
#[must_use]
pub fn is_inside(p: Point, margin_m: f64) -> bool {
    (-margin_m..=LENGTH_M + margin_m).contains(&p.x)
        && (-margin_m..=WIDTH_M + margin_m).contains(&p.y)
}

/// Whether a ground reading `p` (a point seen through the ground homography) is surely beyond a
/// line by `margin_m`, whatever the height of what was seen: a thing above the ground is read
/// farther from the camera than it stands (on the ground, the ray through it goes on past it),
/// so it stands on the segment from the camera's place on the ground (`camera`) to `p`. Beyond
/// a line both ends of it are (the region beyond a line is a half-plane) only when the camera
/// stands beyond that line too — a main camera behind the near touchline sees a ball beyond
/// that line surely out, but one read beyond the far touchline may be in the air above the
/// pitch.
#[must_use]
pub fn surely_beyond_a_line(p: Point, camera: Point, margin_m: f64) -> bool {
    (p.x < -margin_m && camera.x < 0.0)
        || (p.x > LENGTH_M + margin_m && camera.x > LENGTH_M)
        || (p.y < -margin_m && camera.y < 0.0)
        || (p.y > WIDTH_M + margin_m && camera.y > WIDTH_M)
}

/// Why a homography cannot be built.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PitchError {
    #[error("need at least 4 point pairs, got {0}")]
    TooFewPairs(usize),
    #[error("point pair {0} is not finite")]
    NotFinite(usize),
    #[error("{space} points {a} and {b} coincide, expected distinct points")]
    Duplicate {
        space: &'static str,
        a: usize,
        b: usize,
    },
    #[error("{space} points {detail} are collinear, expected no three of four on a line")]
    Collinear { space: &'static str, detail: String },
    #[error("all {space} points lie on one line, expected them spread over the plane")]
    AllCollinear { space: &'static str },
    #[error("the point pairs do not determine a unique homography (rank-deficient system)")]
    RankDeficient,
    #[error("the homography is singular or not finite, expected an invertible matrix")]
    Singular,
    #[error(
        "ransac found no model with at least 4 inliers within {threshold_m} m among {pairs} pairs"
    )]
    NoConsensus { threshold_m: f64, pairs: usize },
    #[error("unknown landmark `{0}`")]
    UnknownLandmark(String),
}

#[cfg(test)]
mod tests;
