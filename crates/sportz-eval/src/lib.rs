//! Tracking evaluation and exports. Pure: inputs come in as `BufRead`s or strings with a name
//! for error messages, results go out as values; no file is opened and nothing is async.
//!
//! # Inputs
//! - Truth: the synth's `truth.jsonl` ([`parse_truth_jsonl`], one `FrameTruth` per line) and
//!   `events.json` ([`parse_events_json`]), joined into a [`Truth`].
//! - Predictions: the JSONL of contract messages that `sportz track` writes
//!   ([`parse_predictions`]): `frame` and `event` envelopes; other types are skipped; a file with
//!   no frame message is an error.
//!
//! # Frame alignment
//! Truth `frame_number` is the 0-based index of the frame in the video, and its
//! `video_timestamp` is `frame_number / fps`. The worker numbers the frames it decodes from 0
//! at the rate it samples (`sportz track --fps`, default the video's): frame `k` has
//! `video_timestamp = k / fps` and `frame_number = round(video_timestamp · fps)`. At the video's
//! own rate the two numberings are equal; at another rate only the timestamps agree. So by
//! default ([`FrameAlignment::Timestamp`]) a predicted frame is paired with the truth frame
//! nearest in `video_timestamp`, within half a truth frame period; [`FrameAlignment::FrameNumber`]
//! pairs equal numbers. Every metric is computed over the truth frames that got a predicted
//! frame; the report counts the others.
//!
//! # Players (HOTA, IDF1, CLEAR)
//! As `TrackEval` defines them, with IoU of pixel boxes `[x1, y1, x2, y2]` as the similarity:
//! HOTA/DetA/AssA/LocA averaged over α = 0.05 … 0.95 (per frame one Hungarian assignment that
//! maximises global-alignment-score × IoU, so pairs with a history of matching win; the pairs
//! with IoU ≥ α are the matches at α); IDF1 from the one global id mapping that maximises the
//! frames matched at IoU ≥ 0.5; MOTA and ID switches from CLEAR at IoU ≥ 0.5. See [`mot`].
//!
//! What counts as truth: people (not the referee) whose `visibility` is `visible`, or `partial`
//! with `visible_fraction` ≥ [`EvalOptions::min_visible_fraction`] (default 0.25), with their
//! `bbox` (the drawn extent clipped to the image, before occlusion). Everyone else in frame —
//! the referee, `occluded` people, barely visible `partial` ones — is an *ignore region*, as
//! MOTChallenge's distractors: a prediction matched to one (one Hungarian on IoU over all truth
//! boxes, IoU ≥ 0.5) is dropped rather than counted as a false positive, so a tracker is neither
//! required to find nor punished for finding them. Predictions classed `referee` are ignored;
//! `player` and `goalkeeper` are both players.
//!
//! Pitch error: the mean distance in metres between the truth foot point and the predicted
//! `pitch`, over the pairs matched at α = 0.5 whose prediction has one. The synth and the
//! contract share one pitch convention (metres on 105×68, origin at a corner, y = 0 on the far
//! touchline), made explicit in [`truth_pitch_to_contract`].
//!
//! # Ball
//! A predicted ball is right when its centre is within [`EvalOptions::ball_tolerance_px`]
//! (default 5 px, inclusive) of the true projected centre. Recall = visible true balls with a
//! right prediction / frames where the true ball is visible; precision = right predictions /
//! predicted balls (extrapolated ones included, and counted apart). The ball pitch error is the
//! mean distance between the true ground point and the predicted `pitch` over the right
//! predictions that have one.
//!
//! # Camera
//! The camera each predicted frame says its pitch fields were mapped with (`camera`,
//! `image_to_pitch`) against the truth camera, over the truth frames with `pitch_visible`: the
//! pitch points every 5 m that the true camera sees in the image are mapped back through the
//! predicted homography; a frame's error is their mean distance, metres. Reported: the share of
//! those frames calibrated (a camera present), the mean and p95 over frames of the error, the
//! share calibrated within 1 m (completeness × accuracy, as SoccerNet's calibration metric), the
//! share of close-ups (`pitch_visible: false`) wrongly given a camera, and the share of `cut`
//! frames left in `pixel` mode.
//!
//! # Events
//! Per kind, a one-to-one matching of predicted to true events within
//! [`EvalOptions::event_tolerance_s`] (default 1.0 s, inclusive) of `video_timestamp` vs
//! `time_secs`, maximal (a sweep in time order, which is optimal for equal windows); precision,
//! recall and F1 per kind and over all. The synth uses the contract's own event kinds, so the
//! mapping ([`contract_kind_of_truth`]) is the identity except for `ball_lost`, which means
//! something else on each side (a team losing the ball; the ball tracker giving up) and is
//! reported as not comparable; the report lists any kind that exists on one side only. True events outside the evaluated time
//! span are not scored (and counted).
//!
//! # Detection on labelled images
//! [`detection`]: AP50 and AP50-95 per class (COCO's matching and 101-point interpolation) and
//! precision/recall at an operating threshold, of the detections `sportz detect` writes against
//! YOLO box or polygon labels.
//!
//! # Exports
//! [`export`]: CDF (Common Data Format) tracking JSONL and meta JSON, and SoccerNet GSR labels,
//! from predicted frames; both with the origin at the pitch centre.

mod assign;
pub mod detection;
mod error;
mod eval;
pub mod export;
mod input;
pub mod keypoints;
pub mod mot;
pub mod summary;

pub use error::EvalError;
pub use eval::{
    BallMetrics, CameraMetrics, EvalOptions, EventMetrics, EventScore, FrameAlignment, FrameCounts,
    KitMetrics, MATCH_IOU, NotComparable, PlayerMetrics, Report, contract_kind_of_truth, evaluate,
    truth_pitch_to_contract,
};
pub use export::ExportOptions;
pub use input::{
    Predictions, Truth, parse_events_json, parse_meta_kits, parse_predictions, parse_truth_jsonl,
};
