//! The scoreboard in the top-left corner: team codes in their shirt colours, the score and the
//! match clock, in the built-in bitmap font.

use super::palette::Palette;
use crate::font;
use crate::raster::{Canvas, Paint};
use crate::sim::Sim;

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

pub(super) fn draw_scoreboard(canvas: &mut Canvas, sim: &Sim, palette: &Palette) {
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
