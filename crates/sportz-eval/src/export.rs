//! Exports of predicted frames (the `sportz track` JSONL, parsed) to three public formats. Pure:
//! values and strings in, values and strings out. CDF and GSR carry pitch positions; MOT
//! ([`mot_tracking`]) the image boxes, for cross-checking tracking figures with TrackEval.
//!
//! # Coordinates
//! The contract's pitch points are metres with the origin at a corner, x along the length
//! (0..=105), y across (0..=68), y = 0 on the far touchline (the broadcast camera stands on the
//! y = 68 side). Both formats put the origin at the centre spot:
//!
//! | format | x | y |
//! | --- | --- | --- |
//! | CDF | `x − L/2` (towards the right goal) | `W/2 − y` (**up**: the far touchline is +W/2) |
//! | GSR | `x − L/2` (towards the right goal) | `y − W/2` (**down**: the near touchline is +W/2) |
//!
//! CDF's axes are kloppy's `CDFCoordinateSystem` (origin `CENTER`, `BOTTOM_TO_TOP`, x and y in
//! ±length/2, ±width/2). GSR's are SoccerNet's calibration pitch (`soccerpitch.py`: the centre
//! mark at (0, 0), the "bottom" touchline, nearest the main camera, at y = +W/2).

use std::collections::HashMap;

use serde_json::{Value, json};
use sportz_contract::{FrameData, ObjectClass, PitchPoint, TeamSide};

/// The CDF version whose field names this export follows (the validator's v0.3.2 schemas).
pub const CDF_VERSION: &str = "0.3.2";

/// What the exports need beyond the frames. [`Default`] gives the documented defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportOptions {
    /// The match id written in CDF (`match.id`) and as GSR `info.name` (default `sportz`).
    pub match_id: String,
    /// Pitch length in metres (default 105): the pitch the predicted coordinates are on.
    pub pitch_length_m: f64,
    /// Pitch width in metres (default 68).
    pub pitch_width_m: f64,
    /// Unix seconds of video time 0, for CDF's UTC timestamps (frame time = this +
    /// `video_timestamp`). Default: the first frame's `timestamp − video_timestamp` (when it
    /// was read, which for a file is when `sportz track` ran, not when the match was played).
    pub kickoff_unix: Option<f64>,
    /// Frames per second for the metadata. Default: estimated from the frames' timestamps.
    pub fps: Option<f64>,
    /// Team ids written in CDF (defaults `home`, `away`).
    pub home_team_id: String,
    pub away_team_id: String,
    /// The GSR video id, the prefix of every `image_id` (default `1`).
    pub gsr_video_id: String,
}

impl Default for ExportOptions {
    fn default() -> Self {
        Self {
            match_id: "sportz".to_owned(),
            pitch_length_m: sportz_contract::PITCH_LENGTH_M,
            pitch_width_m: sportz_contract::PITCH_WIDTH_M,
            kickoff_unix: None,
            fps: None,
            home_team_id: "home".to_owned(),
            away_team_id: "away".to_owned(),
            gsr_video_id: "1".to_owned(),
        }
    }
}

/// A contract pitch point in CDF metres: origin at the centre, x towards the right goal, y
/// towards the far touchline.
#[must_use]
pub fn to_cdf_pitch(p: PitchPoint, opts: &ExportOptions) -> (f64, f64) {
    (
        p.x - opts.pitch_length_m / 2.0,
        opts.pitch_width_m / 2.0 - p.y,
    )
}

/// A contract pitch point in SoccerNet GSR metres: origin at the centre, x towards the right
/// goal, y towards the near (camera-side) touchline.
#[must_use]
pub fn to_gsr_pitch(p: PitchPoint, opts: &ExportOptions) -> (f64, f64) {
    (
        p.x - opts.pitch_length_m / 2.0,
        p.y - opts.pitch_width_m / 2.0,
    )
}

/// Rounds to the millimetre (as kloppy's CDF writer rounds to 3 decimals).
fn mm(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

fn kickoff(frames: &[FrameData], opts: &ExportOptions) -> f64 {
    opts.kickoff_unix.unwrap_or_else(|| {
        frames
            .first()
            .map_or(0.0, |f| f.timestamp - f.video_timestamp)
    })
}

/// Frames per second: the option, else the median step of `video_timestamp`, else 25.
#[must_use]
pub fn estimate_fps(frames: &[FrameData], opts: &ExportOptions) -> f64 {
    if let Some(f) = opts.fps {
        return f;
    }
    let mut steps: Vec<f64> = frames
        .windows(2)
        .map(|w| w[1].video_timestamp - w[0].video_timestamp)
        .filter(|d| *d > 0.0)
        .collect();
    if steps.is_empty() {
        return 25.0;
    }
    steps.sort_by(f64::total_cmp);
    1.0 / steps[steps.len() / 2]
}

/// RFC 3339 UTC time of unix seconds `t` (millisecond precision).
#[must_use]
pub fn utc(t: f64) -> String {
    let ms = (t * 1000.0).round() as i128;
    time::OffsetDateTime::from_unix_timestamp_nanos(ms * 1_000_000)
        .ok()
        .and_then(|d| {
            d.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_else(|| "1970-01-01T00:00:00Z".to_owned())
}

/// The side each person track plays for: the most frequent `home`/`away` over its frames
/// (shirt-colour clustering can flicker); tracks never assigned a side are absent.
fn track_sides(frames: &[FrameData]) -> HashMap<u64, TeamSide> {
    let mut votes = SideVotes::default();
    for f in frames {
        votes.add(f);
    }
    votes.sides()
}

/// The votes behind each track's side, one frame at a time (for exports that read their frames
/// from a file twice instead of holding them: [`cdf_frame`]).
#[derive(Debug, Default, Clone)]
pub struct SideVotes(HashMap<u64, [u32; 2]>);

impl SideVotes {
    pub fn add(&mut self, f: &FrameData) {
        for p in &f.players {
            let slot = match p.team {
                Some(TeamSide::Home) => 0,
                Some(TeamSide::Away) => 1,
                _ => continue,
            };
            self.0.entry(p.track_id).or_default()[slot] += 1;
        }
    }

    /// Each voted track's side (home on a tie).
    #[must_use]
    pub fn sides(&self) -> HashMap<u64, TeamSide> {
        self.0
            .iter()
            .map(|(&id, &[h, a])| {
                (
                    id,
                    if h >= a {
                        TeamSide::Home
                    } else {
                        TeamSide::Away
                    },
                )
            })
            .collect()
    }
}

fn person_id(track_id: u64) -> String {
    format!("track_{track_id}")
}

fn xy(
    p: Option<PitchPoint>,
    opts: &ExportOptions,
    f: fn(PitchPoint, &ExportOptions) -> (f64, f64),
) -> (Value, Value) {
    p.map_or((Value::Null, Value::Null), |p| {
        let (x, y) = f(p, opts);
        (json!(mm(x)), json!(mm(y)))
    })
}

/// CDF tracking data: one JSON object per predicted frame (a line of the JSONL).
///
/// Confirmed field names (CDF v0.3.2 tracking schema and sample in the
/// `common-data-format-validator` package; kloppy's CDF serializer): `frame_id`, `timestamp`
/// (UTC date-time), `period` (`first_half` …), `match.id`, `teams.home|away.id`,
/// `teams.*.players[].id|x|y|is_visible`, `ball.x|y|z`, `officials[].id|x|y`.
///
/// Choices (not dictated by the format): `frame_id` is the predicted `frame_number`; the whole
/// video is `first_half`; a player is listed under the side most of its frames were assigned
/// (players never assigned a side are left out, as CDF has no place for them); referees go to
/// `officials`; a person or ball without a pitch position has `x`/`y` `null`; the ball's height
/// is unknown so `z` is `null`; `ball.status` (in play) is not known and is left out; person ids
/// are `track_<track_id>` (track ids, not real player identities).
#[must_use]
pub fn cdf_tracking(frames: &[FrameData], opts: &ExportOptions) -> Vec<Value> {
    let sides = track_sides(frames);
    let k0 = kickoff(frames, opts);
    frames
        .iter()
        .map(|f| cdf_frame(f, &sides, k0, opts))
        .collect()
}

/// One frame of [`cdf_tracking`], given every track's side ([`SideVotes::sides`] over all the
/// frames) and the kick-off's Unix time (`opts.kickoff_unix`, else the first frame's
/// `timestamp − video_timestamp`).
#[must_use]
pub fn cdf_frame(
    f: &FrameData,
    sides: &HashMap<u64, TeamSide>,
    kickoff_unix: f64,
    opts: &ExportOptions,
) -> Value {
    let (mut home, mut away, mut officials) = (Vec::new(), Vec::new(), Vec::new());
    for p in &f.players {
        let (x, y) = xy(p.pitch, opts, to_cdf_pitch);
        let entry = json!({"id": person_id(p.track_id), "x": x, "y": y, "is_visible": true});
        match p.class {
            ObjectClass::Referee => officials
                .push(json!({"id": person_id(p.track_id), "x": entry["x"], "y": entry["y"]})),
            ObjectClass::Player | ObjectClass::Goalkeeper => match sides.get(&p.track_id) {
                Some(TeamSide::Home) => home.push(entry),
                Some(TeamSide::Away) => away.push(entry),
                _ => {}
            },
            ObjectClass::Ball => {}
        }
    }
    let (bx, by) = xy(f.ball.as_ref().and_then(|b| b.pitch), opts, to_cdf_pitch);
    json!({
        "frame_id": f.frame_number,
        "timestamp": utc(kickoff_unix + f.video_timestamp),
        "period": "first_half",
        "match": {"id": opts.match_id},
        "teams": {
            "home": {"id": opts.home_team_id, "players": home},
            "away": {"id": opts.away_team_id, "players": away},
        },
        "ball": {"x": bx, "y": by, "z": Value::Null},
        "officials": officials,
    })
}

/// [`cdf_tracking`] as JSONL text (one line per frame, each ending in a newline).
#[must_use]
pub fn cdf_tracking_jsonl(frames: &[FrameData], opts: &ExportOptions) -> String {
    let mut out = String::new();
    for v in cdf_tracking(frames, opts) {
        out.push_str(&v.to_string());
        out.push('\n');
    }
    out
}

/// CDF meta data for the same frames.
///
/// Confirmed field names (CDF v0.3.2 meta schema and sample): `competition.id`, `season.id`,
/// `match.id|kickoff_time|periods|whistles`, `periods[].period|play_direction|start_time|
/// end_time|frame_id_start|frame_id_end|left_team_id|right_team_id`,
/// `whistles[].type|sub_type|time`, `teams.home|away.id|players`,
/// `players[].id|team_id|jersey_number|is_starter`, `venue.id|pitch_length|pitch_width`,
/// `meta.video|tracking|event|landmarks|ball|meta|cdf` (`cdf.version`).
///
/// Not known here, so filled by convention (say so to a consumer): `competition.id`,
/// `season.id` and `venue.id` are `unknown`; `jersey_number` is `null` (the schema wants an
/// integer: shirt numbers are not read); every track is `is_starter: true`; the single period is
/// `first_half` with the home team playing `left_right` (true of the synthetic matches, where
/// home attacks towards x = 105; for real video "home" is only the first shirt-colour cluster);
/// `meta.event`, `meta.landmarks` and `meta.ball` are `null` (not exported).
#[must_use]
pub fn cdf_meta(frames: &[FrameData], opts: &ExportOptions) -> Value {
    let sides = track_sides(frames);
    let k0 = kickoff(frames, opts);
    let fps = estimate_fps(frames, opts);
    let (first, last) = (frames.first(), frames.last());
    let start = utc(k0 + first.map_or(0.0, |f| f.video_timestamp));
    let end = utc(k0 + last.map_or(0.0, |f| f.video_timestamp) + 1.0 / fps);
    let mut ids: Vec<(&u64, &TeamSide)> = sides.iter().collect();
    ids.sort_by_key(|(id, _)| **id);
    let roster = |side: TeamSide, team_id: &str| -> Vec<Value> {
        ids.iter()
            .filter(|(_, s)| **s == side)
            .map(|(id, _)| {
                json!({"id": person_id(**id), "team_id": team_id, "jersey_number": Value::Null, "is_starter": true})
            })
            .collect()
    };
    let fps_int = fps.round() as i64;
    json!({
        "competition": {"id": "unknown"},
        "season": {"id": "unknown"},
        "match": {
            "id": opts.match_id,
            "kickoff_time": utc(k0),
            "periods": [{
                "period": "first_half",
                "play_direction": "left_right",
                "start_time": start,
                "end_time": end,
                "frame_id_start": first.map_or(0, |f| f.frame_number),
                "frame_id_end": last.map_or(0, |f| f.frame_number),
                "left_team_id": opts.home_team_id,
                "right_team_id": opts.away_team_id,
            }],
            "whistles": [
                {"type": "first_half", "sub_type": "start", "time": start},
                {"type": "first_half", "sub_type": "end", "time": end},
            ],
        },
        "teams": {
            "home": {"id": opts.home_team_id, "players": roster(TeamSide::Home, &opts.home_team_id)},
            "away": {"id": opts.away_team_id, "players": roster(TeamSide::Away, &opts.away_team_id)},
        },
        "venue": {"id": "unknown", "pitch_length": opts.pitch_length_m, "pitch_width": opts.pitch_width_m},
        "meta": {
            "video": {"perspective": "broadcast", "version": env!("CARGO_PKG_VERSION"), "name": "sportz", "fps": fps_int},
            "tracking": {"version": env!("CARGO_PKG_VERSION"), "name": "sportz", "fps": fps_int, "collection_timing": "post_match"},
            "event": Value::Null,
            "landmarks": Value::Null,
            "ball": Value::Null,
            "meta": {"version": env!("CARGO_PKG_VERSION"), "name": "sportz"},
            "cdf": {"version": CDF_VERSION},
        },
    })
}

/// The GSR `categories` list (ids as in `Labels-GameState.json`).
fn gsr_categories() -> Value {
    json!([
        {"supercategory": "object", "id": 1, "name": "player"},
        {"supercategory": "object", "id": 2, "name": "goalkeeper"},
        {"supercategory": "object", "id": 3, "name": "referee"},
        {"supercategory": "object", "id": 4, "name": "ball"},
        {"supercategory": "pitch", "id": 5, "name": "pitch"},
        {"supercategory": "camera", "id": 6, "name": "camera"},
        {"supercategory": "object", "id": 7, "name": "other"},
    ])
}

/// Track ids of the ball are offset by this in GSR so they cannot collide with people's.
pub const GSR_BALL_TRACK_OFFSET: u64 = 1_000_000_000;

fn gsr_image_id(f: &FrameData, opts: &ExportOptions) -> String {
    format!("{}{:06}", opts.gsr_video_id, f.frame_number + 1)
}

fn bbox_image(b: &[f64; 4]) -> Value {
    let (w, h) = (b[2] - b[0], b[3] - b[1]);
    json!({"x": b[0], "y": b[1], "x_center": b[0] + w / 2.0, "y_center": b[1] + h / 2.0, "w": w, "h": h})
}

fn bbox_pitch(p: Option<PitchPoint>, opts: &ExportOptions) -> Value {
    p.map_or(Value::Null, |p| {
        let (x, y) = to_gsr_pitch(p, opts);
        json!({"x_bottom_middle": mm(x), "y_bottom_middle": mm(y)})
    })
}

fn gsr_annotations(frames: &[FrameData], opts: &ExportOptions) -> Vec<Value> {
    let mut out = Vec::new();
    let mut next_id = 0u64;
    let mut push = |image_id: &str,
                    track_id: u64,
                    cat: u8,
                    role: &str,
                    team: Value,
                    bbox: &[f64; 4],
                    pitch: Value| {
        next_id += 1;
        out.push(json!({
            "id": next_id.to_string(),
            "image_id": image_id,
            "track_id": track_id,
            "supercategory": "object",
            "category_id": cat,
            "attributes": {"role": role, "jersey": Value::Null, "team": team},
            "bbox_image": bbox_image(bbox),
            "bbox_pitch": pitch,
        }));
    };
    for f in frames {
        let image_id = gsr_image_id(f, opts);
        for p in &f.players {
            let (cat, role) = match p.class {
                ObjectClass::Player => (1, "player"),
                ObjectClass::Goalkeeper => (2, "goalkeeper"),
                ObjectClass::Referee => (3, "referee"),
                ObjectClass::Ball => (4, "ball"),
            };
            let team = match (p.class, p.team) {
                (ObjectClass::Player | ObjectClass::Goalkeeper, Some(TeamSide::Home)) => {
                    json!("left")
                }
                (ObjectClass::Player | ObjectClass::Goalkeeper, Some(TeamSide::Away)) => {
                    json!("right")
                }
                _ => Value::Null,
            };
            push(
                &image_id,
                p.track_id,
                cat,
                role,
                team,
                &p.bbox,
                bbox_pitch(p.pitch, opts),
            );
        }
        if let Some(b) = &f.ball {
            push(
                &image_id,
                GSR_BALL_TRACK_OFFSET + b.track_id,
                4,
                "ball",
                Value::Null,
                &b.bbox,
                bbox_pitch(b.pitch, opts),
            );
        }
    }
    out
}

/// SoccerNet Game State Reconstruction labels (`Labels-GameState.json` shape): `info`,
/// `images`, `annotations`, `categories`.
///
/// Confirmed field names (sn-gamestate / tracklab `soccernet_game_state.py`, which reads
/// labels and writes predictions; sn-gamestate `bbox2pitch.py`): `info.name|id|seq_length|
/// frame_rate|im_dir`; `images[].image_id|file_name|height|width|is_labeled`; annotations
/// `id|image_id|track_id|supercategory|category_id|attributes{role,jersey,team}|
/// bbox_image{x,y,x_center,y_center,w,h}|bbox_pitch{x_bottom_middle,y_bottom_middle,…}`;
/// categories player 1, goalkeeper 2, referee 3, ball 4, pitch 5, camera 6, other 7; teams are
/// `left`/`right` (labels version ≥ 1.1).
///
/// Choices and guesses: `info.version` is `1.2` (the labels version with left/right teams);
/// `image_id` is `<gsr_video_id><frame_number + 1, 6 digits>` and `file_name`
/// `<frame_number + 1, 6 digits>.jpg` (the dataset numbers images from 000001.jpg); `home` is
/// `left` and `away` `right` (the synth's home team defends the x = 0 goal; for real video it is
/// a guess); `jersey` is `null` (not read); `bbox_pitch` has only `x_bottom_middle` /
/// `y_bottom_middle` (the contract carries the foot point only, not the box's bottom corners)
/// and is `null` without a calibration; the ball is an annotation with role `ball` and track id
/// [`GSR_BALL_TRACK_OFFSET`] + its track id; `images[].has_labeled_person` is true, the pitch
/// and camera flags false (no pitch or camera annotations are written).
#[must_use]
pub fn gsr_labels(frames: &[FrameData], opts: &ExportOptions) -> Value {
    let fps = estimate_fps(frames, opts);
    let images: Vec<Value> = frames
        .iter()
        .map(|f| {
            json!({
                "image_id": gsr_image_id(f, opts),
                "file_name": format!("{:06}.jpg", f.frame_number + 1),
                "height": f.height,
                "width": f.width,
                "is_labeled": true,
                "has_labeled_person": true,
                "has_labeled_pitch": false,
                "has_labeled_camera": false,
                "ignore_regions_x": [],
                "ignore_regions_y": [],
            })
        })
        .collect();
    json!({
        "info": {
            "version": "1.2",
            "name": opts.match_id,
            "id": opts.gsr_video_id,
            "im_dir": "img1",
            "frame_rate": fps,
            "seq_length": frames.len(),
            "im_ext": ".jpg",
        },
        "images": images,
        "annotations": gsr_annotations(frames, opts),
        "categories": gsr_categories(),
    })
}

/// The GSR challenge submission shape, `{"predictions": [annotation, …]}` (as tracklab's
/// `save_for_eval` writes it): the same annotations as [`gsr_labels`] plus `video_id`, without
/// images, info and categories.
#[must_use]
pub fn gsr_predictions(frames: &[FrameData], opts: &ExportOptions) -> Value {
    let mut anns = gsr_annotations(frames, opts);
    for a in &mut anns {
        a["video_id"] = json!(opts.gsr_video_id);
    }
    json!({"predictions": anns})
}

/// The people tracks in MOTChallenge 2D text, the layout TrackEval reads for a tracker's
/// output: one line per box, `frame,id,bb_left,bb_top,bb_width,bb_height,conf,-1,-1,-1`, frames
/// counted from 1 (`frame_number + 1`), pixels. The ball is left out (MOT's tracks are
/// pedestrians; the ball has its own figures in `sportz eval`).
#[must_use]
pub fn mot_tracking(frames: &[FrameData]) -> String {
    let mut out = String::new();
    for f in frames {
        mot_frame(f, &mut out);
    }
    out
}

/// One frame's lines of [`mot_tracking`], appended to `out`.
pub fn mot_frame(f: &FrameData, out: &mut String) {
    use std::fmt::Write as _;
    for p in &f.players {
        let [x1, y1, x2, y2] = p.bbox;
        // writing to a String cannot fail
        let _ = writeln!(
            out,
            "{},{},{:.2},{:.2},{:.2},{:.2},{:.4},-1,-1,-1",
            f.frame_number + 1,
            p.track_id,
            x1,
            y1,
            x2 - x1,
            y2 - y1,
            p.confidence
        );
    }
}
