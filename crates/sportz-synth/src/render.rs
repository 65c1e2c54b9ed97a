//! Draws one frame of the match: grass, lines, boards and stands, goals, shadows, players,
//! referee and ball (far to near, so nearer figures occlude farther ones), and the scoreboard.
//! Pure: plain data in, pixels and per-object coverage out.

use sportz_contract::PITCH_LENGTH_M as L;

use crate::geom::{Camera, V2, v3};
use crate::pitch::Markings;
use crate::raster::{Canvas, Coverage, Paint};
use crate::sim::Sim;

// The renderer's parts live in sibling files (`render_*.rs`, not a `render/` folder) so that the
// purity test, which reads `src/*.rs`, checks them too.
#[path = "render_figures.rs"]
mod figures;
#[path = "render_palette.rs"]
mod palette;
#[path = "render_scoreboard.rs"]
mod scoreboard;
#[path = "render_stadium.rs"]
mod stadium;

use figures::{draw_ball, draw_person, shadow};
pub(crate) use palette::{Palette, REFEREE_SHIRT};
use scoreboard::draw_scoreboard;
pub(crate) use stadium::grain_tile;
use stadium::{boards, goal, ground, lines};

pub(crate) const BALL_ID: u16 = 24;
/// What drawing one person or the ball covered.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Drawn {
    pub cov: Coverage,
    /// Unclipped extent of the drawn shapes, `[x1, y1, x2, y2]`.
    pub full: [f64; 4],
}

#[derive(Debug)]
struct Shapes<'a> {
    canvas: &'a mut Canvas,
    id: u16,
    drawn: Drawn,
}

impl Shapes<'_> {
    fn fill(&mut self, poly: &[V2], colour: [u8; 3]) {
        for p in poly {
            let f = &mut self.drawn.full;
            f[0] = f[0].min(p.x);
            f[1] = f[1].min(p.y);
            f[2] = f[2].max(p.x);
            f[3] = f[3].max(p.y);
        }
        self.canvas.fill_convex(
            poly,
            Paint::Solid(colour),
            self.id,
            Some(&mut self.drawn.cov),
        );
    }
}

fn empty_drawn() -> Drawn {
    Drawn {
        cov: Coverage::default(),
        full: [
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ],
    }
}

/// What is drawn besides the pitch and the people.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layers {
    pub scoreboard: bool,
    pub ball: bool,
}

/// Renders the scene of `sim` through `cam`. Returns what each person (index order) and the
/// ball covered.
pub(crate) fn render(
    canvas: &mut Canvas,
    sim: &Sim,
    cam: &Camera,
    palette: &Palette,
    marks: &Markings,
    grain: &[u8],
    layers: Layers,
) -> (Vec<Drawn>, Drawn) {
    canvas.clear_ids();
    ground(canvas, cam, grain, palette.grass);
    lines(canvas, cam, marks);
    boards(canvas, cam);
    for p in &sim.people {
        shadow(
            canvas,
            cam,
            palette.sun,
            p.pos,
            0.85 * p.height_m / 1.8,
            0.28,
        );
    }
    let b = &sim.ball;
    if layers.ball {
        shadow(
            canvas,
            cam,
            palette.sun,
            b.pos + palette.sun * (b.h * 0.5),
            0.14 + b.h * 0.02,
            0.13 + b.h * 0.01,
        );
    }
    for gx in [0.0, L] {
        goal(canvas, cam, gx);
    }
    // Far to near.
    let mut order: Vec<(f64, usize)> = sim
        .people
        .iter()
        .enumerate()
        .map(|(i, p)| (cam.depth(v3(p.pos.x, p.pos.y, 0.0)), i))
        .collect();
    order.push((cam.depth(v3(b.pos.x, b.pos.y, 0.0)), usize::MAX));
    order.sort_by(|a, c| c.0.total_cmp(&a.0));
    let mut people = vec![empty_drawn(); sim.people.len()];
    let mut ball = empty_drawn();
    for (_, i) in order {
        if i == usize::MAX {
            if layers.ball {
                ball = draw_ball(canvas, cam, sim);
            }
        } else {
            people[i] = draw_person(canvas, cam, sim, i, palette);
        }
    }
    if layers.scoreboard {
        draw_scoreboard(canvas, sim, palette);
    }
    (people, ball)
}
