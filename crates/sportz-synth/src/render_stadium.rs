//! The stadium: grass with mowing stripes and grain, the line markings, the advertising boards,
//! the stands, and the goals with their nets.

use sportz_contract::{PITCH_LENGTH_M as L, PITCH_WIDTH_M as W};

use crate::geom::{Camera, V2, V3, v2, v3};
use crate::pitch::{LINE_W, Markings};
use crate::raster::{Canvas, Paint, ellipse, segment_quad};
use crate::rng::hash2;
use crate::sim::{CROSSBAR_M, GOAL_HALF_M};

const LINE: [u8; 3] = [236, 238, 236];
/// The ground: where each pixel's ray meets z = 0 (the exact inverse of the camera's
/// projection), shaded as grass with mowing stripes, the surround, or the stands.
// f32 is ample for shading; lines and truth use f64
pub(super) fn ground(canvas: &mut Canvas, cam: &Camera, grain: &[u8], grass: [[u8; 3]; 2]) {
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

pub(super) fn lines(canvas: &mut Canvas, cam: &Camera, marks: &Markings) {
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
pub(super) fn boards(canvas: &mut Canvas, cam: &Camera) {
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

pub(super) fn goal(canvas: &mut Canvas, cam: &Camera, gx: f64) {
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
