//! The pitch calibration: the point pairs a user clicked (pixel ↔ metres on a 105×68 pitch). A
//! calibration is stored only when it fits: 4 to [`MAX_PAIRS`] pairs, on the pitch (5 m margin),
//! not degenerate. Fitting (RANSAC) runs on a blocking thread, off the async runtime.
//!
//! Also the still of the video the pairs are clicked on ([`still_jpeg`]) and the automatic
//! calibration of a still ([`auto_calibration`]): the camera found from the white pitch lines
//! and the point pairs it implies, which the operator confirms and saves through
//! [`set_calibration`] like clicked ones. Nothing here runs ffmpeg for longer than
//! [`FFMPEG_TIMEOUT`].

use std::sync::OnceLock;
use std::time::Duration;

use sportz_contract::worker::{PointPair, VideoSource};
use sportz_contract::{
    CameraSource, MatchId, PITCH_LENGTH_M, PITCH_WIDTH_M, PitchPoint, PixelPoint,
};
use sportz_store::Match;
use sportz_vision::Point;
use sportz_vision::camera::model::LineSample;
use sportz_vision::camera::{BroadcastCamera, InitConfig};

use crate::dto::AutoCalibrationDto;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// The longest one ffmpeg or ffprobe run for a still may take.
pub const FFMPEG_TIMEOUT: Duration = Duration::from_secs(15);

/// The most pairs an automatic calibration answers with; the fewest is 4.
pub const AUTO_MAX_PAIRS: usize = 8;

/// The most pairs a calibration may have: a user clicks a handful of landmarks, and the fit's cost
/// grows with the pairs (a 1 MiB body could otherwise carry ~10,000 of them).
pub const MAX_PAIRS: usize = 64;

/// Fits the pairs; the reprojection error on success, the reason on failure.
///
/// # Errors
/// The fitter's reason (too few pairs, collinear points, …).
pub fn fit(pairs: &[PointPair]) -> Result<sportz_vision::pitch::ReprojectionError, String> {
    sportz_vision::pitch::Calibration::fit_contract(pairs)
        .map(|c| c.error)
        .map_err(|e| e.to_string())
}

/// How well a stored calibration fits: `None` with fewer than 4 pairs or a degenerate set.
#[must_use]
pub fn reprojection_error(pairs: &[PointPair]) -> Option<sportz_vision::pitch::ReprojectionError> {
    if pairs.len() >= 4 {
        fit(pairs).ok()
    } else {
        None
    }
}

/// Checks a calibration as [`set_calibration`] does, without storing it.
///
/// # Errors
/// A validation error on `pairs` (or `pairs[i].pitch`) that says what was expected.
pub fn check(pairs: &[PointPair]) -> ApiResult<sportz_vision::pitch::ReprojectionError> {
    if pairs.len() < 4 {
        return Err(ApiError::field(
            "pairs",
            format!("need at least 4 point pairs, got {}", pairs.len()),
        ));
    }
    if pairs.len() > MAX_PAIRS {
        return Err(ApiError::field(
            "pairs",
            format!(
                "expected at most {MAX_PAIRS} point pairs, got {}",
                pairs.len()
            ),
        ));
    }
    let margin = 5.0;
    if let Some((i, _)) = pairs.iter().enumerate().find(|(_, p)| {
        !(-margin..=PITCH_LENGTH_M + margin).contains(&p.pitch.x)
            || !(-margin..=PITCH_WIDTH_M + margin).contains(&p.pitch.y)
    }) {
        return Err(ApiError::field(
            &format!("pairs[{i}].pitch"),
            "expected metres on a 105×68 pitch (x 0..105, y 0..68)",
        ));
    }
    fit(pairs).map_err(|why| ApiError::field("pairs", why))
}

/// Replaces a match's calibration once [`check`] passes; returns the match and the fit.
///
/// # Errors
/// 400 a calibration that does not fit, 404 unknown match.
pub async fn set_calibration(
    state: &AppState,
    id: MatchId,
    pairs: Vec<PointPair>,
) -> ApiResult<(Match, sportz_vision::pitch::ReprojectionError)> {
    let (pairs, fit) = tokio::task::spawn_blocking(move || check(&pairs).map(|f| (pairs, f)))
        .await
        .map_err(|e| ApiError::Internal(format!("calibration check: {e}")))??;
    let m = state.store.set_calibration(id, pairs).await?;
    state.calibration_fits.put(id, &m.calibration, Some(fit));
    Ok((m, fit))
}

/// A match's calibration pairs and how well they fit. The fit (RANSAC over up to
/// [`MAX_PAIRS`] pairs) is not redone on every read — reads need no token on a LAN — but kept
/// in [`crate::fits::FitCache`] while the pairs stay the same; a new fit runs on a blocking thread.
///
/// # Errors
/// 404 unknown match.
pub async fn get_calibration(
    state: &AppState,
    id: MatchId,
) -> ApiResult<(
    Vec<PointPair>,
    Option<sportz_vision::pitch::ReprojectionError>,
)> {
    let pairs = state.store.get_calibration(id).await?;
    if let Some(fit) = state.calibration_fits.get(id, &pairs) {
        return Ok((pairs, fit));
    }
    let (pairs, fit) = tokio::task::spawn_blocking(move || {
        let fit = reprojection_error(&pairs);
        (pairs, fit)
    })
    .await
    .map_err(|e| ApiError::Internal(format!("calibration fit: {e}")))?;
    state.calibration_fits.put(id, &pairs, fit);
    Ok((pairs, fit))
}

/// The match's video as ffmpeg opens it, for a still: files and network streams; a device or
/// the synthetic demo has no still to read (409). The source must pass the same guard as a
/// worker's session ([`sportz_guard::check`]: known protocols, no private or loopback hosts
/// unless [`ApiConfig::source_policy`](crate::state::ApiConfig) allows them) before ffmpeg
/// opens it (422 with the guard's reason), so a still cannot probe the machine's own network.
async fn still_source<'m>(state: &AppState, m: &'m Match) -> ApiResult<&'m VideoSource> {
    let src = match &m.video_source {
        Some(
            src @ (VideoSource::File(_)
            | VideoSource::Http(_)
            | VideoSource::Rtmp(_)
            | VideoSource::Rtsp(_)
            | VideoSource::Srt(_)),
        ) => src,
        Some(other) => {
            return Err(ApiError::Conflict(format!(
                "no still image for a {other:?} source"
            )));
        }
        None => return Err(ApiError::Conflict("the match has no video source".into())),
    };
    sportz_guard::check(src, state.config.source_policy)
        .await
        .map_err(|e| ApiError::Unprocessable(format!("no still from this source: {e}")))?;
    Ok(src)
}

/// Runs an ffmpeg/ffprobe command built by `sportz-media` and returns its stdout; a failure or an
/// empty answer is a 409 `cannot {what}: <ffmpeg's last line>`, a run past [`FFMPEG_TIMEOUT`] 503.
async fn run_media(cmd: std::process::Command, what: &str) -> ApiResult<Vec<u8>> {
    let out = tokio::time::timeout(
        FFMPEG_TIMEOUT,
        tokio::process::Command::from(cmd)
            .kill_on_drop(true)
            .output(),
    )
    .await
    .map_err(|_| ApiError::Unavailable("timed out reading a frame of the video".into()))?
    .map_err(|e| ApiError::Internal(format!("ffmpeg: {e}")))?;
    if !out.status.success() || out.stdout.is_empty() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(ApiError::Conflict(format!(
            "cannot {what}: {}",
            err.lines().last().unwrap_or("no frame")
        )));
    }
    Ok(out.stdout)
}

/// A JPEG still of the match's video at `t` seconds, for clicking calibration landmarks.
///
/// # Errors
/// 404 unknown match; 409 no readable video (a device or synthetic source, no frame at `t`);
/// 503 ffmpeg took longer than [`FFMPEG_TIMEOUT`].
pub async fn still_jpeg(state: &AppState, id: MatchId, t: f64) -> ApiResult<Vec<u8>> {
    let m = super::matches::get_match(state, id).await?;
    let input = sportz_media::location(still_source(state, &m).await?);
    run_media(
        sportz_media::still_command(&input, t),
        &format!("read a frame at {t} s"),
    )
    .await
}

/// The pitch-line samples the automatic search matches: every metre (the fit) and every 2 m
/// (the coarse search), built once.
fn line_samples() -> &'static (Vec<LineSample>, Vec<LineSample>) {
    static SAMPLES: OnceLock<(Vec<LineSample>, Vec<LineSample>)> = OnceLock::new();
    SAMPLES.get_or_init(|| {
        (
            sportz_vision::camera::model::samples(1.0),
            sportz_vision::camera::model::samples(2.0),
        )
    })
}

/// Finds the pitch in the still at `t` seconds without clicks: the broadcast camera fitted to
/// the white pitch lines (`sportz_vision::camera::initialise_still`, on a blocking thread) and 4 to
/// [`AUTO_MAX_PAIRS`] well-spread point pairs it implies ([`pairs_from_camera`]), in the pixels
/// of the video's own size. Stores nothing: the operator saves the pairs with
/// [`set_calibration`].
///
/// # Errors
/// 404 unknown match; 409 no readable video (as [`still_jpeg`]); 422 no pitch found in the
/// still, with the reason; 503 ffmpeg took longer than [`FFMPEG_TIMEOUT`].
pub async fn auto_calibration(
    state: &AppState,
    id: MatchId,
    t: f64,
) -> ApiResult<AutoCalibrationDto> {
    let m = super::matches::get_match(state, id).await?;
    let source = still_source(state, &m).await?;
    let probe = run_media(sportz_media::probe_command(source), "read the video").await?;
    let probe = sportz_media::parse_probe(&String::from_utf8_lossy(&probe))
        .map_err(|e| ApiError::Conflict(format!("cannot read the video: {e}")))?;
    let (width, height) = (probe.width, probe.height);
    let input = sportz_media::location(source);
    let rgb = run_media(
        sportz_media::still_rgb_command(&input, t, width, height),
        &format!("read a frame at {t} s"),
    )
    .await?;
    let lines = state.config.line_model.clone();
    tokio::task::spawn_blocking(move || find_pitch(&rgb, width, height, lines.as_ref()))
        .await
        .map_err(|e| ApiError::Internal(format!("automatic calibration: {e}")))?
}

/// The camera of one rgb24 frame and its pairs (CPU, ~100–200 ms).
fn find_pitch(
    rgb: &[u8],
    width: u32,
    height: u32,
    lines: Option<&sportz_vision::image::SharedLineModel>,
) -> ApiResult<AutoCalibrationDto> {
    let img = sportz_vision::RgbImage::new(rgb, width, height)
        .map_err(|e| ApiError::Conflict(format!("cannot read a frame of the video: {e}")))?;

    let (samples, coarse) = line_samples();
    let model = lines.map(|m| &*m.0);
    let fit = sportz_vision::camera::initialise_still(
        model,
        &img,
        &[],
        samples,
        coarse,
        &InitConfig::default(),
        sportz_vision::camera::DEFAULT_WORK_WIDTH,
    )
    .map_err(|why| ApiError::Unprocessable(format!("no pitch found in the still: {why}")))?;
    let image_to_pitch = fit
        .camera
        .image_from_pitch()
        .and_then(|h| h.inverse())
        .map_err(|e| {
            ApiError::Unprocessable(format!(
                "no pitch found in the still: the camera found does not see the ground ({e})"
            ))
        })?;
    let pairs = pairs_from_camera(&fit.camera)
        .map_err(|why| ApiError::Unprocessable(format!("no pitch found in the still: {why}")))?;
    Ok(AutoCalibrationDto::new(
        normalised(image_to_pitch.matrix()),
        fit.support(),
        pairs,
        (width, height),
        CameraSource::Auto,
    ))
}

/// A homography's matrix row-major, scaled so that the bottom-right entry is 1 (when it is not
/// about 0).
fn normalised(m: [[f64; 3]; 3]) -> [f64; 9] {
    let s = if m[2][2].abs() > 1e-12 { m[2][2] } else { 1.0 };
    let mut out = [0.0; 9];
    for (i, v) in m.iter().flatten().enumerate() {
        out[i] = v / s;
    }
    out
}

/// How far (a share of the frame's shorter side, at least 4 px) a pair's pixel keeps from the
/// frame's edges: landmarks at the very edge are often cut off or hidden by graphics.
const EDGE_MARGIN: f64 = 0.03;

/// 4 to [`AUTO_MAX_PAIRS`] point pairs that reproduce `camera`'s ground homography: the named
/// pitch landmarks (`sportz_vision::pitch::LANDMARKS`) it shows inside the frame, the most spread
/// set of them (farthest-point order in pixels); when they are too few or degenerate, points of
/// a 5 m pitch grid join them. Each set must pass [`check`] (the save path's rule) and map every
/// visible candidate to its pitch point within 5 cm when fitted.
///
/// # Errors
/// The camera shows too little of the pitch to give such pairs.
pub fn pairs_from_camera(camera: &BroadcastCamera) -> Result<Vec<PointPair>, String> {
    let (w, h) = (f64::from(camera.width), f64::from(camera.height));
    let margin = (EDGE_MARGIN * w.min(h)).max(4.0);
    let visible = |pitch: Point| {
        camera
            .project(pitch)
            .filter(|p| p.x >= margin && p.x <= w - margin && p.y >= margin && p.y <= h - margin)
            .map(|pixel| (pitch, pixel))
    };
    let landmarks: Vec<(Point, Point)> = sportz_vision::pitch::LANDMARKS
        .iter()
        .filter_map(|l| visible(l.pitch))
        .collect();
    let mut grid = Vec::new();
    for i in 0..=21 {
        for j in 0..=17 {
            grid.extend(visible(Point::new(
                f64::from(i) * 5.0,
                f64::from(j) * PITCH_WIDTH_M / 17.0,
            )));
        }
    }
    let all: Vec<(Point, Point)> = landmarks.iter().chain(&grid).copied().collect();
    for candidates in [&landmarks, &all] {
        let pairs: Vec<PointPair> = spread(candidates, AUTO_MAX_PAIRS)
            .into_iter()
            .map(|(pitch, pixel)| PointPair {
                pixel: PixelPoint {
                    x: pixel.x,
                    y: pixel.y,
                },
                pitch: PitchPoint {
                    x: pitch.x,
                    y: pitch.y,
                },
            })
            .collect();
        if pairs.len() >= 4 && check(&pairs).is_ok() && reproduces(&pairs, &all) {
            return Ok(pairs);
        }
    }
    Err(format!(
        "the camera found shows too little of the pitch to give point pairs ({} landmarks and \
         {} grid points in view, expected at least 4 not on one line)",
        landmarks.len(),
        grid.len()
    ))
}

/// Up to `n` of `candidates` (pitch, pixel), spread in pixels: first the one farthest from their
/// centroid, then each time the one farthest from those taken; returned in `candidates`' order.
fn spread(candidates: &[(Point, Point)], n: usize) -> Vec<(Point, Point)> {
    if candidates.is_empty() {
        return Vec::new();
    }
    let k = candidates.len() as f64;
    let centre = Point::new(
        candidates.iter().map(|c| c.1.x).sum::<f64>() / k,
        candidates.iter().map(|c| c.1.y).sum::<f64>() / k,
    );
    let farthest = |from: &dyn Fn(Point) -> f64, taken: &[usize]| {
        (0..candidates.len())
            .filter(|i| !taken.contains(i))
            .max_by(|&a, &b| from(candidates[a].1).total_cmp(&from(candidates[b].1)))
    };
    let mut taken: Vec<usize> = Vec::new();
    taken.extend(farthest(&|p| p.distance(&centre), &taken));
    while taken.len() < n.min(candidates.len()) {
        let gap = |p: Point| {
            taken
                .iter()
                .map(|&t| p.distance(&candidates[t].1))
                .fold(f64::INFINITY, f64::min)
        };
        match farthest(&gap, &taken) {
            Some(i) => taken.push(i),
            None => break,
        }
    }
    taken.sort_unstable();
    taken.into_iter().map(|i| candidates[i]).collect()
}

/// Whether the homography fitted to `pairs` maps every candidate's pixel to its pitch point
/// within 5 cm.
fn reproduces(pairs: &[PointPair], candidates: &[(Point, Point)]) -> bool {
    let Ok(cal) = sportz_vision::pitch::Calibration::fit_contract(pairs) else {
        return false;
    };
    candidates.iter().all(|(pitch, pixel)| {
        cal.to_pitch(*pixel)
            .is_some_and(|p| p.distance(pitch) <= 0.05)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The main camera of a broadcast at 1280×720: behind the near touchline, looking at
    /// `(x, y)` on the pitch with a horizontal field of view of `fov` degrees.
    fn camera(x: f64, y: f64, fov: f64) -> BroadcastCamera {
        let pos = [52.5, 68.0 + 40.0, 16.0];
        let (dx, dy) = (x - pos[0], y - pos[1]);
        let ground = dx.hypot(dy);
        BroadcastCamera {
            position: pos,
            pan: dx.atan2(-dy),
            tilt: pos[2].atan2(ground),
            roll: 0.0,
            focal_px: 640.0 / (fov.to_radians() / 2.0).tan(),
            width: 1280,
            height: 720,
        }
    }

    fn check_pairs_reproduce(cam: &BroadcastCamera) -> Vec<PointPair> {
        let pairs = pairs_from_camera(cam).unwrap();
        assert!((4..=AUTO_MAX_PAIRS).contains(&pairs.len()), "{pairs:?}");
        check(&pairs).unwrap();
        let fitted = sportz_vision::pitch::Calibration::fit_contract(&pairs).unwrap();
        for p in &pairs {
            assert!(
                p.pixel.x >= 0.0 && p.pixel.x <= 1280.0 && p.pixel.y >= 0.0 && p.pixel.y <= 720.0
            );
        }
        // any ground pixel the camera sees maps where the camera says
        for (x, y) in [(30.0, 20.0), (52.5, 34.0), (70.0, 50.0)] {
            let pitch = Point::new(x, y);
            if let Some(px) = cam.project(pitch)
                && (0.0..1280.0).contains(&px.x)
                && (0.0..720.0).contains(&px.y)
            {
                let back = fitted.to_pitch(px).unwrap();
                assert!(back.distance(&pitch) < 0.01, "{back:?} vs {pitch:?}");
            }
        }
        pairs
    }

    #[test]
    fn a_wide_view_gives_spread_landmarks() {
        let cam = camera(52.5, 34.0, 45.0);
        let pairs = check_pairs_reproduce(&cam);
        assert_eq!(pairs.len(), AUTO_MAX_PAIRS);
        // every pitch point is a named landmark
        for p in &pairs {
            assert!(
                sportz_vision::pitch::LANDMARKS
                    .iter()
                    .any(|l| l.pitch.x == p.pitch.x && l.pitch.y == p.pitch.y),
                "{p:?}"
            );
        }
        // spread over the frame: pixels span most of it
        let xs: Vec<f64> = pairs.iter().map(|p| p.pixel.x).collect();
        let span = xs.iter().copied().fold(f64::MIN, f64::max)
            - xs.iter().copied().fold(f64::MAX, f64::min);
        assert!(span > 640.0, "{xs:?}");
    }

    #[test]
    fn a_tight_view_with_few_landmarks_falls_back_to_grid_points() {
        // zoomed in on open grass between the halfway line and a box
        let cam = camera(30.0, 45.0, 10.0);
        check_pairs_reproduce(&cam);
    }

    #[test]
    fn a_camera_looking_at_the_sky_gives_no_pairs() {
        let mut cam = camera(52.5, 34.0, 30.0);
        cam.tilt = -0.3;
        let err = pairs_from_camera(&cam).unwrap_err();
        assert!(err.contains("too little of the pitch"), "{err}");
    }

    #[test]
    fn spread_takes_the_extremes_first() {
        let pts: Vec<(Point, Point)> = [
            (0.0, 0.0),
            (1.0, 1.0),
            (100.0, 0.0),
            (50.0, 2.0),
            (0.0, 100.0),
        ]
        .iter()
        .map(|&(x, y)| (Point::new(x, y), Point::new(x, y)))
        .collect();
        let got = spread(&pts, 3);
        let got: Vec<(f64, f64)> = got.iter().map(|p| (p.1.x, p.1.y)).collect();
        assert_eq!(got, vec![(0.0, 0.0), (100.0, 0.0), (0.0, 100.0)]);
    }
}
