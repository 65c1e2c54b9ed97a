//! Post-processing of a rendered frame (pure): the defocused background of a close-up and
//! seeded sensor noise.

use crate::raster::Canvas;
use crate::render::BALL_ID;
use crate::rng::Rng;

/// A close-up's look: a long lens focused on the person drawn with id `subject`, so everything
/// but that person and the ball is out of focus; the scoreboard (`board`, its pixels), an
/// overlay on the picture rather than in it, stays sharp.
pub(crate) fn close_up(out: &mut [u8], canvas: &Canvas, subject: u16, board: Option<[usize; 4]>) {
    let (w, h) = (canvas.width as usize, canvas.height as usize);
    defocus(out, &canvas.ids, w, h, (h / 60).max(1), |id| {
        id == subject || id == BALL_ID
    });
    if let Some([x0, y0, x1, y1]) = board {
        for y in y0..y1 {
            let (a, b) = ((y * w + x0) * 3, (y * w + x1) * 3);
            out[a..b].copy_from_slice(&canvas.rgb[a..b]);
        }
    }
}

/// The pixels of the scoreboard, `[x0, y0, x1, y1)`, as `render_scoreboard` lays it out for a
/// score line of `line_len` characters at match time `secs` (one box holds the score and the
/// clock), clipped to the frame.
pub(crate) fn scoreboard_rect(canvas: &Canvas, line_len: usize, secs: u64) -> [usize; 4] {
    let px = (f64::from(canvas.height) / 240.0).max(1.0).round();
    let clock_len = format!("{:02}:{:02}", secs / 60, secs % 60).len() as f64;
    let w = (line_len as f64 + clock_len + 2.0) * 6.0 * px + 10.0 * px;
    let clip = |v: f64, max: u32| (v.ceil().max(0.0) as usize).min(max as usize);
    [
        clip(px * 8.0 - 1.0, canvas.width),
        clip(px * 6.0 - 1.0, canvas.height),
        clip(px * 8.0 + w + 1.0, canvas.width),
        clip(px * 6.0 + 11.0 * px + 1.0, canvas.height),
    ]
}

/// Defocus: blurs the rgb24 frame (a box blur of radius `r` pixels run twice, near-Gaussian)
/// except the pixels whose owner id `sharp` keeps (the subject of a close-up, in focus).
fn defocus(
    rgb: &mut [u8],
    ids: &[u16],
    width: usize,
    height: usize,
    r: usize,
    sharp: impl Fn(u16) -> bool,
) {
    if r == 0 || width == 0 || height == 0 {
        return;
    }
    let orig = rgb.to_vec();
    let mut tmp = vec![0u8; rgb.len()];
    for _ in 0..2 {
        for y in 0..height {
            for c in 0..3 {
                blur_line(rgb, &mut tmp, y * width * 3 + c, 3, width, r);
            }
        }
        for x in 0..width {
            for c in 0..3 {
                blur_line(&tmp, rgb, x * 3 + c, width * 3, height, r);
            }
        }
    }
    for (i, &id) in ids.iter().enumerate() {
        if sharp(id) {
            rgb[i * 3..i * 3 + 3].copy_from_slice(&orig[i * 3..i * 3 + 3]);
        }
    }
}

/// A box blur of radius `r` along one line of `n` samples `stride` apart from `start`, edges
/// repeated.
fn blur_line(src: &[u8], dst: &mut [u8], start: usize, stride: usize, n: usize, r: usize) {
    let last = n as isize - 1;
    let at = |k: isize| u32::from(src[start + k.clamp(0, last) as usize * stride]);
    let ri = r as isize;
    let div = (2 * r + 1) as u32;
    let mut sum: u32 = (-ri..=ri).map(at).sum();
    for k in 0..n as isize {
        dst[start + k as usize * stride] = ((sum + div / 2) / div) as u8;
        sum += at(k + ri + 1);
        sum -= at(k - ri);
    }
}

/// Seeded sensor noise: every channel moves by -3..=4, saturating.
pub(crate) fn add_noise(data: &mut [u8], rng: &mut Rng) {
    // Eight channels per draw.
    let mut chunks = data.chunks_exact_mut(8);
    for c in &mut chunks {
        let n = (rng.next_u64() & 0x0707_0707_0707_0707).to_le_bytes();
        for (v, n) in c.iter_mut().zip(n) {
            *v = v.saturating_add(n).saturating_sub(3);
        }
    }
    for v in chunks.into_remainder() {
        *v = v
            .saturating_add((rng.next_u64() & 7) as u8)
            .saturating_sub(3);
    }
}
