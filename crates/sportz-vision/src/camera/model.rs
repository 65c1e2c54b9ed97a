//! The pitch markings as the camera code sees them: every line and arc of the 105×68 model,
//! sampled every metre into points with their direction along the marking.

use crate::Point;
use crate::pitch::{
    CIRCLE_R, GA_DEPTH, GA_HALF, LENGTH_M, MID_Y, PA_DEPTH, PA_HALF, SPOT_M, WIDTH_M,
};

/// One sampled point of a pitch marking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineSample {
    /// Metres on the pitch.
    pub pitch: Point,
    /// Unit direction along the marking at this point (metres).
    pub tangent: (f64, f64),
    /// Which marking it belongs to (an index into [`MARKINGS`]' order).
    pub marking: u8,
}

const MID_X: f64 = LENGTH_M / 2.0;

/// A straight marking (two pitch points) or an arc (centre, radius, start and end angle).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Marking {
    Segment(Point, Point),
    Arc {
        centre: Point,
        radius: f64,
        from: f64,
        to: f64,
    },
}

const fn p(x: f64, y: f64) -> Point {
    Point::new(x, y)
}

/// Every marking of the standard pitch.
#[must_use]
pub fn markings() -> Vec<Marking> {
    use Marking::Segment as S;
    let mut m = vec![
        S(p(0.0, 0.0), p(LENGTH_M, 0.0)),
        S(p(0.0, WIDTH_M), p(LENGTH_M, WIDTH_M)),
        S(p(0.0, 0.0), p(0.0, WIDTH_M)),
        S(p(LENGTH_M, 0.0), p(LENGTH_M, WIDTH_M)),
        S(p(MID_X, 0.0), p(MID_X, WIDTH_M)),
    ];
    for (goal, dir) in [(0.0, 1.0), (LENGTH_M, -1.0)] {
        for (depth, half) in [(PA_DEPTH, PA_HALF), (GA_DEPTH, GA_HALF)] {
            let x = goal + dir * depth;
            m.push(S(p(goal, MID_Y - half), p(x, MID_Y - half)));
            m.push(S(p(x, MID_Y - half), p(x, MID_Y + half)));
            m.push(S(p(x, MID_Y + half), p(goal, MID_Y + half)));
        }
        // the penalty arc: the part of the circle around the spot outside the area
        let spot = p(goal + dir * SPOT_M, MID_Y);
        let half_angle = ((PA_DEPTH - SPOT_M) / CIRCLE_R).acos();
        let (from, to) = if dir > 0.0 {
            (-half_angle, half_angle)
        } else {
            (
                std::f64::consts::PI - half_angle,
                std::f64::consts::PI + half_angle,
            )
        };
        m.push(Marking::Arc {
            centre: spot,
            radius: CIRCLE_R,
            from,
            to,
        });
    }
    m.push(Marking::Arc {
        centre: p(MID_X, MID_Y),
        radius: CIRCLE_R,
        from: 0.0,
        to: std::f64::consts::TAU,
    });
    m
}

/// Points every `spacing_m` metres (at least two per marking) along every marking.
#[must_use]
pub fn samples(spacing_m: f64) -> Vec<LineSample> {
    let spacing = spacing_m.max(0.05);
    let mut out = Vec::new();
    for (k, m) in markings().iter().enumerate() {
        let marking = u8::try_from(k).unwrap_or(u8::MAX);
        match *m {
            Marking::Segment(a, b) => {
                let len = a.distance(&b);
                let n = (len / spacing).ceil().max(1.0) as usize;
                let t = ((b.x - a.x) / len, (b.y - a.y) / len);
                for i in 0..=n {
                    let s = i as f64 / n as f64;
                    out.push(LineSample {
                        pitch: p(a.x + (b.x - a.x) * s, a.y + (b.y - a.y) * s),
                        tangent: t,
                        marking,
                    });
                }
            }
            Marking::Arc {
                centre,
                radius,
                from,
                to,
            } => {
                let n = (radius * (to - from).abs() / spacing).ceil().max(2.0) as usize;
                let closed = (to - from - std::f64::consts::TAU).abs() < 1e-9;
                let last = if closed { n - 1 } else { n };
                for i in 0..=last {
                    let a = from + (to - from) * i as f64 / n as f64;
                    out.push(LineSample {
                        pitch: p(centre.x + radius * a.cos(), centre.y + radius * a.sin()),
                        tangent: (-a.sin(), a.cos()),
                        marking,
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_has_every_marking_and_samples_lie_on_them() {
        let m = markings();
        // 4 boundary lines, halfway, 2 × (2 boxes × 3 sides + arc), the centre circle
        assert_eq!(m.len(), 5 + 2 * 7 + 1);
        let s = samples(1.0);
        // 2·105 + 3·68 + 4·16.5 + 2·40.32 + 4·5.5 + 2·18.32 + circle + 2 arcs ≈ 706 m
        assert!((650..800).contains(&s.len()), "{}", s.len());
        for x in &s {
            let t = x.tangent;
            assert!(((t.0 * t.0 + t.1 * t.1) - 1.0).abs() < 1e-9);
            assert!(crate::pitch::is_inside(x.pitch, 1e-9), "{x:?}");
        }
        // the arcs stay outside the penalty areas
        for x in s.iter().filter(|x| {
            let k = x.marking as usize;
            matches!(m[k], Marking::Arc { radius, .. } if radius > 0.0) && k != m.len() - 1
        }) {
            assert!(
                x.pitch.x >= PA_DEPTH - 1e-9 && x.pitch.x <= LENGTH_M - PA_DEPTH + 1e-9,
                "{x:?}"
            );
        }
    }
}
