//! The synthetic broadcast match (issue 8): a deterministic football match rendered through a
//! panning, zooming broadcast camera, with exact ground truth for every frame.
//!
//! The main camera stands where World Cup 2014 broadcast cameras stand (seeded from their
//! statistics) and zooms within their focal range; every 10–25 s the picture cuts to another
//! angle or a close-up for a few seconds and back (`SynthConfig::cuts`; truth marks each frame's
//! `camera.shot`, `camera.cut` and `camera.pitch_visible`). See `sim_camera.rs`.
//!
//! - [`SynthMatch`] renders frames in order (a live demo source: `VideoSource::Synthetic(seed)`),
//!   each with its [`FrameTruth`]: camera homographies, every person's box, pitch position,
//!   team, role and visibility, the ball, the events of that frame.
//! - [`write_match`] writes `match.mp4` (H.264 through an `ffmpeg` child), `truth.jsonl`,
//!   `events.json`, `calibration.json` and `meta.json` into a folder.
//! - [`simulate_events`] runs the match engine alone (no pixels) for the true events.
//!
//! Everything but [`write_match`] is pure: no IO, no threads, no clock. The same seed and
//! [`SynthConfig`] give the same pixels and truth on every machine. The match itself (players,
//! ball, camera path, events) depends on the seed only, not on the resolution or frame rate.
//!
//! ```
//! use sportz_synth::{SynthConfig, SynthMatch};
//!
//! let cfg = SynthConfig { width: 320, height: 180, ..SynthConfig::default() };
//! let mut demo = SynthMatch::new(7, cfg).unwrap();
//! let (image, truth) = demo.render_next(); // frame 0; call again for frame 1, …
//! assert_eq!(image.data.len(), 320 * 180 * 3); // rgb24, row-major
//! assert_eq!(truth.objects.len(), 23); // 22 players and the referee
//! let (u, v) = sportz_synth::apply(&truth.camera.image_from_pitch, 52.5, 34.0).unwrap();
//! assert!((0.0..320.0).contains(&u) && (0.0..180.0).contains(&v)); // kickoff: centre spot in view
//! ```
//!
//! Teams: 11 per side (10 outfield players and a goalkeeper in a distinct shirt) plus one
//! referee. Pitch coordinates follow the contract: metres on a 105×68 pitch, origin at a
//! corner, x along the length; the camera stands on the y = 68 side, so x grows to the right
//! and y = 0 is the far touchline. The home team attacks towards x = 105.

mod font;
mod geom;
mod pitch;
mod post;
mod raster;
mod render;
mod rng;
mod sim;
mod truth;
mod writer;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_shots;

use sportz_contract::{PitchPoint, PixelPoint};

pub use geom::{Mat3, apply};
pub use truth::{
    BallTruth, CalibrationPoint, CameraTruth, EventTruth, FrameTruth, ObjectTruth, Score, Shot,
    Visibility,
};
pub use writer::{FfmpegOptions, Progress, Summary, write_match, write_match_with};

use crate::geom::{Camera, V2, invert, v3};
use crate::pitch::{LANDMARKS, Markings};
use crate::raster::Canvas;
use crate::render::{BALL_ID, Drawn, Palette};
use crate::rng::Rng;
use crate::sim::camera::{camera_of, ground_at_centre};
use crate::sim::{HZ, RawEvent, Sim};
use crate::truth::{bbox_of, visibility};

/// Why a match cannot be rendered or written.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    #[error("invalid synth config: {0}")]
    InvalidConfig(String),
    #[error("cannot write {path}: {source}")]
    Io {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("ffmpeg not found (tried `{program}`): install ffmpeg or set FfmpegOptions::program")]
    FfmpegMissing { program: String },
    #[error("ffmpeg failed ({status}): {stderr_tail}")]
    FfmpegFailed { status: String, stderr_tail: String },
}

/// How to render a match. The match itself depends only on the seed.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SynthConfig {
    /// Frame width in pixels (even, 64..=7680).
    pub width: u32,
    /// Frame height in pixels (even, 64..=4320).
    pub height: u32,
    /// Frames per second (1..=120).
    pub fps: u32,
    /// Length of the video, seconds; the worker's live demo ignores it and plays on.
    pub duration_secs: f64,
    /// Draw the score and clock box at the top left.
    pub scoreboard: bool,
    /// Blend each frame with the previous output (11/16 new, 5/16 old: a cheap shutter blur
    /// that leaves a faint trail behind fast objects; truth boxes are those of the new frame).
    pub motion_blur: bool,
    /// Add seeded sensor noise (-3..=+4 per channel) before encoding.
    pub noise: bool,
    /// Cut away from the main camera now and then, as a broadcast does: every 10–25 s to a
    /// second angle for 2–5 s or to a close-up for 1.5–3 s, then back (seeded; truth marks
    /// each frame's `shot` and `cut`). Off: the main camera throughout. The match and the main
    /// camera's path are the same either way. Absent in older `meta.json`: on.
    #[serde(default = "yes")]
    pub cuts: bool,
    /// Both teams wear the home kit (keepers and the referee keep theirs): a match in which
    /// shirt colours cannot tell the teams apart. Absent in older `meta.json`: off.
    #[serde(default)]
    pub one_kit: bool,
    /// Draw the ball (and its shadow). Off: a match whose ball is never seen (truth `visible`
    /// false throughout; it is still simulated and its events happen). Absent in older
    /// `meta.json`: on.
    #[serde(default = "yes")]
    pub ball: bool,
}

const fn yes() -> bool {
    true
}

impl Default for SynthConfig {
    /// 1280×720 at 25 fps, one minute, scoreboard on, no blur, no noise, cuts on.
    fn default() -> Self {
        Self {
            width: 1280,
            height: 720,
            fps: 25,
            duration_secs: 60.0,
            scoreboard: true,
            motion_blur: false,
            noise: false,
            cuts: true,
            one_kit: false,
            ball: true,
        }
    }
}

impl SynthConfig {
    /// The number of frames in `duration_secs`.
    #[must_use]
    pub fn frame_count(&self) -> u64 {
        (self.duration_secs * f64::from(self.fps)).round().max(0.0) as u64
    }

    /// Refuses sizes ffmpeg's yuv420p cannot take and rates the engine cannot sample.
    pub fn validate(&self) -> Result<(), SynthError> {
        let bad = |m: String| Err(SynthError::InvalidConfig(m));
        if !(64..=7680).contains(&self.width) || !self.width.is_multiple_of(2) {
            return bad(format!(
                "width: expected an even number in 64..=7680, got {}",
                self.width
            ));
        }
        if !(64..=4320).contains(&self.height) || !self.height.is_multiple_of(2) {
            return bad(format!(
                "height: expected an even number in 64..=4320, got {}",
                self.height
            ));
        }
        if !(1..=120).contains(&self.fps) {
            return bad(format!("fps: expected 1..=120, got {}", self.fps));
        }
        if !self.duration_secs.is_finite() || self.duration_secs < 0.0 {
            return bad(format!(
                "duration_secs: expected a finite number ≥ 0, got {}",
                self.duration_secs
            ));
        }
        Ok(())
    }
}

/// Shirt colours of one match (RGB), e.g. to check team assignment by colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shirts {
    pub home: [u8; 3],
    pub away: [u8; 3],
    pub home_keeper: [u8; 3],
    pub away_keeper: [u8; 3],
    pub referee: [u8; 3],
}

/// An RGB image, 3 bytes per pixel, rows top to bottom with no padding (ffmpeg's `rgb24`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RgbImage {
    pub width: u32,
    pub height: u32,
    pub data: Vec<u8>,
}

/// The index of the engine step that frame `n` shows: the last one at or before the frame's
/// timestamp (the engine runs at 50 Hz), so an event is reported on the first frame whose
/// timestamp is at or after it.
fn steps_for_frame(n: u64, fps: u32) -> u64 {
    ((n as f64 * HZ / f64::from(fps)) + 1e-9).floor() as u64
}

/// A match being rendered, frame by frame, in order.
#[derive(Debug)]
pub struct SynthMatch {
    cfg: SynthConfig,
    seed: u64,
    sim: Sim,
    canvas: Canvas,
    palette: Palette,
    marks: Markings,
    grain: Vec<u8>,
    noise: Rng,
    prev: Option<Vec<u8>>,
    next: u64,
    events_seen: usize,
    event_seq: u32,
    last_camera: Option<Camera>,
    /// The director's shot index at the previous frame (`None` before frame 0).
    prev_shot: Option<u64>,
}

impl SynthMatch {
    /// A match for `seed`, positioned before its first frame.
    pub fn new(seed: u64, cfg: SynthConfig) -> Result<Self, SynthError> {
        cfg.validate()?;
        let mut r = Rng::new(seed ^ 0xC0105);
        let mut palette = Palette::pick(r.next_u64());
        if cfg.one_kit {
            palette.away = palette.home;
        }
        Ok(Self {
            canvas: Canvas::new(cfg.width, cfg.height),
            sim: Sim::new(seed),
            palette,
            marks: Markings::standard(),
            grain: render::grain_tile(),
            noise: Rng::new(seed ^ 0x9015E),
            prev: None,
            next: 0,
            events_seen: 0,
            event_seq: 0,
            last_camera: None,
            prev_shot: None,
            cfg,
            seed,
        })
    }

    #[must_use]
    pub fn config(&self) -> &SynthConfig {
        &self.cfg
    }

    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The number of the frame the next render call produces.
    #[must_use]
    pub fn next_frame_number(&self) -> u64 {
        self.next
    }

    /// Shirt colours (RGB) of this match: home, away, home keeper, away keeper, referee.
    #[must_use]
    pub fn shirts(&self) -> Shirts {
        Shirts {
            home: self.palette.home.shirt,
            away: self.palette.away.shirt,
            home_keeper: self.palette.home_keeper,
            away_keeper: self.palette.away_keeper,
            referee: render::REFEREE_SHIRT,
        }
    }

    /// Three-letter codes of the home and away teams (as on the scoreboard).
    #[must_use]
    pub fn team_codes(&self) -> (&'static str, &'static str) {
        (self.palette.home.code, self.palette.away.code)
    }

    /// Renders the next frame into a new image.
    pub fn render_next(&mut self) -> (RgbImage, FrameTruth) {
        let mut img = RgbImage {
            width: self.cfg.width,
            height: self.cfg.height,
            data: Vec::new(),
        };
        let truth = self.render_next_into(&mut img);
        (img, truth)
    }

    /// Renders frame `frame_number`: skips forward without drawing, or starts the match over
    /// when asked for an earlier frame (same result as rendering in order, except that motion
    /// blur restarts).
    pub fn render(&mut self, frame_number: u64) -> (RgbImage, FrameTruth) {
        if frame_number < self.next {
            *self = Self::new(self.seed, self.cfg.clone()).expect("config was valid");
        }
        if frame_number > self.next {
            // The events of skipped frames are passed over (their sequence numbers too), so
            // each frame's truth still lists exactly the events of that frame.
            self.sim_to(frame_number - 1);
            self.event_seq += (self.sim.events.len() - self.events_seen) as u32;
            self.events_seen = self.sim.events.len();
            self.next = frame_number;
            self.prev = None;
            self.prev_shot = Some(self.shot_index());
        }
        self.render_next()
    }

    fn sim_to(&mut self, frame_number: u64) {
        let target = steps_for_frame(frame_number, self.cfg.fps);
        while self.sim.steps < target {
            self.sim.step();
        }
    }

    /// Renders the next frame into `out` (reusing its buffer) and returns its truth.
    pub fn render_next_into(&mut self, out: &mut RgbImage) -> FrameTruth {
        let n = self.next;
        self.sim_to(n);
        self.next += 1;
        let cam = camera_of(&self.sim, self.cfg.width, self.cfg.height, self.cfg.cuts);
        let (people, ball) = render::render(
            &mut self.canvas,
            &self.sim,
            &cam,
            &self.palette,
            &self.marks,
            &self.grain,
            render::Layers {
                scoreboard: self.cfg.scoreboard,
                ball: self.cfg.ball,
            },
        );
        self.last_camera = Some(cam);
        out.width = self.cfg.width;
        out.height = self.cfg.height;
        out.data.clear();
        out.data.extend_from_slice(&self.canvas.rgb);
        if let Some(i) = self.close_up_subject() {
            let board = self.cfg.scoreboard.then(|| {
                let (home, away) = self.team_codes();
                let line = format!("{home} {}-{} {away}", self.sim.score[0], self.sim.score[1]);
                post::scoreboard_rect(&self.canvas, line.len(), self.sim.time() as u64)
            });
            post::close_up(&mut out.data, &self.canvas, (i + 1) as u16, board);
        }
        if self.cfg.motion_blur {
            match &mut self.prev {
                Some(prev) => {
                    for (o, p) in out.data.iter_mut().zip(prev.iter()) {
                        *o = ((u16::from(*o) * 11 + u16::from(*p) * 5) >> 4) as u8;
                    }
                    prev.copy_from_slice(&out.data);
                }
                None => self.prev = Some(out.data.clone()),
            }
        }
        if self.cfg.noise {
            post::add_noise(&mut out.data, &mut self.noise);
        }
        self.truth(n, &cam, &people, &ball)
    }

    /// The point pairs a user would click on the last rendered frame: every pitch landmark in
    /// view (8 px from the border) with no player or ball within 4 px, and not under the scoreboard.
    #[must_use]
    pub fn calibration(&self) -> Vec<CalibrationPoint> {
        let Some(cam) = &self.last_camera else {
            return Vec::new();
        };
        let (w, h) = (f64::from(self.cfg.width), f64::from(self.cfg.height));
        let sb = self.cfg.scoreboard.then(|| scoreboard_box(self.cfg.height));
        LANDMARKS
            .iter()
            .filter_map(|&(name, x, y)| {
                let p = cam.project(v3(x, y, 0.0))?;
                if p.x < 8.0 || p.y < 8.0 || p.x > w - 8.0 || p.y > h - 8.0 {
                    return None;
                }
                if sb.is_some_and(|b| p.x < b.0 && p.y < b.1) {
                    return None;
                }
                // Not under (or right beside) a player or the ball.
                let (cx, cy, w) = (p.x as usize, p.y as usize, self.cfg.width as usize);
                let covered = (cy - 4..=cy + 4)
                    .any(|y| (cx - 4..=cx + 4).any(|x| self.canvas.ids[y * w + x] != 0));
                if covered {
                    return None;
                }
                Some(CalibrationPoint {
                    pixel: PixelPoint { x: p.x, y: p.y },
                    pitch: PitchPoint { x, y },
                    name: name.to_owned(),
                })
            })
            .collect()
    }

    fn truth(&mut self, n: u64, cam: &Camera, people: &[Drawn], ball: &Drawn) -> FrameTruth {
        let new_events: Vec<RawEvent> = self.sim.events[self.events_seen..].to_vec();
        self.events_seen = self.sim.events.len();
        let events = new_events.iter().map(|e| self.event_truth(e, n)).collect();
        let fps = f64::from(self.cfg.fps);
        let mut visible = vec![0u32; BALL_ID as usize + 1];
        for &id in &self.canvas.ids {
            visible[id as usize] += 1;
        }
        let (w, h) = (f64::from(self.cfg.width), f64::from(self.cfg.height));
        let objects = self
            .sim
            .people
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let d = &people[i];
                let vis = visible[i + 1];
                let foot = cam.project(v3(p.pos.x, p.pos.y, 0.0)).unwrap_or(V2 {
                    x: f64::NAN,
                    y: f64::NAN,
                });
                let full = if d.full[0].is_finite() {
                    d.full
                } else {
                    [foot.x, foot.y, foot.x, foot.y]
                };
                let (visibility, visible_fraction, occluded_fraction) = visibility(d, vis, w, h);
                ObjectTruth {
                    id: p.id,
                    role: p.role,
                    team: p.team,
                    number: p.number,
                    bbox: bbox_of(d),
                    bbox_full: full,
                    pitch: PitchPoint {
                        x: p.pos.x,
                        y: p.pos.y,
                    },
                    foot_pixel: PixelPoint {
                        x: foot.x,
                        y: foot.y,
                    },
                    speed_mps: p.vel.len(),
                    visibility,
                    visible_fraction,
                    occluded_fraction,
                    visible_px: vis,
                }
            })
            .collect();
        let b = &self.sim.ball;
        let centre = cam
            .project(v3(b.pos.x, b.pos.y, b.h + sim::BALL_R))
            .unwrap_or(V2 {
                x: f64::NAN,
                y: f64::NAN,
            });
        let ball_vis = visible[BALL_ID as usize];
        let ball_truth = BallTruth {
            pixel: PixelPoint {
                x: centre.x,
                y: centre.y,
            },
            bbox: bbox_of(ball),
            pitch: PitchPoint {
                x: b.pos.x,
                y: b.pos.y,
            },
            height_m: b.h,
            visible: ball_vis > 0,
            visible_px: ball_vis,
            velocity_mps: [b.vel.x, b.vel.y, b.vz],
            speed_mps: (b.vel.x * b.vel.x + b.vel.y * b.vel.y + b.vz * b.vz).sqrt(),
            owner: b.owner.map(|i| self.sim.people[i].id),
            in_play: b.in_play,
        };
        let image_from_pitch = cam.image_from_pitch();
        let fov_deg = 2.0 * (w / 2.0 / cam.focal_px).atan().to_degrees();
        let target = ground_at_centre(cam);
        let shot = if self.cfg.cuts {
            self.sim.director.shot
        } else {
            Shot::Main
        };
        let index = self.shot_index();
        let cut = self.prev_shot.is_some_and(|p| p != index);
        self.prev_shot = Some(index);
        FrameTruth {
            frame_number: n,
            video_timestamp: n as f64 / fps,
            camera: CameraTruth {
                pitch_from_image: invert(&image_from_pitch),
                image_from_pitch,
                position_m: [cam.pos.x, cam.pos.y, cam.pos.z],
                target: PitchPoint {
                    x: target.x,
                    y: target.y,
                },
                fov_deg,
                shot,
                cut,
                pitch_visible: shot != Shot::CloseUp,
            },
            objects,
            ball: ball_truth,
            events,
            score: Score {
                home: self.sim.score[0],
                away: self.sim.score[1],
            },
            possession: b.owner.map(|i| self.sim.people[i].team),
        }
    }

    /// The person a close-up on air follows (an index into the engine's people).
    fn close_up_subject(&self) -> Option<usize> {
        let c = self.sim.director.cutaway.as_ref()?;
        if self.cfg.cuts { c.person } else { None }
    }

    /// Counts the cuts so far (0 throughout without cuts).
    fn shot_index(&self) -> u64 {
        if self.cfg.cuts {
            self.sim.director.index
        } else {
            0
        }
    }

    fn event_truth(&mut self, e: &RawEvent, frame: u64) -> EventTruth {
        self.event_seq += 1;
        EventTruth {
            seq: self.event_seq,
            kind: e.kind,
            frame,
            time_secs: e.time,
            pitch: PitchPoint {
                x: e.at.x,
                y: e.at.y,
            },
            team: e.team,
            player_id: e.player,
            target_player_id: e.target,
            speed_mps: e.speed,
            detail: e.detail.map(str::to_owned),
        }
    }
}

impl Iterator for SynthMatch {
    type Item = (RgbImage, FrameTruth);

    /// Frames until `duration_secs` is reached.
    fn next(&mut self) -> Option<Self::Item> {
        (self.next < self.cfg.frame_count()).then(|| self.render_next())
    }
}

/// The true events of the first `duration_secs` of match `seed` at `fps`, without rendering
/// (the same events, with the same frames, as the truth of a rendered match).
#[must_use]
pub fn simulate_events(seed: u64, duration_secs: f64, fps: u32) -> Vec<EventTruth> {
    let mut sim = Sim::new(seed);
    let fps = fps.max(1);
    let frames = (duration_secs * f64::from(fps)).round().max(0.0) as u64;
    let mut out = Vec::new();
    let mut seen = 0;
    for n in 0..frames {
        let target = steps_for_frame(n, fps);
        while sim.steps < target {
            sim.step();
        }
        for e in &sim.events[seen..] {
            out.push(EventTruth {
                seq: out.len() as u32 + 1,
                kind: e.kind,
                frame: n,
                time_secs: e.time,
                pitch: PitchPoint {
                    x: e.at.x,
                    y: e.at.y,
                },
                team: e.team,
                player_id: e.player,
                target_player_id: e.target,
                speed_mps: e.speed,
                detail: e.detail.map(str::to_owned),
            });
        }
        seen = sim.events.len();
    }
    out
}

/// Bottom-right corner of the scoreboard area (calibration points are not taken under it).
fn scoreboard_box(height: u32) -> (f64, f64) {
    let px = (f64::from(height) / 240.0).max(1.0).round();
    (px * 8.0 + 40.0 * 6.0 * px, px * 6.0 + 11.0 * px)
}
