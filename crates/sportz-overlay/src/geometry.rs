//! CPU tessellation of the overlay's marks into coloured triangles, in canvas pixels. Pure, so
//! the layout is tested without a GPU.

use crate::scene::{Mark, Radar, Rgba, Scene};

/// One vertex of the shape pipeline.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Vertex {
    pub pos: [f32; 2],
    pub color: [f32; 4],
}

/// An axis-aligned rectangle in canvas pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

/// Where the video goes in the canvas: as large as fits, centred, aspect kept.
#[must_use]
pub fn fit(frame: (u32, u32), canvas: (u32, u32)) -> Rect {
    let (fw, fh, cw, ch) = (
        frame.0.max(1) as f32,
        frame.1.max(1) as f32,
        canvas.0 as f32,
        canvas.1 as f32,
    );
    let s = (cw / fw).min(ch / fh);
    let (w, h) = (fw * s, fh * s);
    Rect {
        x: (cw - w) / 2.0,
        y: (ch - h) / 2.0,
        w,
        h,
    }
}

/// Where the radar goes: the bottom-right corner, 30 % of the canvas width.
#[must_use]
pub fn radar_rect(canvas: (u32, u32), radar: &Radar) -> Rect {
    let (cw, ch) = (canvas.0 as f32, canvas.1 as f32);
    let margin = (cw * 0.015).max(6.0);
    let w = (cw * 0.3).min(ch * 0.45 * radar.length / radar.width.max(1.0));
    let h = w * radar.width / radar.length.max(1.0);
    Rect {
        x: cw - w - margin,
        y: ch - h - margin,
        w,
        h,
    }
}

/// Triangles accumulated for one draw.
#[derive(Debug, Default)]
pub struct Mesh {
    pub vertices: Vec<Vertex>,
}

impl Mesh {
    fn tri(&mut self, a: [f32; 2], b: [f32; 2], c: [f32; 2], color: Rgba) {
        let color = color.to_f32();
        for pos in [a, b, c] {
            self.vertices.push(Vertex { pos, color });
        }
    }

    /// A filled rectangle.
    pub fn fill(&mut self, r: Rect, color: Rgba) {
        let (a, b, c, d) = (
            [r.x, r.y],
            [r.x + r.w, r.y],
            [r.x, r.y + r.h],
            [r.x + r.w, r.y + r.h],
        );
        self.tri(a, b, c, color);
        self.tri(c, b, d, color);
    }

    /// A rectangle's outline, `t` pixels thick, inside the rectangle.
    pub fn outline(&mut self, r: Rect, t: f32, color: Rgba) {
        let t = t.min(r.w / 2.0).min(r.h / 2.0);
        self.fill(Rect { h: t, ..r }, color);
        self.fill(
            Rect {
                y: r.y + r.h - t,
                h: t,
                ..r
            },
            color,
        );
        self.fill(
            Rect {
                y: r.y + t,
                w: t,
                h: r.h - 2.0 * t,
                ..r
            },
            color,
        );
        self.fill(
            Rect {
                x: r.x + r.w - t,
                y: r.y + t,
                w: t,
                h: r.h - 2.0 * t,
            },
            color,
        );
    }

    /// A line segment `t` pixels thick.
    pub fn line(&mut self, a: [f32; 2], b: [f32; 2], t: f32, color: Rgba) {
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let len = dx.hypot(dy);
        if len < 1e-3 {
            return;
        }
        let (nx, ny) = (-dy / len * t / 2.0, dx / len * t / 2.0);
        let (p1, p2, p3, p4) = (
            [a[0] + nx, a[1] + ny],
            [a[0] - nx, a[1] - ny],
            [b[0] + nx, b[1] + ny],
            [b[0] - nx, b[1] - ny],
        );
        self.tri(p1, p2, p3, color);
        self.tri(p3, p2, p4, color);
    }

    /// A dashed line segment: dashes of `dash` pixels with equal gaps.
    pub fn dashed(&mut self, a: [f32; 2], b: [f32; 2], t: f32, dash: f32, color: Rgba) {
        let len = (b[0] - a[0]).hypot(b[1] - a[1]);
        let mut s = 0.0;
        while s < len {
            let e = (s + dash).min(len);
            let at = |d: f32| {
                [
                    a[0] + (b[0] - a[0]) * d / len,
                    a[1] + (b[1] - a[1]) * d / len,
                ]
            };
            self.line(at(s), at(e), t, color);
            s += 2.0 * dash;
        }
    }

    /// A filled disc.
    pub fn disc(&mut self, c: [f32; 2], r: f32, color: Rgba) {
        let n = 20;
        for i in 0..n {
            let (a0, a1) = (angle(i, n), angle(i + 1, n));
            self.tri(
                c,
                [c[0] + r * a0.cos(), c[1] + r * a0.sin()],
                [c[0] + r * a1.cos(), c[1] + r * a1.sin()],
                color,
            );
        }
    }

    /// A ring between radii `r - t` and `r` (an arc from `from` to `to` radians).
    pub fn arc(&mut self, c: [f32; 2], r: f32, t: f32, (from, to): (f32, f32), color: Rgba) {
        let n = 32;
        let at = |i: u32, rad: f32| {
            let a = from + (to - from) * i as f32 / n as f32;
            [c[0] + rad * a.cos(), c[1] + rad * a.sin()]
        };
        for i in 0..n {
            let (o0, o1, i0, i1) = (at(i, r), at(i + 1, r), at(i, r - t), at(i + 1, r - t));
            self.tri(o0, i0, o1, color);
            self.tri(o1, i0, i1, color);
        }
    }

    /// A number in a 3×5 pixel font scaled by `s`, its top-left at `p`; returns the width.
    pub fn number(&mut self, p: [f32; 2], value: u32, s: f32, color: Rgba) -> f32 {
        let text = value.to_string();
        let mut x = p[0];
        for ch in text.bytes() {
            let glyph = DIGITS[usize::from(ch - b'0')];
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..3u8 {
                    if bits & (0b100 >> col) != 0 {
                        self.fill(
                            Rect {
                                x: x + f32::from(col) * s,
                                y: p[1] + row as f32 * s,
                                w: s,
                                h: s,
                            },
                            color,
                        );
                    }
                }
            }
            x += 4.0 * s;
        }
        x - p[0] - s
    }
}

fn angle(i: u32, n: u32) -> f32 {
    std::f32::consts::TAU * i as f32 / n as f32
}

/// 3×5 digits, one row a byte (bit 2 is the left column).
const DIGITS: [[u8; 5]; 10] = [
    [0b111, 0b101, 0b101, 0b101, 0b111],
    [0b010, 0b110, 0b010, 0b010, 0b111],
    [0b111, 0b001, 0b111, 0b100, 0b111],
    [0b111, 0b001, 0b111, 0b001, 0b111],
    [0b101, 0b101, 0b111, 0b001, 0b001],
    [0b111, 0b100, 0b111, 0b001, 0b111],
    [0b111, 0b100, 0b111, 0b101, 0b111],
    [0b111, 0b001, 0b010, 0b010, 0b010],
    [0b111, 0b101, 0b111, 0b101, 0b111],
    [0b111, 0b101, 0b111, 0b001, 0b111],
];

/// Colours the overlay uses for its own furniture.
pub const BALL: Rgba = Rgba::rgb(255, 214, 10);
const PITCH: Rgba = Rgba::rgb(38, 120, 60);
const LINES: Rgba = Rgba([255, 255, 255, 220]);
/// The projected pitch model over the video: thin, semi-transparent cyan, apart from the white
/// of the real lines it should sit on.
pub const PITCH_LINES: Rgba = Rgba([0, 229, 255, 170]);

/// Tessellates everything but the video: the projected pitch lines, boxes with ids, the ball and
/// its trail, the radar.
#[must_use]
pub fn tessellate(scene: &Scene, canvas: (u32, u32)) -> Mesh {
    let mut m = Mesh::default();
    let v = fit(scene.frame_size, canvas);
    let sx = v.w / scene.frame_size.0.max(1) as f32;
    let to_canvas = |x: f32, y: f32| [v.x + x * sx, v.y + y * sx];
    let unit = (canvas.1 as f32 / 360.0).max(1.0);
    if scene.video.is_none() {
        m.fill(v, PITCH.with_alpha(0.35));
    }
    if scene.show_pitch_lines {
        let t = unit;
        for line in &scene.pitch_lines {
            for w in line.windows(2) {
                m.line(
                    to_canvas(w[0][0], w[0][1]),
                    to_canvas(w[1][0], w[1][1]),
                    t,
                    PITCH_LINES,
                );
            }
        }
    }
    for b in &scene.boxes {
        let (p, q) = (to_canvas(b.x1, b.y1), to_canvas(b.x2, b.y2));
        let r = Rect {
            x: p[0],
            y: p[1],
            w: q[0] - p[0],
            h: q[1] - p[1],
        };
        m.outline(r, unit * 1.5, b.color);
        if let Some(id) = b.label {
            let s = unit * 2.0;
            let digits = id.max(1).ilog10() + 1;
            let w = digits as f32 * 4.0 * s + s;
            let tag = Rect {
                x: r.x,
                y: r.y - 7.0 * s,
                w,
                h: 7.0 * s,
            };
            m.fill(tag, b.color);
            m.number([tag.x + s, tag.y + s], id, s, Rgba::BLACK);
        }
    }
    let n = scene.trail.len();
    for (i, w) in scene.trail.windows(2).enumerate() {
        let alpha = 0.15 + 0.85 * (i + 1) as f32 / n.max(1) as f32;
        let (a, b) = (to_canvas(w[0].x, w[0].y), to_canvas(w[1].x, w[1].y));
        let color = BALL.with_alpha(alpha);
        if w[0].predicted || w[1].predicted {
            m.dashed(a, b, unit * 1.5, unit * 3.0, color);
        } else {
            m.line(a, b, unit * 1.5, color);
        }
    }
    if let Some(Mark { x, y, predicted }) = scene.ball {
        let c = to_canvas(x, y);
        if predicted {
            m.arc(
                c,
                unit * 4.0,
                unit * 1.2,
                (0.0, std::f32::consts::TAU),
                BALL,
            );
        } else {
            m.disc(c, unit * 4.0, Rgba::BLACK);
            m.disc(c, unit * 3.0, BALL);
        }
    }
    if let Some(radar) = &scene.radar {
        draw_radar(&mut m, radar, radar_rect(canvas, radar), unit);
    }
    m
}

fn draw_radar(m: &mut Mesh, radar: &Radar, r: Rect, unit: f32) {
    let s = r.w / radar.length.max(1.0);
    let p = |x: f32, y: f32| [r.x + x * s, r.y + y * s];
    let (l, w) = (radar.length, radar.width);
    let t = unit.max(1.0);
    m.fill(
        Rect {
            x: r.x - 4.0,
            y: r.y - 4.0,
            w: r.w + 8.0,
            h: r.h + 8.0,
        },
        Rgba([0, 0, 0, 160]),
    );
    m.fill(r, PITCH);
    m.outline(r, t, LINES);
    m.line(p(l / 2.0, 0.0), p(l / 2.0, w), t, LINES);
    m.arc(
        p(l / 2.0, w / 2.0),
        9.15 * s,
        t,
        (0.0, std::f32::consts::TAU),
        LINES,
    );
    for (depth, half) in [(16.5, 20.16), (5.5, 9.16)] {
        let (y0, h) = ((w / 2.0 - half) * s, 2.0 * half * s);
        m.outline(
            Rect {
                x: r.x,
                y: r.y + y0,
                w: depth * s,
                h,
            },
            t,
            LINES,
        );
        m.outline(
            Rect {
                x: r.x + (l - depth) * s,
                y: r.y + y0,
                w: depth * s,
                h,
            },
            t,
            LINES,
        );
    }
    let dot = (unit * 3.0).max(3.0);
    for d in &radar.dots {
        let c = p(d.x.clamp(0.0, l), d.y.clamp(0.0, w));
        m.disc(c, dot + 1.0, Rgba::BLACK);
        m.disc(c, dot, d.color);
    }
    if let Some((x, y)) = radar.ball {
        let c = p(x.clamp(0.0, l), y.clamp(0.0, w));
        m.disc(c, dot * 0.8 + 1.0, Rgba::BLACK);
        m.disc(c, dot * 0.8, BALL);
    }
}
