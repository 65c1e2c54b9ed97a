//! Readers for the SoccerTrack ground truth in the shared assets.

#![allow(dead_code, reason = "each test binary uses part of the shared helpers")]

use std::collections::HashMap;
use std::path::Path;

use sportz_vision::pitch::PointPair;
use sportz_vision::{BBox, Point};

/// One object's columns: `(team, player)` and its values per frame.
pub struct Table {
    pub ids: Vec<(u32, u32)>,
    /// `frames[f][object]` = that object's attributes.
    pub frames: Vec<Vec<Vec<f64>>>,
}

/// Reads a SoccerTrack CSV: rows TeamID, PlayerID, Attributes, a `frame` row, then one row a frame;
/// each object spans `width` columns.
pub fn read_table(path: &Path, width: usize) -> Table {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let row = |l: Option<&str>| -> Vec<String> {
        l.unwrap().split(',').skip(1).map(str::to_owned).collect()
    };
    let teams = row(lines.next());
    let players = row(lines.next());
    let _attributes = lines.next();
    let _frame_header = lines.next();
    let ids = (0..teams.len() / width)
        .map(|o| {
            (
                teams[o * width].parse().unwrap(),
                players[o * width].parse().unwrap(),
            )
        })
        .collect();
    let frames = lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let values: Vec<f64> = l.split(',').skip(1).map(|v| v.parse().unwrap()).collect();
            values.chunks(width).map(<[f64]>::to_vec).collect()
        })
        .collect();
    Table { ids, frames }
}

pub fn keypoints(path: &Path) -> Vec<PointPair> {
    let text = std::fs::read_to_string(path).unwrap();
    let map: HashMap<String, [f64; 2]> = serde_json::from_str(&text).unwrap();
    let mut pairs: Vec<PointPair> = map
        .into_iter()
        .map(|(k, [px, py])| {
            let (x, y) = k
                .trim_matches(|c| c == '(' || c == ')')
                .split_once(',')
                .unwrap();
            PointPair {
                image: Point::new(px, py),
                pitch: Point::new(x.trim().parse().unwrap(), y.trim().parse().unwrap()),
            }
        })
        .collect();
    pairs.sort_by(|a, b| {
        (a.pitch.x, a.pitch.y)
            .partial_cmp(&(b.pitch.x, b.pitch.y))
            .unwrap()
    });
    pairs
}

// pixel values fit f32
pub fn bbox(v: &[f64]) -> BBox {
    BBox::from_ltwh(v[0] as f32, v[1] as f32, v[2] as f32, v[3] as f32)
}
