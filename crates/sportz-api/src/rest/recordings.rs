//! `GET /matches/{id}/sessions/{sid}/export`: a session's recording in an analyst's format,
//! streamed as it is read (live sessions: what was recorded up to the last second).

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use sportz_contract::{MatchId, SessionId};

use super::S;
use crate::error::{ApiError, ApiResult};
use crate::extract::{AppQuery, Reader, match_id};
use crate::recording::export::{Format, Source, export};
use crate::service;

#[derive(Debug, Deserialize)]
pub struct ExportQuery {
    pub format: Option<String>,
}

/// An `io::Write` that hands 64 KiB chunks to the response body.
struct Chunks {
    buf: Vec<u8>,
    tx: tokio::sync::mpsc::Sender<Result<Bytes, std::io::Error>>,
}

impl Chunks {
    const SIZE: usize = 64 << 10;

    fn send(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::replace(
            &mut self.buf,
            Vec::with_capacity(Self::SIZE),
        ));
        self.tx
            .blocking_send(Ok(chunk))
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the client left"))
    }
}

impl std::io::Write for Chunks {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= Self::SIZE {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.send()
    }
}

#[utoipa::path(
    get,
    path = "/matches/{id}/sessions/{sid}/export",
    params(
        ("id" = MatchId, Path, description = "The match"),
        ("sid" = SessionId, Path, description = "One of its sessions"),
        ("format" = String, Query, description = "jsonl (every recorded message), events-csv, cdf (CDF tracking JSONL), gsr (SoccerNet game-state JSON) or mot (MOTChallenge boxes)"),
        ("token" = Option<String>, Query, description = "A viewer or operator token, when the server requires one and the client cannot send `Authorization` (a download link)")
    ),
    responses(
        (status = 200, description = "The session in that format, streamed (frames, statuses and metrics from its recording, events from the store); `x-sportz-frames` and `x-sportz-events` count what it holds, `x-sportz-warning` says when a crash cut the recording short (everything before that is exported)", content(
            (crate::dto::ExportFile = "application/x-ndjson"),
            (crate::dto::ExportFile = "text/csv"),
            (crate::dto::ExportFile = "application/json"),
            (crate::dto::ExportFile = "text/plain")
        )),
        (status = 400, description = "No format, or an unknown one (the error lists them)", body = crate::error::ErrorBody),
        (status = 404, description = "Unknown match or session, or (for cdf, gsr, mot) nothing recorded: the reason", body = crate::error::ErrorBody)
    )
)]
pub(crate) async fn export_session(
    State(st): S,
    AppQuery(q): AppQuery<ExportQuery>,
    _: Reader,
    Path((id, sid)): Path<(String, String)>,
) -> ApiResult<Response> {
    let format: Format = q
        .format
        .as_deref()
        .ok_or_else(|| {
            ApiError::field("format", "is required: jsonl, events-csv, cdf, gsr or mot")
        })?
        .parse()
        .map_err(|e: String| ApiError::field("format", e))?;
    let m = match_id(&id)?;
    let s: SessionId = sid
        .parse()
        .map_err(|e| ApiError::NotFound(format!("session `{sid}` not found ({e})")))?;
    let found = service::recordings::session_export(&st, m, s, format).await?;
    if let Some(why) = &found.scanned.damaged {
        tracing::warn!(match_id = %m, session_id = %s, "exporting a damaged recording: {why}");
    }
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let opts = sportz_eval::ExportOptions {
        match_id: m.to_string(),
        ..sportz_eval::ExportOptions::default()
    };
    let (frames, events, damaged) = (
        found.scanned.frames,
        found.events.len(),
        found.scanned.damaged.clone(),
    );
    tokio::task::spawn_blocking(move || {
        let mut out = Chunks {
            buf: Vec::with_capacity(Chunks::SIZE),
            tx: tx.clone(),
        };
        let src = Source {
            match_id: m,
            session_id: s,
            recording: found.recording.as_deref(),
            events: &found.events,
        };
        if let Err(e) = export(&src, format, &opts, &mut out)
            && e.kind() != std::io::ErrorKind::BrokenPipe
        {
            tracing::warn!(match_id = %m, session_id = %s, "export cut short: {e}");
            let _ = tx.blocking_send(Err(e));
        }
    });
    let body = Body::from_stream(futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    }));
    let mut resp = body.into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(format.content_type()),
    );
    if let Ok(v) = HeaderValue::from_str(&format!(
        "attachment; filename=\"{m}.{s}.{}\"",
        format.extension()
    )) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    h.insert("x-sportz-frames", frames.into());
    h.insert("x-sportz-events", events.into());
    if let Some(why) =
        damaged.and_then(|w| HeaderValue::from_str(&w.replace(['\r', '\n'], " ")).ok())
    {
        h.insert("x-sportz-warning", why);
    }
    Ok(resp)
}
