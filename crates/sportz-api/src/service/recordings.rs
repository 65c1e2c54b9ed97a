//! Session exports: the recording (`crate::recording`) and the stored events of a session.

use std::path::PathBuf;

use sportz_contract::{EventData, MatchId, SessionId};
use sportz_store::{EventFilter, PageRequest, Store};

use crate::error::{ApiError, ApiResult};
use crate::recording::export::{Exported, Format, scan};
use crate::state::AppState;

/// What an export of one session reads.
#[derive(Debug)]
pub struct SessionExport {
    /// The recording, when there is one.
    pub recording: Option<PathBuf>,
    /// What a read of the recording found (frames, damage).
    pub scanned: Exported,
    /// The session's stored events, in frame order.
    pub events: Vec<EventData>,
}

/// A session's stored events, in frame order (every page).
///
/// # Errors
/// The store's.
pub async fn session_events(
    store: &dyn Store,
    m: MatchId,
    s: SessionId,
) -> Result<Vec<EventData>, sportz_store::StoreError> {
    let mut out = Vec::new();
    let mut cursor = None;
    loop {
        let page = store
            .list_events(EventFilter {
                match_id: m,
                kind: None,
                session_id: Some(s),
                page: PageRequest {
                    cursor,
                    limit: Some(500),
                },
            })
            .await?;
        out.extend(page.items.into_iter().map(|e| e.data));
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => return Ok(out),
        }
    }
}

/// The session of a match to export as `format`, checked: the match and the session exist (404
/// naming what is missing), and the formats made of frames (`cdf`, `gsr`, `mot`) have a
/// recording to read (404 saying why not); `events-csv` and `jsonl` answer from the events
/// alone when nothing was recorded.
///
/// # Errors
/// 404 as above; 503 when the recording or the store cannot be read.
pub async fn session_export(
    state: &AppState,
    m: MatchId,
    s: SessionId,
    format: Format,
) -> ApiResult<SessionExport> {
    let sessions = state.store.list_sessions(m).await?;
    if !sessions.iter().any(|x| x.id == s) {
        return Err(ApiError::NotFound(format!(
            "match {m} has no session {s} (GET /matches/{m}/sessions lists them)"
        )));
    }
    let recording = state
        .config
        .recordings
        .as_ref()
        .map(|r| r.path(m, s))
        .filter(|p| p.exists());
    let frames_needed = !matches!(format, Format::EventsCsv | Format::Jsonl);
    if recording.is_none() && frames_needed {
        return Err(ApiError::NotFound(match &state.config.recordings {
            None => "sessions are not recorded on this server (it was started with --no-recording): only events-csv and jsonl (events) can be exported".into(),
            Some(r) => format!(
                "nothing recorded for session {s} yet (messages are written once a second; recordings are removed after {} days)",
                r.keep_days
            ),
        }));
    }
    let scanned = match &recording {
        Some(path) => {
            let path = path.clone();
            tokio::task::spawn_blocking(move || scan(&path))
                .await
                .map_err(|e| ApiError::Internal(format!("recording scan: {e}")))?
                .map_err(|e| ApiError::Unavailable(format!("cannot read the recording: {e}")))?
        }
        None => Exported::default(),
    };
    let events = session_events(state.store.as_ref(), m, s).await?;
    Ok(SessionExport {
        recording,
        scanned,
        events,
    })
}
