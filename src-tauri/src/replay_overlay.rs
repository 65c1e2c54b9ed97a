//! The desktop overlay during a replay: the UI window's replay page names its player in the
//! route (`#/match/<id>/replay/<session>?player=<id>`), and the overlay draws the frames that
//! very player sends (`sportz_api::recording::replay::Taps`) — paused, sought and sped up with
//! the page — over the source video when the match's file is still there.

use std::sync::Arc;

use sportz_api::state::AppState;
use sportz_contract::{Envelope, MatchId, Payload};
use sportz_overlay::Scene;
use tokio::sync::watch;

use crate::overlay::scene_from_frame;
use crate::replay_video::ReplayVideo;

/// The replay player a UI location follows: `(match, player id)`.
#[must_use]
pub fn followed_player(url: &str) -> Option<(MatchId, String)> {
    let (_, hash) = url.split_once('#')?;
    let (route, query) = hash.split_once('?')?;
    let mut parts = route.split('/').filter(|p| !p.is_empty());
    let m = (parts.next()? == "match").then(|| parts.next()?.parse().ok())??;
    (parts.next()? == "replay").then_some(())?;
    let player = query
        .split('&')
        .find_map(|kv| kv.strip_prefix("player="))
        .filter(|p| !p.is_empty())?;
    Some((m, player.to_owned()))
}

/// Follows one replay player for the overlay.
#[derive(Debug)]
pub struct ReplayFollower {
    pub player: String,
    frames: watch::Receiver<Option<Arc<str>>>,
    /// `None` until the first frame (its size), then `Some(None)` when there is no file.
    video: Option<Option<ReplayVideo>>,
    source: Option<sportz_contract::worker::VideoSource>,
}

impl ReplayFollower {
    /// Starts following `player` of match `m`; `None` when no such player runs (yet).
    #[must_use]
    pub fn new(
        state: &AppState,
        rt: &tokio::runtime::Handle,
        m: MatchId,
        player: &str,
    ) -> Option<Self> {
        let frames = state.replays.follow(player)?;
        let source = rt
            .block_on(sportz_api::service::matches::get_match(state, m))
            .ok()
            .and_then(|row| row.video_source);
        Some(Self {
            player: player.to_owned(),
            frames,
            video: None,
            source,
        })
    }

    /// Whether the player is gone (the page left the replay, or it closed).
    #[must_use]
    pub fn ended(&self) -> bool {
        self.frames.has_changed().is_err()
    }

    /// Whether the replay is drawn over its video (known after the first frame).
    #[must_use]
    pub fn has_video(&self) -> Option<bool> {
        self.video.as_ref().map(Option::is_some)
    }

    /// The scene of the player's newest frame, if it sent one since the last call.
    pub fn next_scene(&mut self) -> Option<Scene> {
        if !self.frames.has_changed().unwrap_or(false) {
            return None;
        }
        let line = self.frames.borrow_and_update().clone()?;
        let Ok(Envelope {
            payload: Payload::Frame(f),
            ..
        }) = Envelope::from_json(&line)
        else {
            return None;
        };
        let source = self.source.as_ref();
        let video = self
            .video
            .get_or_insert_with(|| ReplayVideo::open(source, (f.width, f.height)))
            .as_mut()
            .and_then(|v| v.at(f.video_timestamp));
        Some(scene_from_frame(&f, video))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame message of match `m` at video time `t`, as a player sends it.
    fn frame_line(m: MatchId, t: f64, (width, height): (u32, u32)) -> String {
        Envelope {
            match_id: m,
            session_id: Some(sportz_contract::SessionId::generate()),
            ts: 1.0,
            seq: 1,
            payload: Payload::Frame(Box::new(sportz_contract::FrameData {
                frame_number: (t * 25.0) as u64,
                video_timestamp: t,
                timestamp: 1.0,
                width,
                height,
                coordinate_mode: sportz_contract::CoordinateMode::Pixel,
                ball: None,
                trail: Vec::new(),
                players: Vec::new(),
                latency_ms: 0.0,
                camera: None,
                kits: None,
            })),
        }
        .to_json()
    }

    /// A real API and a real clip: the follower draws each frame the player hands on, over the
    /// match's file at that time, and knows when the player is gone.
    #[test]
    fn the_follower_draws_the_players_frames_over_the_matchs_file() {
        let dir = tempfile::tempdir().unwrap();
        let rt = tokio::runtime::Runtime::new().unwrap();
        sportz_synth::write_match(
            &sportz_synth::SynthConfig {
                width: 320,
                height: 180,
                duration_secs: 2.0,
                cuts: false,
                ..sportz_synth::SynthConfig::default()
            },
            5,
            dir.path(),
            |_| {},
        )
        .unwrap();
        let clip = dir.path().join("match.mp4").display().to_string();
        let (api, shutdown) = rt.block_on(crate::open_video::tests::api(dir.path()));
        let mut new = sportz_store::NewMatch::new("Replayed", "Home", "Away");
        new.video_source = Some(sportz_contract::worker::VideoSource::File(clip));
        let m = rt
            .block_on(sportz_api::service::matches::create_match(&api.state, new))
            .unwrap()
            .id;
        assert!(
            ReplayFollower::new(&api.state, rt.handle(), m, "no-player").is_none(),
            "no such player"
        );
        let tap = api.state.replays.open("p1".into());
        let mut follower = ReplayFollower::new(&api.state, rt.handle(), m, "p1").unwrap();
        assert!(follower.next_scene().is_none(), "nothing sent yet");
        assert_eq!(follower.has_video(), None);
        tap.frame(&frame_line(m, 1.0, (320, 180)));
        let scene = follower.next_scene().expect("the frame's scene");
        let video = scene.video.expect("over the file's picture");
        assert_eq!((video.width, video.height), (320, 180));
        assert!(video.rgb.iter().any(|&b| b > 0), "a decoded picture");
        assert_eq!(follower.has_video(), Some(true));
        assert!(follower.next_scene().is_none(), "one scene per frame");
        assert!(!follower.ended());
        drop(tap);
        assert!(follower.ended(), "the player is gone");
        shutdown.cancel();
    }

    #[test]
    fn the_player_comes_from_the_replay_route() {
        let m = MatchId::generate();
        let base = format!("http://127.0.0.1:8080/#/match/{m}/replay/ses_1");
        assert_eq!(
            followed_player(&format!("{base}?player=ses_1-4")),
            Some((m, "ses_1-4".to_owned()))
        );
        assert_eq!(
            followed_player(&format!("{base}?x=1&player=p")),
            Some((m, "p".to_owned()))
        );
        assert_eq!(followed_player(&base), None, "no player yet");
        assert_eq!(followed_player(&format!("{base}?player=")), None);
        assert_eq!(
            followed_player(&format!("http://h/#/match/{m}?player=p")),
            None,
            "not a replay"
        );
        assert_eq!(
            followed_player("http://h/#/match/nope/replay/s?player=p"),
            None
        );
        assert_eq!(followed_player("http://h/"), None);
    }
}
