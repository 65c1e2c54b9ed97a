//! Glue between the worker and the overlay renderer: contract frames become overlay scenes, and a
//! tap on the vision stage hands each analysed video frame (pixels and results together) to the
//! desktop overlay or to `track --annotate`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use sportz_contract::worker::SessionConfig;
use sportz_contract::{FrameData, MatchId, TeamSide};
use sportz_overlay::{
    BoxMark, Mark, Radar, RadarDot, Rgba, Scene, VideoImage, project_pitch_lines,
};
use sportz_worker::source::VideoFrame;
use sportz_worker::{Analysis, Analyzer, AnalyzerError, AnalyzerFactory};

/// Colours on the overlay until the match's kits are known (the frame's `kits`): home, away,
/// and referees/unassigned (always this one).
pub const HOME: Rgba = Rgba::rgb(230, 57, 70);
pub const AWAY: Rgba = Rgba::rgb(58, 134, 255);
pub const OTHER: Rgba = Rgba::rgb(255, 190, 11);

/// `#rrggbb` → a colour; `None` for anything else.
fn parse_hex(s: &str) -> Option<Rgba> {
    let [r, g, b] = sportz_contract::frame::rgb_of_hex(s)?;
    Some(Rgba::rgb(r, g, b))
}

/// The home and away colours of a frame: its learnt kits, else the fixed palette.
fn kit_colours(frame: &FrameData) -> (Rgba, Rgba) {
    let kits = frame.kits.as_ref();
    (
        kits.and_then(|k| parse_hex(&k.home)).unwrap_or(HOME),
        kits.and_then(|k| parse_hex(&k.away)).unwrap_or(AWAY),
    )
}

fn team_colour(team: Option<TeamSide>, (home, away): (Rgba, Rgba)) -> Rgba {
    match team {
        Some(TeamSide::Home) => home,
        Some(TeamSide::Away) => away,
        Some(TeamSide::Other) | None => OTHER,
    }
}

/// The overlay scene of one contract frame, over its video frame when there is one; with the
/// pitch model's lines projected through the frame's camera when it has one (pixel mode has
/// none), which the scene's `show_pitch_lines` can turn off.
#[must_use]
pub fn scene_from_frame(frame: &FrameData, video: Option<VideoImage>) -> Scene {
    let mut s = Scene::new(frame.width, frame.height);
    s.video = video;
    let kits = kit_colours(frame);
    if let Some(camera) = &frame.camera {
        s.pitch_lines = project_pitch_lines(&camera.image_to_pitch, (frame.width, frame.height));
    }
    s.boxes = frame
        .players
        .iter()
        .map(|p| BoxMark {
            x1: p.bbox[0] as f32,
            y1: p.bbox[1] as f32,
            x2: p.bbox[2] as f32,
            y2: p.bbox[3] as f32,
            color: team_colour(p.team, kits),
            label: u32::try_from(p.track_id).ok(),
        })
        .collect();
    s.trail = frame
        .trail
        .iter()
        .map(|t| Mark {
            x: t.x as f32,
            y: t.y as f32,
            predicted: t.predicted,
        })
        .collect();
    s.ball = frame.ball.as_ref().map(|b| Mark {
        x: b.pixel.x as f32,
        y: b.pixel.y as f32,
        predicted: frame.trail.last().is_some_and(|t| t.predicted),
    });
    let dots: Vec<RadarDot> = frame
        .players
        .iter()
        .filter_map(|p| {
            p.pitch.map(|q| RadarDot {
                x: q.x as f32,
                y: q.y as f32,
                color: team_colour(p.team, kits),
            })
        })
        .collect();
    let ball = frame
        .ball
        .as_ref()
        .and_then(|b| b.pitch)
        .map(|q| (q.x as f32, q.y as f32));
    if !dots.is_empty() || ball.is_some() {
        s.radar = Some(Radar {
            length: 105.0,
            width: 68.0,
            dots,
            ball,
        });
    }
    s
}

/// Receives every analysed frame of every session (on the analyser's thread: keep it short).
pub type Sink = Arc<dyn Fn(&MatchId, &VideoFrame, &Analysis) + Send + Sync>;

/// Wraps an analyser factory so that each analysed frame also goes to a [`Sink`].
pub struct TapFactory {
    pub inner: Arc<dyn AnalyzerFactory>,
    pub sink: Sink,
}

impl std::fmt::Debug for TapFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TapFactory")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

struct Tapped {
    inner: Box<dyn Analyzer>,
    match_id: MatchId,
    sink: Sink,
}

impl Analyzer for Tapped {
    fn analyze(&mut self, frame: &VideoFrame) -> Result<Analysis, AnalyzerError> {
        let a = self.inner.analyze(frame)?;
        (self.sink)(&self.match_id, frame, &a);
        Ok(a)
    }

    fn detect_stages(&mut self) -> Vec<Box<dyn sportz_worker::DetectStage>> {
        self.inner.detect_stages()
    }

    fn finish(
        &mut self,
        frame: &VideoFrame,
        detected: sportz_worker::Detected,
    ) -> Result<Analysis, AnalyzerError> {
        let a = self.inner.finish(frame, detected)?;
        (self.sink)(&self.match_id, frame, &a);
        Ok(a)
    }
}

impl AnalyzerFactory for TapFactory {
    fn create(
        &self,
        m: &MatchId,
        config: &SessionConfig,
    ) -> Result<Box<dyn Analyzer>, AnalyzerError> {
        Ok(Box::new(Tapped {
            inner: self.inner.create(m, config)?,
            match_id: *m,
            sink: self.sink.clone(),
        }))
    }
    fn device(&self) -> String {
        self.inner.device()
    }
    fn models(&self) -> Vec<String> {
        self.inner.models()
    }
}

/// The pixels of a decoded frame, as the overlay takes them.
pub fn video_of(f: &VideoFrame) -> VideoImage {
    VideoImage {
        width: f.width,
        height: f.height,
        rgb: f.rgb.clone(),
    }
}

#[derive(Debug)]
struct Drawn {
    /// Counts the match's frames, so a reader can tell a new scene from the one it drew.
    n: u64,
    at: std::time::Instant,
    scene: Arc<Scene>,
    /// From the bus (a worker elsewhere), not this process's analyser: no video.
    remote: bool,
}

/// How long a match's local frames (with video) win over the same match's frames from the bus.
const LOCAL_WINS: std::time::Duration = std::time::Duration::from_secs(2);

/// The latest analysed frame of each match, for the desktop overlay.
#[derive(Debug, Clone, Default)]
pub struct Latest(Arc<Mutex<HashMap<MatchId, Drawn>>>);

impl Latest {
    /// A sink that keeps each match's latest frame as a scene.
    #[must_use]
    pub fn sink(&self) -> Sink {
        let map = self.0.clone();
        Arc::new(move |m, f, a| {
            let scene = Arc::new(scene_from_frame(&a.frame, Some(video_of(f))));
            let mut map = map.lock().unwrap_or_else(PoisonError::into_inner);
            let n = map.get(m).map_or(0, |d| d.n + 1);
            let at = std::time::Instant::now();
            map.insert(
                *m,
                Drawn {
                    n,
                    at,
                    scene,
                    remote: false,
                },
            );
        })
    }

    /// Keeps a frame heard on the bus as the match's scene (boxes, ids, ball and radar on a
    /// pitch-coloured background, no video) — unless this process analyses the match itself
    /// and drew it less than [`LOCAL_WINS`] ago (every local frame is on the bus too).
    pub fn remote(&self, m: &MatchId, frame: &FrameData) {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if map
            .get(m)
            .is_some_and(|d| !d.remote && d.at.elapsed() < LOCAL_WINS)
        {
            return;
        }
        let n = map.get(m).map_or(0, |d| d.n + 1);
        map.insert(
            *m,
            Drawn {
                n,
                at: std::time::Instant::now(),
                scene: Arc::new(scene_from_frame(frame, None)),
                remote: true,
            },
        );
    }

    /// Whether the match's latest scene came from the bus (a worker elsewhere).
    #[must_use]
    pub fn is_remote(&self, m: &MatchId) -> bool {
        let map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.get(m).is_some_and(|d| d.remote)
    }

    /// Feeds [`Self::remote`] from every match's frames on the bus until `shutdown`;
    /// subscribes again after the bus was lost.
    pub async fn follow_bus(
        self,
        bus: sportz_bus::ContractBus,
        shutdown: tokio_util::sync::CancellationToken,
    ) {
        use sportz_bus::{SubEvent, Topic};
        let topics = [Topic::Pattern(
            sportz_contract::keys::Channel::Detections.pattern(),
        )];
        loop {
            let sub = tokio::select! {
                () = shutdown.cancelled() => return,
                s = bus.raw().subscribe(&topics, 64) => s,
            };
            let mut sub = match sub {
                Ok(s) => s,
                Err(e) => {
                    tracing::debug!("the overlay cannot hear the bus yet: {e}");
                    tokio::select! {
                        () = shutdown.cancelled() => return,
                        () = tokio::time::sleep(std::time::Duration::from_secs(1)) => continue,
                    }
                }
            };
            loop {
                let ev = tokio::select! {
                    () = shutdown.cancelled() => return,
                    ev = sub.next() => ev,
                };
                let Some(ev) = ev else { break };
                let SubEvent::Message(msg) = ev else { continue };
                if let Ok(sportz_contract::Envelope {
                    match_id,
                    payload: sportz_contract::Payload::Frame(f),
                    ..
                }) = sportz_contract::Envelope::from_json(&msg.payload)
                {
                    self.remote(&match_id, &f);
                }
            }
        }
    }

    /// The latest scene of `m` and its number, if it is not the one numbered `seen`.
    #[must_use]
    pub fn newer(&self, m: &MatchId, seen: Option<u64>) -> Option<(u64, Arc<Scene>)> {
        let map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.get(m)
            .filter(|d| seen != Some(d.n))
            .map(|d| (d.n, d.scene.clone()))
    }

    /// The match that produced a frame most recently, if any (the overlay's default).
    #[must_use]
    pub fn most_recent(&self) -> Option<MatchId> {
        let map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.iter().max_by_key(|(_, d)| d.at).map(|(m, _)| *m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sportz_contract::{
        CameraSource, CoordinateMode, FrameCamera, ObjectClass, PitchPoint, Player,
    };

    fn frame() -> FrameData {
        FrameData {
            frame_number: 3,
            video_timestamp: 0.12,
            timestamp: 0.0,
            width: 1280,
            height: 720,
            coordinate_mode: CoordinateMode::Pitch,
            ball: None,
            trail: Vec::new(),
            players: vec![
                Player {
                    track_id: 9,
                    class: ObjectClass::Player,
                    bbox: [10.0, 20.0, 40.0, 100.0],
                    confidence: 0.9,
                    pitch: Some(PitchPoint { x: 30.0, y: 10.0 }),
                    team: Some(TeamSide::Away),
                },
                Player {
                    track_id: 11,
                    class: ObjectClass::Player,
                    bbox: [100.0, 20.0, 140.0, 100.0],
                    confidence: 0.9,
                    pitch: None,
                    team: None,
                },
            ],
            latency_ms: 0.0,
            camera: None,
            kits: None,
        }
    }

    #[test]
    fn players_become_boxes_in_team_colours_and_radar_dots_when_on_the_pitch() {
        let s = scene_from_frame(&frame(), None);
        assert_eq!(s.frame_size, (1280, 720));
        assert_eq!(s.boxes.len(), 2);
        assert_eq!((s.boxes[0].color, s.boxes[0].label), (AWAY, Some(9)));
        assert_eq!(s.boxes[1].color, OTHER);
        let radar = s.radar.expect("a radar when a player has a pitch position");
        assert_eq!(radar.dots.len(), 1);
        assert_eq!((radar.dots[0].x, radar.dots[0].y), (30.0, 10.0));
    }

    #[test]
    fn learnt_kit_colours_replace_the_palette() {
        let mut f = frame();
        f.kits = Some(sportz_contract::Kits {
            home: "#101010".to_owned(),
            away: "#f0e0d0".to_owned(),
        });
        let s = scene_from_frame(&f, None);
        assert_eq!(s.boxes[0].color, Rgba::rgb(0xf0, 0xe0, 0xd0));
        assert_eq!(s.radar.unwrap().dots[0].color, Rgba::rgb(0xf0, 0xe0, 0xd0));
        assert_eq!(s.boxes[1].color, OTHER, "no side: the fixed colour");
        // malformed kits fall back to the palette
        for bad in ["f0e0d0", "#f0e0", "#zzzzzz", "#f0e0d0ff", ""] {
            f.kits = Some(sportz_contract::Kits {
                home: bad.to_owned(),
                away: bad.to_owned(),
            });
            assert_eq!(scene_from_frame(&f, None).boxes[0].color, AWAY, "{bad:?}");
        }
    }

    #[test]
    fn no_pitch_positions_no_radar() {
        let mut f = frame();
        f.players.iter_mut().for_each(|p| p.pitch = None);
        assert!(scene_from_frame(&f, None).radar.is_none());
    }

    #[test]
    fn a_frame_with_a_camera_gets_its_pitch_lines_and_one_without_none() {
        assert!(scene_from_frame(&frame(), None).pitch_lines.is_empty());
        let mut f = frame();
        // a camera looking straight down: pixel = 10 × metres + (115, 20)
        f.camera = Some(FrameCamera {
            image_to_pitch: [0.1, 0.0, -11.5, 0.0, 0.1, -2.0, 0.0, 0.0, 1.0],
            source: CameraSource::Auto,
            confidence: 0.8,
        });
        let s = scene_from_frame(&f, None);
        assert!(s.show_pitch_lines);
        let points: Vec<[f32; 2]> = s.pitch_lines.iter().flatten().copied().collect();
        assert!(!points.is_empty());
        // the halfway line at x = 640, the goal lines at 115 and 1165
        for x in [640.0, 115.0, 1165.0] {
            assert!(points.iter().any(|p| (p[0] - x).abs() < 1e-3), "x = {x}");
        }
        assert!(
            points
                .iter()
                .all(|p| (0.0..=1280.0).contains(&p[0]) && (0.0..=720.0).contains(&p[1]))
        );
    }

    #[test]
    fn frames_from_the_bus_draw_a_match_analysed_elsewhere_but_never_over_local_ones() {
        let latest = Latest::default();
        let (remote, local) = (MatchId::generate(), MatchId::generate());
        latest.remote(&remote, &frame());
        let (_, scene) = latest.newer(&remote, None).expect("a scene from the bus");
        assert!(scene.video.is_none(), "no video from the bus");
        assert_eq!(scene.boxes.len(), 2);
        assert!(scene.radar.is_some());
        assert!(latest.is_remote(&remote));
        // a match this process analyses: its own frames (with video) win
        latest.0.lock().unwrap().insert(
            local,
            Drawn {
                n: 0,
                at: std::time::Instant::now(),
                scene: Arc::new(Scene::new(1280, 720)),
                remote: false,
            },
        );
        latest.remote(&local, &frame());
        assert!(!latest.is_remote(&local), "the local scene is kept");
        assert_eq!(latest.newer(&local, None).map(|(n, _)| n), Some(0));
    }

    #[tokio::test]
    async fn the_overlay_hears_frames_on_the_bus() {
        let bus = sportz_bus::ContractBus::new(Arc::new(sportz_bus::MemoryBus::new()));
        let latest = Latest::default();
        let stop = tokio_util::sync::CancellationToken::new();
        let task = tokio::spawn(latest.clone().follow_bus(bus.clone(), stop.clone()));
        let m = MatchId::generate();
        let env = sportz_contract::Envelope {
            match_id: m,
            session_id: Some(sportz_contract::SessionId::generate()),
            ts: 1.0,
            seq: 1,
            payload: sportz_contract::Payload::Frame(Box::new(frame())),
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        // published until heard: the subscription starts with the task
        while latest.newer(&m, None).is_none() {
            assert!(std::time::Instant::now() < deadline, "never heard");
            bus.publish(&env).await.unwrap();
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        assert!(latest.is_remote(&m));
        stop.cancel();
        task.await.unwrap();
    }
}
