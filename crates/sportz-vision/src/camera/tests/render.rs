//! Test frames: a broadcast camera's view of a grass pitch with its white lines, rendered by
//! casting each pixel's ray onto the ground (exact truth for the camera code's tests).

use crate::Point;
use crate::camera::broadcast::BroadcastCamera;
use crate::camera::model::{Marking, markings};

/// Distance from `p` to a marking, metres.
fn distance(m: &Marking, p: Point) -> f64 {
    match *m {
        Marking::Segment(a, b) => {
            let (dx, dy) = (b.x - a.x, b.y - a.y);
            let t = (((p.x - a.x) * dx + (p.y - a.y) * dy) / (dx * dx + dy * dy)).clamp(0.0, 1.0);
            p.distance(&Point::new(a.x + t * dx, a.y + t * dy))
        }
        Marking::Arc {
            centre,
            radius,
            from,
            to,
        } => {
            let mut a = (p.y - centre.y).atan2(p.x - centre.x);
            while a < from {
                a += std::f64::consts::TAU;
            }
            while a > from + std::f64::consts::TAU {
                a -= std::f64::consts::TAU;
            }
            if a <= to {
                (p.distance(&centre) - radius).abs()
            } else {
                let end =
                    |t: f64| Point::new(centre.x + radius * t.cos(), centre.y + radius * t.sin());
                p.distance(&end(from)).min(p.distance(&end(to)))
            }
        }
    }
}

fn hash(x: i64, y: i64) -> u32 {
    let mut h = (x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (y as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    h ^= h >> 29;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (h >> 40) as u32
}

/// Smooth noise fixed to the ground (bilinear between hashed lattice values), −14..14.
fn value_noise(x: f64, y: f64) -> i32 {
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let v = |i: f64, j: f64| f64::from(hash(i as i64, j as i64) % 29) - 14.0;
    let top = v(x0, y0) * (1.0 - fx) + v(x0 + 1.0, y0) * fx;
    let bot = v(x0, y0 + 1.0) * (1.0 - fx) + v(x0 + 1.0, y0 + 1.0) * fx;
    (top * (1.0 - fy) + bot * fy).round() as i32
}

/// Options of a rendered frame.
#[derive(Debug, Clone, Copy)]
pub struct Look {
    /// Grey level of the stands (above the pitch surround).
    pub stands: u8,
    /// A dark scoreboard band over the top-left corner.
    pub scoreboard: bool,
    /// The colour of the painted lines.
    pub line: [u8; 3],
}

impl Default for Look {
    fn default() -> Self {
        Self {
            stands: 70,
            scoreboard: true,
            line: [225, 228, 225],
        }
    }
}

/// The RGB frame `cam` sees: grass with mowing stripes and grain (fixed to the ground, so it
/// moves with the camera), white lines 0.12 m wide, darker surround, grey stands.
#[must_use]
pub fn render(cam: &BroadcastCamera, look: Look) -> Vec<u8> {
    let (w, h) = (cam.width as usize, cam.height as usize);
    let mut out = vec![0u8; w * h * 3];
    let marks = markings();
    let inv = cam.image_from_pitch().unwrap().inverse().unwrap();
    for y in 0..h {
        for x in 0..w {
            let px = Point::new(x as f64 + 0.5, y as f64 + 0.5);
            let rgb: [u8; 3] = if !cam.ray_hits_ground(px) {
                [look.stands, look.stands, look.stands + 10]
            } else {
                let g = inv.apply(px).unwrap_or(Point::new(1e9, 1e9));
                if g.x < -8.0 || g.x > 113.0 || g.y < -8.0 || g.y > 76.0 {
                    [look.stands, look.stands, look.stands + 10]
                } else {
                    let stripe = ((g.x / 5.25).floor() as i64).rem_euclid(2) == 0;
                    let grain = value_noise(g.x * 1.5, g.y * 1.5);
                    let base: [i32; 3] = if stripe { [52, 128, 50] } else { [44, 112, 44] };
                    // a line at least a pixel wide (a real sensor integrates the thin far lines)
                    let foot = inv
                        .apply(Point::new(px.x, px.y + 1.0))
                        .map_or(0.0, |q| q.distance(&g))
                        .max(
                            inv.apply(Point::new(px.x + 1.0, px.y))
                                .map_or(0.0, |q| q.distance(&g)),
                        );
                    let half = 0.06_f64.max(0.5 * foot);
                    let on_line = marks.iter().any(|m| distance(m, g) <= half);
                    if on_line {
                        look.line
                    } else {
                        base.map(|c| (c + grain).clamp(0, 255) as u8)
                    }
                }
            };
            let i = (y * w + x) * 3;
            out[i..i + 3].copy_from_slice(&rgb);
        }
    }
    if look.scoreboard {
        for y in h / 30..h / 30 + h / 14 {
            for x in w / 30..w / 30 + w / 5 {
                let i = (y * w + x) * 3;
                let v = if (x / 7 + y / 5) % 3 == 0 { 240 } else { 20 };
                out[i..i + 3].copy_from_slice(&[v, v, v]);
            }
        }
    }
    out
}

/// What a perfect line model would say of `cam`'s view: probability 1 in every 2×2 cell a
/// marking passes through (sampled every 2 cm), 0 elsewhere.
#[must_use]
pub fn truth_line_map(cam: &BroadcastCamera) -> crate::image::LineMap {
    let (gw, gh) = (cam.width as usize / 2, cam.height as usize / 2);
    let mut prob = vec![0.0_f32; gw * gh];
    for s in crate::camera::model::samples(0.02) {
        let Some(p) = cam.project(s.pitch) else {
            continue;
        };
        if !cam.ray_hits_ground(p) || p.x < 0.0 || p.y < 0.0 {
            continue;
        }
        let (i, j) = ((p.x / 2.0) as usize, (p.y / 2.0) as usize);
        if i < gw && j < gh {
            prob[j * gw + i] = 1.0;
        }
    }
    crate::image::LineMap::new(gw, gh, prob, cam.width, cam.height).unwrap()
}
