//! Software rasterisation: convex polygons filled by scanline at pixel centres, into an RGB
//! buffer plus an object-id buffer (which object owns each pixel, for exact boxes and occlusion).

use crate::geom::{V2, v2};

/// How a polygon changes the pixels it covers.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Paint {
    Solid([u8; 3]),
    /// Multiply every channel by `factor / 256` (shadows).
    Shade(u16),
    /// Mix `colour` in with weight `alpha / 256`.
    Blend([u8; 3], u16),
}

/// What one object's drawing covered: its pixel extent and how many pixels it owns.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Coverage {
    pub min_x: i32,
    pub min_y: i32,
    pub max_x: i32,
    pub max_y: i32,
    pub drawn_px: u32,
}

impl Default for Coverage {
    fn default() -> Self {
        Self {
            min_x: i32::MAX,
            min_y: i32::MAX,
            max_x: i32::MIN,
            max_y: i32::MIN,
            drawn_px: 0,
        }
    }
}

impl Coverage {
    pub(crate) fn is_empty(&self) -> bool {
        self.drawn_px == 0
    }
}

#[derive(Debug)]
pub(crate) struct Canvas {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<u8>,
    /// 0 = background; otherwise the object id of the topmost object on that pixel.
    pub ids: Vec<u16>,
}

impl Canvas {
    pub(crate) fn new(width: u32, height: u32) -> Self {
        let n = width as usize * height as usize;
        Self {
            width,
            height,
            rgb: vec![0; n * 3],
            ids: vec![0; n],
        }
    }

    pub(crate) fn clear_ids(&mut self) {
        self.ids.fill(0);
    }

    /// Fills a convex polygon (either winding). Pixels whose centre lies inside are covered.
    /// With `id > 0`, covered pixels are claimed for that object and `cov` records the extent.
    pub(crate) fn fill_convex(
        &mut self,
        poly: &[V2],
        paint: Paint,
        id: u16,
        mut cov: Option<&mut Coverage>,
    ) {
        if poly.len() < 3 {
            return;
        }
        let (mut y_lo, mut y_hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for p in poly {
            if !p.x.is_finite() || !p.y.is_finite() {
                return;
            }
            y_lo = y_lo.min(p.y);
            y_hi = y_hi.max(p.y);
        }
        let w = self.width as i32;
        let r0 = ((y_lo - 0.5).ceil() as i32).max(0);
        let r1 = ((y_hi - 0.5).ceil() as i32).min(self.height as i32); // exclusive
        for r in r0..r1 {
            let yc = f64::from(r) + 0.5;
            let (mut xl, mut xr) = (f64::INFINITY, f64::NEG_INFINITY);
            for i in 0..poly.len() {
                let a = poly[i];
                let b = poly[(i + 1) % poly.len()];
                let (lo, hi) = if a.y < b.y { (a, b) } else { (b, a) };
                if yc < lo.y || yc >= hi.y || hi.y - lo.y < 1e-12 {
                    continue;
                }
                let x = lo.x + (yc - lo.y) * (hi.x - lo.x) / (hi.y - lo.y);
                xl = xl.min(x);
                xr = xr.max(x);
            }
            if xr <= xl {
                continue;
            }
            let c0 = ((xl - 0.5).ceil() as i32).max(0);
            let c1 = ((xr - 0.5).ceil() as i32).min(w);
            if c1 <= c0 {
                continue;
            }
            self.span(r, c0, c1, paint, id, cov.as_deref_mut());
        }
    }

    fn span(
        &mut self,
        row: i32,
        c0: i32,
        c1: i32,
        paint: Paint,
        id: u16,
        cov: Option<&mut Coverage>,
    ) {
        let base = row as usize * self.width as usize;
        let px = &mut self.rgb[(base + c0 as usize) * 3..(base + c1 as usize) * 3];
        match paint {
            Paint::Solid(c) => {
                for p in px.chunks_exact_mut(3) {
                    p.copy_from_slice(&c);
                }
            }
            Paint::Shade(f) => {
                for v in px.iter_mut() {
                    *v = ((u16::from(*v) * f) >> 8) as u8;
                }
            }
            Paint::Blend(c, a) => {
                for p in px.chunks_exact_mut(3) {
                    for k in 0..3 {
                        p[k] = ((u16::from(p[k]) * (256 - a) + u16::from(c[k]) * a) >> 8) as u8;
                    }
                }
            }
        }
        if id == 0 {
            return;
        }
        let ids = &mut self.ids[base + c0 as usize..base + c1 as usize];
        let mut fresh = 0;
        for v in ids.iter_mut() {
            if *v != id {
                *v = id;
                fresh += 1;
            }
        }
        if let Some(cov) = cov {
            cov.drawn_px += fresh;
            cov.min_x = cov.min_x.min(c0);
            cov.max_x = cov.max_x.max(c1 - 1);
            cov.min_y = cov.min_y.min(row);
            cov.max_y = cov.max_y.max(row);
        }
    }

    /// Releases the pixels of a rectangle from any object (an overlay drawn on top hides them).
    pub(crate) fn clear_ids_in(&mut self, x0: f64, y0: f64, x1: f64, y1: f64) {
        let (w, h) = (f64::from(self.width), f64::from(self.height));
        let c0 = x0.clamp(0.0, w) as usize;
        let c1 = x1.ceil().clamp(0.0, w) as usize;
        for r in y0.clamp(0.0, h) as usize..y1.ceil().clamp(0.0, h) as usize {
            let base = r * self.width as usize;
            self.ids[base + c0..base + c1].fill(0);
        }
    }

    /// A filled axis-aligned rectangle in pixels (overlay, no id).
    pub(crate) fn rect(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, paint: Paint) {
        self.fill_convex(
            &[v2(x0, y0), v2(x1, y0), v2(x1, y1), v2(x0, y1)],
            paint,
            0,
            None,
        );
    }
}

/// The quad of a thick segment from `a` (half-width `ha`) to `b` (half-width `hb`), in pixels.
pub(crate) fn segment_quad(a: V2, b: V2, ha: f64, hb: f64) -> [V2; 4] {
    let n = (b - a).norm().perp();
    [a + n * ha, b + n * hb, b - n * hb, a - n * ha]
}

/// An ellipse as a polygon of `k` vertices.
pub(crate) fn ellipse(c: V2, rx: f64, ry: f64, k: usize) -> Vec<V2> {
    (0..k)
        .map(|i| {
            let t = i as f64 / k as f64 * std::f64::consts::TAU;
            v2(c.x + rx * t.cos(), c.y + ry * t.sin())
        })
        .collect()
}
