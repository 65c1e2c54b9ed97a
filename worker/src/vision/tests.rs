//! The vision stage on scripted detections: trackers, teams, pitch mapping, events, and the
//! errors a session fails with.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use sportz_contract::worker::{PointPair as ContractPair, VideoSource};
use sportz_contract::{CoordinateMode, EventKind, ObjectClass, PitchPoint, PixelPoint};
use sportz_vision::BBox;

use super::*;

/// A detector that reports the same scene every frame (an addition to the real path, which
/// `tests/vision.rs` drives through ONNX Runtime): people standing still, the ball at the
/// first one's feet. Records the confidence threshold it was asked for.
struct Scene {
    people: Vec<BBox>,
    ball: Option<BBox>,
    asked: Arc<AtomicU32>,
    fail_at: Option<u32>,
    calls: u32,
}

impl Detect for Scene {
    fn detect(
        &mut self,
        _: &RgbImage<'_>,
        decode: &DecodeConfig,
    ) -> Result<(Detections, f64), AnalyzerError> {
        self.asked
            .store(decode.confidence_threshold.to_bits(), Ordering::Relaxed);
        self.calls += 1;
        if self.fail_at == Some(self.calls) {
            return Err(AnalyzerError::Other("unexpected model output: boom".into()));
        }
        let mut items: Vec<Detection> = self
            .people
            .iter()
            .map(|b| Detection::new(*b, 0.9, 0).with_class(ObjectClass::Player))
            .collect();
        items.extend(
            self.ball
                .map(|b| Detection::new(b, 0.8, 32).with_class(ObjectClass::Ball)),
        );
        Ok((Detections::new(items), 1.5))
    }
}

/// 4 px per metre, top-down: a person standing at (x, y) metres.
fn person_at(x: f32, y: f32) -> BBox {
    BBox::new(x * 4.0 - 4.0, y * 4.0 - 20.0, x * 4.0 + 4.0, y * 4.0)
}

fn scene(asked: &Arc<AtomicU32>) -> Scene {
    Scene {
        people: vec![
            person_at(30.0, 30.0),
            person_at(60.0, 20.0),
            person_at(80.0, 50.0),
        ],
        ball: Some(BBox::new(120.0, 118.0, 122.0, 120.0)),
        asked: asked.clone(),
        fail_at: None,
        calls: 0,
    }
}

fn calibrated(mut c: SessionConfig) -> SessionConfig {
    c.calibration = [(0.0, 0.0), (105.0, 0.0), (105.0, 68.0), (0.0, 68.0)]
        .map(|(x, y)| ContractPair {
            pixel: PixelPoint {
                x: x * 4.0,
                y: y * 4.0,
            },
            pitch: PitchPoint { x, y },
        })
        .to_vec();
    c
}

fn config() -> SessionConfig {
    SessionConfig::new(VideoSource::File("clip.mp4".into()))
}

fn frame(n: u64) -> VideoFrame {
    VideoFrame {
        frame_number: n,
        video_timestamp: n as f64 / 25.0,
        read_at: 1_700_000_000.0 + n as f64 / 25.0,
        read_instant: Instant::now(),
        width: 420,
        height: 272,
        rgb: vec![60; 420 * 272 * 3],
    }
}

fn run(analyzer: &mut VisionAnalyzer, frames: u64) -> Vec<Analysis> {
    (0..frames)
        .map(|n| analyzer.analyze(&frame(n)).unwrap())
        .collect()
}

fn analyzer(config: &SessionConfig, m: &MatchId, asked: &Arc<AtomicU32>) -> VisionAnalyzer {
    VisionAnalyzer::new(
        Box::new(scene(asked)),
        m,
        VisionSettings::from_config(config).unwrap(),
    )
}

#[test]
fn calibrated_frames_carry_stable_ids_pitch_metres_and_possession() {
    let asked = Arc::default();
    let m = MatchId::generate();
    let mut a = analyzer(&calibrated(config()), &m, &asked);
    let out = run(&mut a, 20);
    let last = &out[19].frame;
    assert_eq!(last.coordinate_mode, CoordinateMode::Pitch);
    let ids: Vec<u64> = last.players.iter().map(|p| p.track_id).collect();
    for o in &out[1..] {
        let here: Vec<u64> = o.frame.players.iter().map(|p| p.track_id).collect();
        assert_eq!(here, ids, "frame {}", o.frame.frame_number);
    }
    let p = last.players[0].pitch.unwrap();
    assert!(
        (p.x - 30.0).abs() < 0.2 && (p.y - 30.0).abs() < 0.2,
        "{p:?}"
    );
    let ball = last.ball.as_ref().expect("ball");
    assert!(!ball.predicted && ball.pitch.is_some());
    assert!(!last.trail.is_empty());
    assert_eq!(out[3].detect_ms, 1.5);
    // the ball rests at the first player's feet: possession, once
    let events: Vec<&EventData> = out.iter().flat_map(|o| &o.events).collect();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].kind, EventKind::Possession);
    assert_eq!(events[0].player_track_id, Some(ids[0]));

    // the same match seen again gives the same event ids
    let mut again = analyzer(&calibrated(config()), &m, &asked);
    let ids_again: Vec<_> = run(&mut again, 20)
        .iter()
        .flat_map(|o| o.events.iter().map(|e| e.event_id))
        .collect();
    assert_eq!(ids_again, vec![events[0].event_id]);
}

#[test]
fn uncalibrated_frames_have_null_pitch_fields_and_no_pitch_events() {
    let asked = Arc::default();
    let mut c = calibrated(config());
    c.calibration.truncate(3); // fewer than 4 pairs: uncalibrated, not an error
    let mut a = analyzer(&c, &MatchId::generate(), &asked);
    let out = run(&mut a, 10);
    let last = &out[9].frame;
    assert_eq!(last.coordinate_mode, CoordinateMode::Pixel);
    assert_eq!(last.players.len(), 3);
    assert!(last.players.iter().all(|p| p.pitch.is_none()));
    assert!(last.ball.as_ref().unwrap().pitch.is_none());
    assert!(out.iter().all(|o| o.events.is_empty()));
}

#[test]
fn the_session_confidence_threshold_decides_what_is_a_player() {
    let asked = Arc::new(AtomicU32::new(0));
    // the scene's people are 0.9, its ball 0.8; (threshold, tracking) → (players, ball)
    let cases = [
        (0.75, true, 3, true),
        // a track is born at threshold + 0.1 (ByteTrack), the ball at the threshold
        (0.85, true, 0, false),
        // without tracking, the threshold alone filters
        (0.85, false, 3, false),
        (0.95, false, 0, false),
    ];
    for (threshold, tracking, players, ball) in cases {
        let mut c = config();
        c.confidence_threshold = threshold;
        c.enable_tracking = tracking;
        let mut a = analyzer(&c, &MatchId::generate(), &asked);
        let last = run(&mut a, 10).pop().unwrap().frame;
        assert_eq!(
            (last.players.len(), last.ball.is_some()),
            (players, ball),
            "threshold {threshold}, tracking {tracking}"
        );
        // the detector keeps weak detections for the trackers to extend tracks with
        assert_eq!(f32::from_bits(asked.load(Ordering::Relaxed)), 0.05);
    }
}

#[test]
fn without_tracking_players_get_per_frame_ids_and_no_teams_or_events() {
    let asked = Arc::default();
    let mut c = calibrated(config());
    c.enable_tracking = false;
    let settings = VisionSettings::from_config(&c).unwrap();
    assert!(!settings.teams && !settings.events);
    let mut a = analyzer(&c, &MatchId::generate(), &asked);
    let out = run(&mut a, 20);
    for o in &out {
        let ids: Vec<u64> = o.frame.players.iter().map(|p| p.track_id).collect();
        assert_eq!(ids, [1, 2, 3]);
        assert!(o.frame.players.iter().all(|p| p.team.is_none()));
        assert!(o.events.is_empty());
    }
    // the ball is still tracked, and pitch positions still mapped
    assert!(out[19].frame.ball.is_some());
    assert!(out[19].frame.players[0].pitch.is_some());
}

#[test]
fn events_can_be_switched_off_alone() {
    let asked = Arc::default();
    let mut c = calibrated(config());
    c.enable_events = false;
    let mut a = analyzer(&c, &MatchId::generate(), &asked);
    let out = run(&mut a, 20);
    assert!(out.iter().all(|o| o.events.is_empty()));
    assert_eq!(out[19].frame.players.len(), 3);
}

#[test]
fn a_degenerate_calibration_is_refused() {
    let mut c = config();
    c.calibration = (0..4)
        .map(|i| ContractPair {
            pixel: PixelPoint {
                x: f64::from(i) * 10.0,
                y: f64::from(i) * 10.0,
            },
            pitch: PitchPoint {
                x: f64::from(i),
                y: f64::from(i),
            },
        })
        .collect();
    let err = VisionSettings::from_config(&c).unwrap_err().to_string();
    assert!(err.starts_with("calibration rejected"), "{err}");
}

#[test]
fn a_detector_failure_fails_the_frame_with_its_message() {
    let asked = Arc::default();
    let mut s = scene(&asked);
    s.fail_at = Some(2);
    let mut a = VisionAnalyzer::new(
        Box::new(s),
        &MatchId::generate(),
        VisionSettings::from_config(&config()).unwrap(),
    );
    assert!(a.analyze(&frame(0)).is_ok());
    let err = a.analyze(&frame(1)).unwrap_err().to_string();
    assert!(err.contains("unexpected model output"), "{err}");
}

#[test]
fn a_frame_whose_buffer_does_not_match_its_size_is_an_error() {
    let asked = Arc::default();
    let mut a = analyzer(&config(), &MatchId::generate(), &asked);
    let mut f = frame(0);
    f.rgb.truncate(10);
    assert!(a.analyze(&f).unwrap_err().to_string().contains("expected"));
}

/// A live source: the camera search runs beside the frame loop, so the first frames go out at
/// once in pixel mode and the camera arrives a few frames later (brought forward to that frame).
#[test]
fn on_a_live_source_the_camera_is_found_beside_the_frame_loop() {
    live_camera_found(640, 360);
}

/// The same at 720p: the tracker reads frames at its working width, and the search thread
/// shrinks its copy of the frame alike (a camera found on the full-size copy would be in other
/// pixels).
#[test]
fn on_a_live_720p_source_the_search_reads_the_frame_as_the_tracker_does() {
    live_camera_found(1280, 720);
}

fn live_camera_found(width: u32, height: u32) {
    let mut config = SessionConfig::new(VideoSource::Synthetic(6262));
    config.realtime = true;
    let settings = VisionSettings::from_config(&config).unwrap();
    assert!(settings.camera.deferred_init);
    let asked = Arc::new(AtomicU32::new(0));
    let mut a = VisionAnalyzer::new(
        Box::new(Scene {
            people: Vec::new(),
            ball: None,
            ..scene(&asked)
        }),
        &MatchId::generate(),
        settings,
    );
    let cfg = sportz_synth::SynthConfig {
        width,
        height,
        cuts: false,
        ..sportz_synth::SynthConfig::default()
    };
    let mut m = sportz_synth::SynthMatch::new(6262, cfg).unwrap();
    let started = Instant::now();
    let mut first_ms = f64::NAN;
    let mut found_at = None;
    for n in 0..200u64 {
        let (img, truth) = m.render_next();
        let f = VideoFrame {
            frame_number: n,
            video_timestamp: n as f64 / 25.0,
            read_at: 1_700_000_000.0 + n as f64 / 25.0,
            read_instant: Instant::now(),
            width: img.width,
            height: img.height,
            rgb: img.data,
        };
        let t = Instant::now();
        let out = a.analyze(&f).unwrap();
        if n == 0 {
            first_ms = t.elapsed().as_secs_f64() * 1000.0;
            assert_eq!(out.frame.coordinate_mode, CoordinateMode::Pixel);
            assert!(out.camera_missing.is_some());
        }
        if let Some(cam) = &out.frame.camera {
            assert_eq!(cam.source, sportz_contract::CameraSource::Auto);
            assert_eq!(out.frame.coordinate_mode, CoordinateMode::Pitch);
            // the camera of an earlier frame, brought to this one: the centre of the image maps
            // where the truth camera says
            let h = cam.image_to_pitch;
            let (u, v) = (f64::from(width) / 2.0, f64::from(height) / 2.0);
            let w = h[6] * u + h[7] * v + h[8];
            let (x, y) = (
                (h[0] * u + h[1] * v + h[2]) / w,
                (h[3] * u + h[4] * v + h[5]) / w,
            );
            let t = truth.camera.pitch_from_image;
            let tw = t[2][0] * u + t[2][1] * v + t[2][2];
            let (tx, ty) = (
                (t[0][0] * u + t[0][1] * v + t[0][2]) / tw,
                (t[1][0] * u + t[1][1] * v + t[1][2]) / tw,
            );
            let err = (x - tx).hypot(y - ty);
            assert!(
                err < 1.0,
                "frame {n}: image centre {err:.2} m from the truth"
            );
            found_at = Some(n);
            break;
        }
        // a live source paces the frames; give the search thread its turn
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let n = found_at.unwrap_or_else(|| panic!("no camera in 200 frames ({:?})", started.elapsed()));
    assert!(
        n >= 1,
        "found on frame 0: the search did not run beside the loop"
    );
    println!("first frame analysed in {first_ms:.1} ms; camera from frame {n}");
}

#[test]
fn a_camera_search_that_ended_without_an_answer_answers_not_run() {
    let (tx, rx) = std::sync::mpsc::channel::<InitResult>();
    assert!(search_answer(&rx).is_none(), "still running: no answer yet");
    drop(tx); // the thread could not start, or panicked before sending
    match search_answer(&rx) {
        Some(Err(sportz_vision::camera::InitFailure::NotRun(why))) => {
            assert!(why.contains("without an answer"), "{why}");
        }
        other => panic!("expected NotRun, got {other:?}"),
    }
}

/// Frame `n`: textured grass (10-px patches of three greens) panned `shift` px, with a striped
/// badge fixed at (560..620, 20..44) — a broadcast graphic the picture moves under.
fn grass_with_badge(n: u64, shift: u32) -> VideoFrame {
    let (w, h) = (640u32, 360u32);
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    for y in 0..h {
        for x in 0..w {
            let (px, py) = (u64::from((x + 2000 - shift) / 10), u64::from(y / 10));
            let k = (px.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ py.wrapping_mul(0xC2B2_AE3D_27D4_EB4F))
                >> 61;
            let mut c = [40, 100 + 25 * (k % 3) as u8, 40];
            if (560..620).contains(&x) && (20..44).contains(&y) {
                c = if (x / 3).is_multiple_of(2) {
                    [250; 3]
                } else {
                    [10; 3]
                };
            }
            let i = ((y * w + x) * 3) as usize;
            rgb[i..i + 3].copy_from_slice(&c);
        }
    }
    VideoFrame {
        frame_number: n,
        video_timestamp: n as f64 / 25.0,
        read_at: 1_700_000_000.0 + n as f64 / 25.0,
        read_instant: Instant::now(),
        width: w,
        height: h,
        rgb,
    }
}

/// Whether a ball is published on each of 40 frames of a still picture that follow 40 frames
/// of a 4-px-a-frame pan, the detector reporting a "ball" at `ball` in every frame (no
/// camera: pixel mode throughout, as in a close-up).
fn balls_after_a_pan(ball: BBox) -> Vec<bool> {
    let asked = Arc::new(AtomicU32::new(0));
    let mut a = VisionAnalyzer::new(
        Box::new(Scene {
            people: Vec::new(),
            ball: Some(ball),
            ..scene(&asked)
        }),
        &MatchId::generate(),
        VisionSettings::from_config(&config()).unwrap(),
    );
    (0..80u32)
        .filter_map(|n| {
            let out = a
                .analyze(&grass_with_badge(u64::from(n), 4 * n.min(40)))
                .unwrap();
            assert_eq!(out.frame.coordinate_mode, CoordinateMode::Pixel);
            (n >= 40).then_some(out.frame.ball.is_some())
        })
        .collect()
}

#[test]
fn a_ball_on_a_broadcast_graphic_is_refused_once_the_picture_moved_under_it() {
    // the pan showed the badge is a graphic: its "ball" is none once the picture stands still
    let on_badge = balls_after_a_pan(BBox::new(586.0, 28.0, 592.0, 34.0));
    assert!(
        on_badge.iter().all(|b| !b),
        "published on still frames {:?}",
        (0..40).filter(|&i| on_badge[i]).collect::<Vec<_>>()
    );
    // the same detection on the grass is a ball
    let on_grass = balls_after_a_pan(BBox::new(300.0, 200.0, 306.0, 206.0));
    assert!(on_grass[5..].iter().all(|b| *b), "{on_grass:?}");
}
