//! Draws one frame of the match: grass, lines, boards and stands, goals, shadows, players,
//! referee and ball (far to near, so nearer figures occlude farther ones), and the scoreboard.
//! Pure: plain data in, pixels and per-object coverage out.

use sportz_contract::{ObjectClass, PITCH_LENGTH_M as L, PITCH_WIDTH_M as W, TeamSide};

use crate::font;
use crate::geom::{Camera, V2, V3, v2, v3};
use crate::pitch::{LINE_W, Markings};
use crate::raster::{Canvas, Coverage, Paint, ellipse, segment_quad};
use crate::rng::hash2;
use crate::sim::{BALL_R, CROSSBAR_M, GOAL_HALF_M, Sim};

/// A team's colours and its three-letter code on the scoreboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Kit {
    pub code: &'static str,
    pub shirt: [u8; 3],
    pub shorts: [u8; 3],
    pub socks: [u8; 3],
}

const fn kit(code: &'static str, shirt: [u8; 3], shorts: [u8; 3], socks: [u8; 3]) -> Kit {
    Kit {
        code,
        shirt,
        shorts,
        socks,
    }
}

/// Outfield kits; any two differ clearly from each other, from the grass and from the referee.
pub(crate) const KITS: [Kit; 7] = [
    kit("RED", [200, 28, 36], [245, 245, 245], [200, 28, 36]),
    kit("BLU", [30, 70, 200], [20, 28, 80], [30, 70, 200]),
    kit("WHI", [238, 238, 238], [30, 30, 40], [238, 238, 238]),
    kit("SKY", [110, 180, 235], [250, 250, 250], [20, 30, 60]),
    kit("ORA", [245, 128, 20], [25, 25, 25], [245, 128, 20]),
    kit("MAR", [118, 22, 48], [235, 235, 235], [118, 22, 48]),
    kit("YEL", [240, 210, 30], [25, 55, 150], [240, 210, 30]),
];
/// Goalkeeper shirts, chosen to clash with neither outfield kit.
pub(crate) const KEEPER_SHIRTS: [[u8; 3]; 6] = [
    [170, 230, 40],
    [200, 40, 170],
    [30, 200, 200],
    [120, 120, 125],
    [250, 150, 190],
    [110, 50, 160],
];
pub(crate) const REFEREE_SHIRT: [u8; 3] = [22, 22, 22];
const REFEREE: Kit = kit("REF", REFEREE_SHIRT, REFEREE_SHIRT, REFEREE_SHIRT);
const SKIN: [[u8; 3]; 4] = [
    [236, 196, 160],
    [205, 150, 110],
    [150, 100, 70],
    [95, 62, 45],
];
const HAIR: [[u8; 3]; 4] = [[40, 30, 20], [20, 15, 12], [90, 60, 30], [15, 12, 10]];
const LINE: [u8; 3] = [236, 238, 236];
pub(crate) const BALL_ID: u16 = 24;

/// Sum of absolute channel differences.
fn shirt_distance(a: [u8; 3], b: [u8; 3]) -> i32 {
    (0..3)
        .map(|i| (i32::from(a[i]) - i32::from(b[i])).abs())
        .sum()
}

/// Who wears what in this match.
#[derive(Debug, Clone)]
pub(crate) struct Palette {
    pub home: Kit,
    pub away: Kit,
    pub home_keeper: [u8; 3],
    pub away_keeper: [u8; 3],
    /// The two mowing-stripe greens.
    pub grass: [[u8; 3]; 2],
    /// Ground direction shadows fall in (unit vector, metres).
    pub sun: V2,
}

const GRASS: [[[u8; 3]; 2]; 3] = [
    [[56, 134, 52], [46, 118, 44]],
    [[64, 140, 46], [54, 124, 40]],
    [[48, 124, 58], [40, 110, 50]],
];

impl Palette {
    pub(crate) fn pick(r: u64) -> Self {
        let h = (r % KITS.len() as u64) as usize;
        let shirt_far = |i: &usize| shirt_distance(KITS[*i].shirt, KITS[h].shirt) > 150;
        let away: Vec<usize> = (0..KITS.len()).filter(shirt_far).collect();
        let a = away[((r >> 8) % away.len() as u64) as usize];
        // Keepers: the first shirts (from a seeded start) far from both outfield shirts.
        let far = |c: [u8; 3], d: [u8; 3]| shirt_distance(c, d) > 150;
        let start = ((r >> 16) % KEEPER_SHIRTS.len() as u64) as usize;
        let keepers: Vec<[u8; 3]> = (0..KEEPER_SHIRTS.len())
            .map(|i| KEEPER_SHIRTS[(start + i) % KEEPER_SHIRTS.len()])
            .filter(|&c| far(c, KITS[h].shirt) && far(c, KITS[a].shirt))
            .collect();
        let k1 = keepers.first().copied().unwrap_or(KEEPER_SHIRTS[0]);
        let k2 = keepers
            .iter()
            .copied()
            .find(|&c| far(c, k1))
            .unwrap_or(KEEPER_SHIRTS[1]);
        Self {
            home: KITS[h],
            away: KITS[a],
            home_keeper: k1,
            away_keeper: k2,
            grass: GRASS[((r >> 32) % GRASS.len() as u64) as usize],
            sun: {
                // From behind the camera's left or right, towards the far side.
                let a =
                    ((r >> 40) % 1000) as f64 / 1000.0 * 1.6 - 0.8 - std::f64::consts::FRAC_PI_2;
                v2(a.cos(), a.sin())
            },
        }
    }

    fn person(&self, team: TeamSide, role: ObjectClass) -> Kit {
        match (team, role) {
            (_, ObjectClass::Referee) | (TeamSide::Other, _) => REFEREE,
            (TeamSide::Home, ObjectClass::Goalkeeper) => Kit {
                shirt: self.home_keeper,
                shorts: self.home_keeper,
                socks: self.home_keeper,
                ..self.home
            },
            (TeamSide::Away, ObjectClass::Goalkeeper) => Kit {
                shirt: self.away_keeper,
                shorts: self.away_keeper,
                socks: self.away_keeper,
                ..self.away
            },
            (TeamSide::Home, _) => self.home,
            (TeamSide::Away, _) => self.away,
        }
    }
}

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

/// Renders the scene of `sim` through `cam`. Returns what each person (index order) and the
/// ball covered.
pub(crate) fn render(
    canvas: &mut Canvas,
    sim: &Sim,
    cam: &Camera,
    palette: &Palette,
    marks: &Markings,
    grain: &[u8],
    scoreboard: bool,
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
    shadow(
        canvas,
        cam,
        palette.sun,
        b.pos + palette.sun * (b.h * 0.5),
        0.14 + b.h * 0.02,
        0.13 + b.h * 0.01,
    );
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
            ball = draw_ball(canvas, cam, sim);
        } else {
            people[i] = draw_person(canvas, cam, sim, i, palette);
        }
    }
    if scoreboard {
        draw_scoreboard(canvas, sim, palette);
    }
    (people, ball)
}

/// The ground: where each pixel's ray meets z = 0 (the exact inverse of the camera's
/// projection), shaded as grass with mowing stripes, the surround, or the stands.
// f32 is ample for shading; lines and truth use f64
fn ground(canvas: &mut Canvas, cam: &Camera, grain: &[u8], grass: [[u8; 3]; 2]) {
    let [ga, gb] = grass;
    let (w, h) = (canvas.width as usize, canvas.height as usize);
    let (cx, cy, cz) = (cam.pos.x as f32, cam.pos.y as f32, cam.pos.z as f32);
    let ru = cam.right * (1.0 / cam.focal_px);
    let (rxs, rys, rzs) = (ru.x as f32, ru.y as f32, ru.z as f32);
    let stripe = (18.0 / L) as f32;
    let (l, wd) = (L as f32, W as f32);
    let mut xs = vec![0f32; w];
    let mut ys = vec![0f32; w];
    let mut ss = vec![0f32; w];
    for row in 0..h {
        let r0 = cam.ray(0.5, row as f64 + 0.5);
        let (rx0, ry0, rz0) = (r0.x as f32, r0.y as f32, r0.z as f32);
        // Pass 1, branch-free (vectorises): where each pixel's ray meets the ground.
        for (col, ((x, y), s)) in xs
            .iter_mut()
            .zip(ys.iter_mut())
            .zip(ss.iter_mut())
            .enumerate()
        {
            let u = col as f32;
            let t = -cz / (rz0 + rzs * u);
            *s = t;
            *x = cx + (rx0 + rxs * u) * t;
            *y = cy + (ry0 + rys * u) * t;
        }
        // Pass 2: shade.
        let line = &mut canvas.rgb[row * w * 3..(row + 1) * w * 3];
        for (col, px) in line.chunks_exact_mut(3).enumerate() {
            let (x, y, s) = (xs[col], ys[col], ss[col]);
            let colour = if s.is_nan() || s <= 0.0 || s > 400.0 {
                // Above the horizon (or very far): stands in screen cells.
                stands(col as i32 / 3, row as i32 / 3)
            } else if y < -3.5 || !(-5.5..=l + 5.5).contains(&x) {
                // Offsets keep the operands positive so truncation is flooring (no libm call).
                stands(((x + 4096.0) * 2.0) as i32, ((y + 4096.0) * 2.0) as i32)
            } else if y > wd + 5.0 {
                let n = grain[((((x + 64.0) * 2.0) as usize & 255) << 8)
                    | (((y + 64.0) * 2.0) as usize & 255)]
                    & 7;
                [52 + n, 88 + n, 52 + n]
            } else {
                let band = ((x + l) * stripe) as u32 & 1;
                let n = grain[((((x + 64.0) * 6.0) as usize & 255) << 8)
                    | (((y + 64.0) * 6.0) as usize & 255)];
                let g = if band == 0 { ga } else { gb };
                [g[0] + n / 2, g[1] + n, g[2] + n / 2]
            };
            px.copy_from_slice(&colour);
        }
    }
}

/// A 256×256 tile of grass grain, values 0..16 (hashed once, looked up per pixel).
pub(crate) fn grain_tile() -> Vec<u8> {
    (0..256 * 256)
        .map(|i| (hash2(i >> 8, i & 255, 3) & 15) as u8)
        .collect()
}

/// The crowd: muted random colours in cells.
#[inline]
fn stands(cx: i32, cy: i32) -> [u8; 3] {
    let hsh = hash2(cx, cy, 11);
    let base = 40 + (hsh & 31) as u8;
    match (hsh >> 8) % 7 {
        0 => [base + 90, base + 30, base + 30],
        1 => [base + 20, base + 30, base + 90],
        2 => [base + 80, base + 80, base + 80],
        _ => [base, base, base + 8],
    }
}

fn lines(canvas: &mut Canvas, cam: &Camera, marks: &Markings) {
    let hw = LINE_W / 2.0;
    for &(a, b) in &marks.segments {
        let (Some(pa), Some(pb)) = (
            cam.project(v3(a.x, a.y, 0.0)),
            cam.project(v3(b.x, b.y, 0.0)),
        ) else {
            continue;
        };
        if (pb - pa).len() < 1e-6 {
            continue;
        }
        let n = (b - a).norm().perp() * hw;
        let m = (pb - pa).norm().perp();
        let width_at = |p: V2, pp: V2| {
            cam.project(v3(p.x + n.x, p.y + n.y, 0.0))
                .map_or(0.6, |q| (q - pp).dot(m).abs().max(0.6))
        };
        let quad = segment_quad(pa, pb, width_at(a, pa), width_at(b, pb));
        canvas.fill_convex(&quad, Paint::Solid(LINE), 0, None);
    }
    for &(c, r) in &marks.spots {
        let poly: Vec<V2> = (0..12)
            .filter_map(|i| {
                let t = f64::from(i) / 12.0 * std::f64::consts::TAU;
                cam.project(v3(c.x + r * t.cos(), c.y + r * t.sin(), 0.0))
            })
            .collect();
        let centre = cam.project(v3(c.x, c.y, 0.0));
        if let Some(p) = centre {
            canvas.fill_convex(&ellipse(p, 0.8, 0.8, 8), Paint::Solid(LINE), 0, None);
        }
        canvas.fill_convex(&poly, Paint::Solid(LINE), 0, None);
    }
}

/// Advertising boards along the far touchline and behind the goals.
fn boards(canvas: &mut Canvas, cam: &Camera) {
    const ADS: [[u8; 3]; 4] = [[20, 40, 140], [200, 200, 210], [190, 30, 40], [30, 30, 35]];
    let mut k = 0;
    let mut board = |canvas: &mut Canvas, a: V2, b: V2| {
        let quad = [
            v3(a.x, a.y, 0.0),
            v3(b.x, b.y, 0.0),
            v3(b.x, b.y, 0.9),
            v3(a.x, a.y, 0.9),
        ];
        quad3(canvas, cam, &quad, Paint::Solid(ADS[k % 4]));
        let (p, q) = (a + (b - a) * 0.18, a + (b - a) * 0.82);
        let stripe = [
            v3(p.x, p.y, 0.3),
            v3(q.x, q.y, 0.3),
            v3(q.x, q.y, 0.6),
            v3(p.x, p.y, 0.6),
        ];
        quad3(canvas, cam, &stripe, Paint::Solid(ADS[(k + 2) % 4]));
        k += 1;
    };
    let mut x = -5.5;
    while x < L + 5.5 - 1e-9 {
        let x1 = (x + 8.0).min(L + 5.5);
        board(canvas, v2(x, -3.5), v2(x1, -3.5));
        x = x1;
    }
    for gx in [-5.5, L + 5.5] {
        let mut y = -3.5;
        while y < W + 3.0 - 1e-9 {
            let y1 = (y + 8.0).min(W + 3.0);
            board(canvas, v2(gx, y), v2(gx, y1));
            y = y1;
        }
    }
}

fn quad3(canvas: &mut Canvas, cam: &Camera, pts: &[V3], paint: Paint) {
    let poly: Option<Vec<V2>> = pts.iter().map(|&p| cam.project(p)).collect();
    if let Some(poly) = poly {
        canvas.fill_convex(&poly, paint, 0, None);
    }
}

/// A bar in 3-D between two points, `radius` metres thick (at least `min_px` pixels).
fn bar3(canvas: &mut Canvas, cam: &Camera, a: V3, b: V3, radius: f64, min_px: f64, paint: Paint) {
    let (Some(pa), Some(pb)) = (cam.project(a), cam.project(b)) else {
        return;
    };
    let wa = (cam.focal_px * radius / cam.depth(a)).max(min_px);
    let wb = (cam.focal_px * radius / cam.depth(b)).max(min_px);
    if (pb - pa).len() < 1e-6 {
        return;
    }
    canvas.fill_convex(&segment_quad(pa, pb, wa, wb), paint, 0, None);
}

fn goal(canvas: &mut Canvas, cam: &Camera, gx: f64) {
    let back = if gx < 1.0 { gx - 2.0 } else { gx + 2.0 };
    let (y0, y1) = (W / 2.0 - GOAL_HALF_M, W / 2.0 + GOAL_HALF_M);
    let net = Paint::Blend([235, 235, 235], 110);
    // Net: back and roof grid.
    let mut y = y0;
    while y <= y1 + 1e-6 {
        bar3(
            canvas,
            cam,
            v3(back, y, 0.0),
            v3(back, y, 2.0),
            0.01,
            0.45,
            net,
        );
        bar3(
            canvas,
            cam,
            v3(back, y, 2.0),
            v3(gx, y, CROSSBAR_M),
            0.01,
            0.45,
            net,
        );
        y += 0.5;
    }
    let mut z = 0.0;
    while z <= 2.0 + 1e-6 {
        bar3(
            canvas,
            cam,
            v3(back, y0, z),
            v3(back, y1, z),
            0.01,
            0.45,
            net,
        );
        z += 0.5;
    }
    for yy in [y0, y1] {
        let mut d = 0.0;
        while d <= 2.0 + 1e-6 {
            let x = gx + (back - gx) * d / 2.0;
            bar3(
                canvas,
                cam,
                v3(x, yy, 0.0),
                v3(x, yy, CROSSBAR_M - 0.22 * d),
                0.01,
                0.45,
                net,
            );
            d += 0.5;
        }
    }
    let white = Paint::Solid([245, 245, 245]);
    bar3(
        canvas,
        cam,
        v3(gx, y0, 0.0),
        v3(gx, y0, CROSSBAR_M),
        0.06,
        0.7,
        white,
    );
    bar3(
        canvas,
        cam,
        v3(gx, y1, 0.0),
        v3(gx, y1, CROSSBAR_M),
        0.06,
        0.7,
        white,
    );
    bar3(
        canvas,
        cam,
        v3(gx, y0, CROSSBAR_M),
        v3(gx, y1, CROSSBAR_M),
        0.06,
        0.7,
        white,
    );
}

fn shadow(canvas: &mut Canvas, cam: &Camera, sun: V2, foot: V2, along: f64, across: f64) {
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

fn draw_person(canvas: &mut Canvas, cam: &Camera, sim: &Sim, i: usize, palette: &Palette) -> Drawn {
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

fn draw_ball(canvas: &mut Canvas, cam: &Camera, sim: &Sim) -> Drawn {
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

fn text(canvas: &mut Canvas, s: &str, x: f64, y: f64, px: f64, colour: [u8; 3]) -> f64 {
    let mut cx = x;
    for ch in s.chars() {
        let rows = font::glyph(ch);
        for (r, bits) in rows.iter().enumerate() {
            for col in 0..5 {
                if bits >> (4 - col) & 1 == 1 {
                    let x0 = cx + f64::from(col) * px;
                    let y0 = y + r as f64 * px;
                    canvas.rect(x0, y0, x0 + px, y0 + px, Paint::Solid(colour));
                }
            }
        }
        cx += 6.0 * px;
    }
    cx
}

fn draw_scoreboard(canvas: &mut Canvas, sim: &Sim, palette: &Palette) {
    let px = (f64::from(canvas.height) / 240.0).max(1.0).round();
    let (x, y) = (px * 8.0, px * 6.0);
    let secs = sim.time() as u64;
    let clock = format!("{:02}:{:02}", secs / 60, secs % 60);
    let line = format!(
        "{} {}-{} {}",
        palette.home.code, sim.score[0], sim.score[1], palette.away.code
    );
    let w = (line.len() + clock.len() + 2) as f64 * 6.0 * px + 4.0 * px + 6.0 * px;
    let h = 11.0 * px;
    let clock_w = (clock.len() as f64 * 6.0 + 3.0) * px + px;
    canvas.clear_ids_in(x, y, x + w + clock_w, y + h);
    canvas.rect(x, y, x + w, y + h, Paint::Blend([18, 22, 40], 215));
    canvas.rect(
        x,
        y,
        x + 2.0 * px,
        y + h / 2.0,
        Paint::Solid(palette.home.shirt),
    );
    canvas.rect(
        x,
        y + h / 2.0,
        x + 2.0 * px,
        y + h,
        Paint::Solid(palette.away.shirt),
    );
    let end = text(
        canvas,
        &line,
        x + 5.0 * px,
        y + 2.0 * px,
        px,
        [245, 245, 245],
    );
    canvas.rect(
        end + px,
        y,
        end + px + (clock.len() as f64 * 6.0 + 3.0) * px,
        y + h,
        Paint::Blend([200, 200, 210], 200),
    );
    text(
        canvas,
        &clock,
        end + 2.5 * px,
        y + 2.0 * px,
        px,
        [20, 20, 30],
    );
}
