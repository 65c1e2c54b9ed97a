//! Opening a local video in the desktop app (a file dropped on the window): one operation over
//! the API's own (`sportz_api::service`): the file is checked with ffprobe, a match is created
//! for it, calibrated automatically when the pitch is found in a still (else the worker's
//! per-frame camera finds it as it plays), and started.

use std::path::Path;
use std::time::Duration;

use sportz_api::service;
use sportz_api::state::AppState;
use sportz_contract::MatchId;
use sportz_contract::worker::VideoSource;

/// Creates, calibrates and starts a match for the video at `path`.
///
/// # Errors
/// What is wrong, for the user: not a file, not a video ffprobe can read, or the API's refusal.
pub async fn open_video(state: &AppState, path: &Path) -> Result<MatchId, String> {
    let shown = path.display().to_string();
    if !path.is_file() {
        return Err(format!(
            "{shown} is not a file: drop a video file (mp4, mkv, ts, …)"
        ));
    }
    let path = path
        .canonicalize()
        .map_err(|e| format!("cannot open {shown}: {e}"))?;
    let source = VideoSource::File(path.display().to_string());
    let probe = sportz_worker::source::probe(&source, Duration::from_secs(15))
        .await
        .map_err(|e| format!("{shown} is not a video ffmpeg can read: {e}"))?;
    let title = path
        .file_stem()
        .map_or_else(|| "Video".to_owned(), |s| s.to_string_lossy().into_owned());
    let mut new = sportz_store::NewMatch::new(&title, "Home", "Away");
    new.video_source = Some(source);
    let created = service::matches::create_match(state, new)
        .await
        .map_err(|e| format!("cannot create a match for {shown}: {e}"))?;
    // a still a little way in (the first frame is often a fade or a graphic)
    let t = probe.duration.map_or(0.0, |d| (d * 0.1).min(10.0));
    match service::calibration::auto_calibration(state, created.id, t).await {
        Ok(found) => {
            if let Err(e) =
                service::calibration::set_calibration(state, created.id, found.pairs).await
            {
                tracing::info!(match_id = %created.id, "automatic calibration not saved: {e}");
            }
        }
        Err(e) => {
            tracing::info!(match_id = %created.id, "no automatic calibration from the still ({e}); the worker's camera finds the pitch as it plays")
        }
    }
    service::sessions::act(state, created.id, service::sessions::Action::Start)
        .await
        .map_err(|e| format!("the match for {shown} did not start: {e}"))?;
    tracing::info!(match_id = %created.id, file = %path.display(), "opened a dropped video");
    Ok(created.id)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::Arc;

    use super::*;

    /// An API on the in-process bus and a SQLite file in `dir` (operator token `t`).
    pub(crate) async fn api(dir: &Path) -> (sportz_api::Api, tokio_util::sync::CancellationToken) {
        let bus = sportz_bus::ContractBus::new(Arc::new(sportz_bus::MemoryBus::new()));
        let store = sportz_store::open(&dir.join("t.sqlite3").display().to_string())
            .await
            .unwrap();
        let shutdown = tokio_util::sync::CancellationToken::new();
        let api = sportz_api::Api::start(
            sportz_api::ApiConfig {
                operator_token: Some("t".into()),
                ..sportz_api::ApiConfig::default()
            },
            bus,
            store,
            shutdown.clone(),
        )
        .await
        .unwrap();
        (api, shutdown)
    }

    /// A real synthetic broadcast clip (ffmpeg-encoded by `sportz synth`'s renderer).
    #[tokio::test]
    async fn a_dropped_video_becomes_a_calibrated_started_match() {
        let dir = tempfile::tempdir().unwrap();
        let synth = dir.path().join("synth");
        sportz_synth::write_match(
            &sportz_synth::SynthConfig {
                width: 640,
                height: 360,
                duration_secs: 3.0,
                cuts: false,
                ..sportz_synth::SynthConfig::default()
            },
            7,
            &synth,
            |_| {},
        )
        .unwrap();
        let clip = dir.path().join("Derby day.mp4");
        std::fs::rename(synth.join("match.mp4"), &clip).unwrap();
        let (api, shutdown) = api(dir.path()).await;
        let id = open_video(&api.state, &clip).await.unwrap();
        let m = service::matches::get_match(&api.state, id).await.unwrap();
        assert_eq!(m.name, "Derby day");
        assert_eq!(
            m.video_source,
            Some(VideoSource::File(
                clip.canonicalize().unwrap().display().to_string()
            ))
        );
        assert!(
            m.calibration.len() >= 4,
            "calibrated from a still: {:?}",
            m.calibration
        );
        assert_eq!(m.status, sportz_contract::status::MatchStatus::Starting);
        shutdown.cancel();
    }

    #[tokio::test]
    async fn what_is_not_a_video_is_refused_with_why() {
        let dir = tempfile::tempdir().unwrap();
        let (api, shutdown) = api(dir.path()).await;
        let notes = dir.path().join("notes.txt");
        std::fs::write(&notes, "not a video").unwrap();
        let e = open_video(&api.state, &notes).await.unwrap_err();
        assert!(e.contains("is not a video"), "{e}");
        let e = open_video(&api.state, dir.path()).await.unwrap_err();
        assert!(e.contains("is not a file"), "{e}");
        let none = service::matches::list_matches(&api.state, Default::default())
            .await
            .unwrap();
        assert!(none.items.is_empty(), "nothing created");
        shutdown.cancel();
    }
}
