//! The figures: shadows on the grass, players, keepers and the referee (limbs posed from the
//! running cycle, far side first), and the ball, each recording what it covered.

use sportz_contract::TeamSide;

use super::palette::{HAIR, Palette, SKIN};
use super::{BALL_ID, Drawn, Shapes, empty_drawn};
use crate::geom::{Camera, V2, v2, v3};
use crate::raster::{Canvas, Paint, ellipse, segment_quad};
use crate::sim::{BALL_R, Sim};

pub(super) fn shadow(
    canvas: &mut Canvas,
    cam: &Camera,
    sun: V2,
    foot: V2,
    along: f64,
    across: f64,
) {
    let c = foot + sun * (along * 0.8);
    let poly: Option<Vec<V2>> = (0..14)
        .map(|i| {
            let t = f64::from(i) / 14.0 * std::f64::consts::TAU;
            let p = c + sun * (along * t.cos()) + sun.perp() * (across * t.sin());
            cam.project(v3(p.x, p.y, 0.0))
        })
        .collect();
    if let Some(poly) = poly {
        canvas.fill_convex(&poly, Paint::Shade(150), 0, None);
    }
}

pub(super) fn draw_person(
    canvas: &mut Canvas,
    cam: &Camera,
    sim: &Sim,
    i: usize,
    palette: &Palette,
) -> Drawn {
    let p = &sim.people[i];
    let (Some(foot), Some(head)) = (
        cam.project(v3(p.pos.x, p.pos.y, 0.0)),
        cam.project(v3(p.pos.x, p.pos.y, p.height_m)),
    ) else {
        return empty_drawn();
    };
    let k = p.height_m / 1.8;
    let up = (head - foot) * (1.0 / p.height_m);
    let scale = up.len();
    let facing = if p.vel.x.abs() > 0.3 {
        p.vel.x.signum()
    } else if p.team == TeamSide::Away {
        -1.0
    } else {
        1.0
    };
    let side = up.norm().perp() * (scale * facing);
    let at = |lx: f64, lz: f64| foot + side * lx + up * lz;
    let kit = palette.person(p.team, p.role);
    let skin = SKIN[p.skin as usize % 4];
    let hair = HAIR[(p.id as usize) % 4];
    let speed = p.vel.len();
    let sf = (speed / 6.0).min(1.0);
    let swing = 0.08 + 0.55 * sf;
    let mut sh = Shapes {
        canvas,
        id: (i + 1) as u16,
        drawn: empty_drawn(),
    };

    // A limb: two segments from `root`, angles measured from straight down (forward positive).
    let limb = |sh: &mut Shapes,
                root: (f64, f64),
                a1: f64,
                l1: f64,
                w1: f64,
                c1: [u8; 3],
                a2: f64,
                l2: f64,
                w2: f64,
                c2: [u8; 3],
                end: Option<[u8; 3]>| {
        let j = (root.0 + a1.sin() * l1, root.1 - a1.cos() * l1);
        let e = (j.0 + a2.sin() * l2, j.1 - a2.cos() * l2);
        let q1 = segment_quad(
            at(root.0, root.1),
            at(j.0, j.1),
            w1 * scale,
            w1 * scale * 0.9,
        );
        let q2 = segment_quad(at(j.0, j.1), at(e.0, e.1), w2 * scale, w2 * scale * 0.85);
        sh.fill(&q1, c1);
        sh.fill(&q2, c2);
        if let Some(c) = end {
            let q = [
                at(e.0 - 0.04, e.1 + 0.05),
                at(e.0 + 0.14, e.1 + 0.04),
                at(e.0 + 0.14, (e.1 - 0.03).max(0.0)),
                at(e.0 - 0.04, (e.1 - 0.03).max(0.0)),
            ];
            sh.fill(&q, c);
        }
    };

    let hip = 0.93 * k;
    let sho = 1.43 * k;
    let ph = p.stride;
    let leg_a = |phase: f64| swing * phase.sin();
    let knee = |phase: f64| -(0.15 + 0.9 * sf * (0.5 - 0.5 * (phase + 0.9).sin()));
    let boots = [25, 25, 25];
    // Far arm and leg first.
    limb(
        &mut sh,
        (0.0, sho),
        -leg_a(ph) * 0.9,
        0.30 * k,
        0.055,
        kit.shirt,
        -leg_a(ph) * 0.9 + 0.5 * sf + 0.1,
        0.27 * k,
        0.045,
        skin,
        None,
    );
    limb(
        &mut sh,
        (0.02, hip),
        leg_a(ph + std::f64::consts::PI),
        0.47 * k,
        0.075,
        skin,
        leg_a(ph + std::f64::consts::PI) + knee(ph + std::f64::consts::PI),
        0.46 * k,
        0.06,
        kit.socks,
        Some(boots),
    );
    // Torso and shorts.
    sh.fill(
        &[
            at(-0.16, hip),
            at(0.16, hip),
            at(0.2, sho + 0.03),
            at(-0.2, sho + 0.03),
        ],
        kit.shirt,
    );
    sh.fill(
        &[
            at(-0.17, 0.76 * k),
            at(0.17, 0.76 * k),
            at(0.165, hip + 0.03),
            at(-0.165, hip + 0.03),
        ],
        kit.shorts,
    );
    // Near leg and arm.
    limb(
        &mut sh,
        (-0.02, hip),
        leg_a(ph),
        0.47 * k,
        0.075,
        skin,
        leg_a(ph) + knee(ph),
        0.46 * k,
        0.06,
        kit.socks,
        Some(boots),
    );
    limb(
        &mut sh,
        (0.0, sho),
        -leg_a(ph + std::f64::consts::PI) * 0.9,
        0.30 * k,
        0.055,
        kit.shirt,
        -leg_a(ph + std::f64::consts::PI) * 0.9 + 0.5 * sf + 0.1,
        0.27 * k,
        0.045,
        skin,
        None,
    );
    // Neck, hair and face.
    sh.fill(
        &[
            at(-0.05, sho),
            at(0.05, sho),
            at(0.05, sho + 0.1),
            at(-0.05, sho + 0.1),
        ],
        skin,
    );
    let hc = at(0.0, p.height_m - 0.12 * k);
    let hr = 0.105 * k * scale;
    sh.fill(
        &ellipse(hc + up.norm() * (hr * 0.25), hr * 1.02, hr * 1.05, 12),
        hair,
    );
    sh.fill(
        &ellipse(
            hc + up.norm() * (-hr * 0.12) + side.norm() * (hr * 0.12),
            hr * 0.92,
            hr * 1.02,
            12,
        ),
        skin,
    );
    sh.drawn
}

pub(super) fn draw_ball(canvas: &mut Canvas, cam: &Camera, sim: &Sim) -> Drawn {
    let b = &sim.ball;
    let c3 = v3(b.pos.x, b.pos.y, b.h + BALL_R);
    let Some(c) = cam.project(c3) else {
        return empty_drawn();
    };
    let r = (cam.focal_px * BALL_R / cam.depth(c3)).max(1.3);
    let mut sh = Shapes {
        canvas,
        id: BALL_ID,
        drawn: empty_drawn(),
    };
    sh.fill(&ellipse(c, r, r, 12), [248, 248, 248]);
    if r > 3.0 {
        sh.fill(
            &ellipse(c + v2(r * 0.2, r * 0.15), r * 0.35, r * 0.35, 6),
            [40, 40, 40],
        );
    }
    sh.drawn
}
