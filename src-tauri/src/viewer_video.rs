//! The annotated live video for viewers (`--viewer-video`, served by `sportz_api::video`): a
//! tap on the analyser hands a frame to a render thread only when someone watches its match,
//! a picture is due ([`due`]) and the thread is free (a busy renderer skips frames; the
//! analysis never waits for it); the thread draws it with the overlay's renderer offscreen (the
//! same scene as the desktop overlay and `track --annotate`), encodes one JPEG and publishes it
//! to every viewer at once.

use std::collections::HashMap;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use sportz_api::video::{VideoHub, ViewerVideo};
use sportz_contract::{FrameData, MatchId};
use sportz_overlay::VideoImage;

use crate::cli::ViewerVideoMode;
use crate::overlay::{Sink, scene_from_frame, video_of};

/// Pictures wider than this are drawn at this width (a 1080p source to 720p): what a match
/// page shows, at half the encoding cost.
const MAX_WIDTH: u32 = 1280;

/// JPEG quality: boxes and ids stay sharp; ≈ 200 KB per 720p picture (BENCHMARKS.md).
const QUALITY: u8 = 80;

/// Pictures per second by default where the only renderer is the CPU: each one costs ≈ 26 ms
/// of CPU there (BENCHMARKS.md), so every frame would take most of a core from the analysis.
pub const CPU_PICTURES_PER_S: f64 = 10.0;

/// The pace of one match's pictures: one per `every` on average (`None`: every frame), on a
/// schedule rather than "`every` after the last", so 25 fps frames give 10 pictures a second,
/// not 8.3.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pace {
    next: Option<Instant>,
}

impl Pace {
    /// Whether a frame at `now` should become a picture.
    #[must_use]
    pub fn due(&self, now: Instant) -> bool {
        self.next.is_none_or(|n| now >= n)
    }

    /// A picture was made at `now`: the next is due one `every` after the schedule's slot (or
    /// after `now`, when the schedule fell behind by more than a slot).
    pub fn made(&mut self, now: Instant, every: Option<Duration>) {
        self.next = every.map(|e| {
            let slot = self.next.filter(|n| *n + e > now).unwrap_or(now);
            slot + e
        });
    }
}

/// The canvas for a `width × height` video: at most [`MAX_WIDTH`] wide, even sizes.
#[must_use]
pub fn canvas((width, height): (u32, u32)) -> (u32, u32) {
    let (w, h) = if width > MAX_WIDTH {
        let h = (f64::from(height) * f64::from(MAX_WIDTH) / f64::from(width)).round() as u32;
        (MAX_WIDTH, h)
    } else {
        (width, height)
    };
    ((w & !1).max(2), (h & !1).max(2))
}

/// What `--viewer-video` comes to on this machine: the API's setting and, when on, the sink
/// that feeds the renderer. `auto`: on, every frame where a GPU renders and at most
/// [`CPU_PICTURES_PER_S`] where the only renderer is the CPU; `on`: every frame wherever.
///
/// # Errors
/// The render thread cannot be started.
pub fn start(mode: ViewerVideoMode) -> anyhow::Result<(ViewerVideo, Option<Sink>)> {
    if mode == ViewerVideoMode::Off {
        let why = "video for viewers is off on this server (started with --viewer-video off)";
        return Ok((ViewerVideo::Off(why.into()), None));
    }
    let probe = match sportz_overlay::Offscreen::new(16, 16) {
        Ok(p) => p,
        Err(e) => {
            let why = format!("video for viewers is off: this machine has no renderer ({e})");
            tracing::warn!("{why}");
            return Ok((ViewerVideo::Off(why), None));
        }
    };
    let every = (probe.software() && mode == ViewerVideoMode::Auto)
        .then(|| Duration::from_secs_f64(1.0 / CPU_PICTURES_PER_S));
    match every {
        Some(_) => {
            tracing::info!(adapter = %probe.describe(), "video for viewers is on, at most {CPU_PICTURES_PER_S} pictures a second (the CPU renders; --viewer-video on: every frame), drawn only while someone watches")
        }
        None => {
            tracing::info!(adapter = %probe.describe(), "video for viewers is on, every analysed frame, drawn only while someone watches")
        }
    }
    drop(probe);
    let hub = Arc::new(VideoHub::default());
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let render_hub = hub.clone();
    std::thread::Builder::new()
        .name("viewer-video".into())
        .spawn(move || render_loop(&rx, &render_hub))?;
    Ok((ViewerVideo::On(hub.clone()), Some(sink(hub, tx, every))))
}

type Job = (MatchId, VideoImage, FrameData);

/// Hands a frame to the renderer when its match has viewers, a picture is due and the
/// renderer is free.
fn sink(hub: Arc<VideoHub>, tx: SyncSender<Job>, every: Option<Duration>) -> Sink {
    let paces: Mutex<HashMap<MatchId, Pace>> = Mutex::default();
    Arc::new(move |m, f, a| {
        if !hub.analysed(m) {
            return;
        }
        let now = Instant::now();
        let mut paces = paces.lock().unwrap_or_else(PoisonError::into_inner);
        let pace = paces.entry(*m).or_default();
        if !pace.due(now) {
            return;
        }
        match tx.try_send((*m, video_of(f), a.frame.clone())) {
            Ok(()) => pace.made(now, every),
            Err(TrySendError::Full(_)) => {} // busy: this frame is skipped
            Err(TrySendError::Disconnected(_)) => {} // the renderer failed (logged)
        }
    })
}

fn render_loop(rx: &Receiver<Job>, hub: &VideoHub) {
    let mut off: Option<sportz_overlay::Offscreen> = None;
    let mut failures = 0u32;
    for (m, video, frame) in rx {
        let size = canvas((video.width, video.height));
        if off.as_ref().is_none_or(|o| o.size() != size) {
            match sportz_overlay::Offscreen::new(size.0, size.1) {
                Ok(o) => off = Some(o),
                Err(e) => {
                    let why = format!("video for viewers stopped: cannot render ({e})");
                    tracing::error!("{why}");
                    hub.stop(why);
                    return;
                }
            }
        }
        let Some(o) = off.as_mut() else { continue };
        match o
            .render(&scene_from_frame(&frame, Some(video)))
            .map_err(|e| e.to_string())
            .and_then(|img| jpeg(&img))
        {
            Ok(bytes) => {
                failures = 0;
                hub.publish(&m, &bytes);
            }
            Err(e) => {
                failures += 1;
                tracing::warn!("a picture for viewers was skipped: {e}");
                if failures >= 25 {
                    let why = format!("video for viewers stopped after 25 failures in a row ({e})");
                    tracing::error!("{why}");
                    hub.stop(why);
                    return;
                }
            }
        }
    }
}

/// One picture as JPEG.
///
/// # Errors
/// The encoder's complaint.
pub fn jpeg(img: &sportz_overlay::RgbaImage) -> Result<Vec<u8>, String> {
    let rgb: Vec<u8> = img
        .data
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    let mut out = Vec::with_capacity(128 << 10);
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, QUALITY)
        .encode(&rgb, img.width, img.height, image::ExtendedColorType::Rgb8)
        .map_err(|e| format!("JPEG encoding failed: {e}"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pictures_are_at_most_720p_wide_with_even_sides() {
        assert_eq!(canvas((1920, 1080)), (1280, 720));
        assert_eq!(canvas((1280, 720)), (1280, 720));
        assert_eq!(canvas((640, 361)), (640, 360));
        assert_eq!(canvas((3840, 1600)), (1280, 532));
        assert_eq!(canvas((1, 1)), (2, 2));
    }

    #[test]
    fn a_rendered_picture_is_a_jpeg_of_its_size() {
        let img = sportz_overlay::RgbaImage {
            width: 64,
            height: 32,
            data: [38u8, 120, 60, 255].repeat(64 * 32),
        };
        let bytes = jpeg(&img).unwrap();
        assert_eq!(&bytes[..2], b"\xff\xd8", "SOI");
        assert_eq!(&bytes[bytes.len() - 2..], b"\xff\xd9", "EOI");
        let back = image::load_from_memory(&bytes).unwrap().to_rgb8();
        assert_eq!(back.dimensions(), (64, 32));
        let [r, g, b] = back.get_pixel(10, 10).0;
        assert!(
            r.abs_diff(38) < 8 && g.abs_diff(120) < 8 && b.abs_diff(60) < 8,
            "{r} {g} {b}"
        );
    }

    /// How many of `frames` frames `ms` apart become pictures at one per `every`.
    fn pictures(frames: u64, ms: u64, every: Option<Duration>) -> usize {
        let t0 = Instant::now();
        let mut pace = Pace::default();
        (0..frames)
            .filter(|k| {
                let now = t0 + Duration::from_millis(k * ms);
                let due = pace.due(now);
                if due {
                    pace.made(now, every);
                }
                due
            })
            .count()
    }

    #[test]
    fn pictures_keep_their_pace_on_average_and_every_frame_without_one() {
        let tenth = Some(Duration::from_millis(100));
        // 10 s of 25 fps frames: 100 pictures at 10 a second, not 84 (every third frame)
        assert_eq!(pictures(250, 40, tenth), 100);
        assert_eq!(pictures(250, 40, None), 250);
        // frames slower than the pace: each one
        assert_eq!(pictures(20, 200, tenth), 20);
        // a long gap does not earn a burst afterwards
        let t0 = Instant::now();
        let mut pace = Pace::default();
        pace.made(t0, tenth);
        let late = t0 + Duration::from_secs(5);
        assert!(pace.due(late));
        pace.made(late, tenth);
        assert!(!pace.due(late + Duration::from_millis(40)));
    }

    #[test]
    fn off_means_off_with_the_reason() {
        let (video, sink) = start(ViewerVideoMode::Off).unwrap();
        assert!(sink.is_none());
        match video {
            ViewerVideo::Off(why) => assert!(why.contains("--viewer-video off"), "{why}"),
            ViewerVideo::On(_) => panic!("on"),
        }
    }
}
