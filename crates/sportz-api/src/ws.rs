//! The two WebSocket endpoints.
//!
//! `/ws` — the Sportz match centre: `welcome` on connect; `subscribe` / `unsubscribe` {matchId}
//! → `subscribed` / `unsubscribed`; `match_created`, `score_update`, `match_updated` to every
//! client; `commentary` to that match's subscribers; malformed input → `error` (the connection
//! stays open).
//!
//! `/ws/matches/{id}` — live tracking: a snapshot (status; frame, ball and players while the
//! match is active; metrics; the last 50 events), then the relay of the match's channels. A
//! client that reconnects with `?since=<event_id>` (the newest event it saw) gets every event
//! stored after that one instead of the last 50 (recovery: a network blip loses no event; an id
//! the match does not have gets the usual 50). The store is read again a few times after the
//! snapshot for events persisted late (`crate::catch_up`); each event reaches a client once.
//! Unknown match → close 4404; bus unavailable → `error` message then close 1011; client `ping`
//! text (any text) is ignored. With `?replay=<session>` the socket plays a recorded session
//! back instead (`crate::recording::replay`: pace, play/pause/seek/speed from the client);
//! live viewers are not affected.
//!
//! Both: server ping every `ping_interval`, sockets that did not pong since the previous ping are
//! terminated, and so are sockets that accept no data for a whole interval (a stalled reader);
//! shutdown closes with 1001; origin from another site → 4403; a required viewer token missing →
//! 4401 (a store that cannot check the token → 1011, which clients retry); upgrades over the
//! per-client rate → 429 with `Retry-After`.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use sportz_bus::BusError;
use sportz_contract::match_centre::{ClientMessage, ServerMessage};
use sportz_contract::{Envelope, EventId, MatchId, Payload, StatusData};

use crate::error::ApiError;
use crate::queue::{ClientQueue, Next};
use crate::relay::{CLOSE_BUS_UNAVAILABLE, bus_error_message};
use crate::state::AppState;

pub const CLOSE_GOING_AWAY: u16 = 1001;
pub const CLOSE_UNAUTHORIZED: u16 = 4401;
pub const CLOSE_FORBIDDEN_ORIGIN: u16 = 4403;
pub const CLOSE_UNKNOWN_MATCH: u16 = 4404;
/// A server-side failure (the store could not be asked): retry with back-off.
pub const CLOSE_SERVER_ERROR: u16 = 1011;

/// The client's IP (loopback when the server runs without connect info, as in unit tests).
#[derive(Debug, Clone, Copy)]
pub struct ClientIp(pub IpAddr);

impl<S: Send + Sync> FromRequestParts<S> for ClientIp {
    type Rejection = std::convert::Infallible;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Self(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map_or(IpAddr::from([127, 0, 0, 1]), |c| c.0.ip()),
        ))
    }
}

#[derive(Debug, Deserialize)]
pub struct WsQuery {
    token: Option<String>,
    /// `/ws/matches/{id}` only: the newest event id the client has (recovery).
    since: Option<String>,
    /// `/ws/matches/{id}` only: replay this recorded session instead of the live match
    /// (`crate::recording::replay`), from `at` seconds at `speed`.
    replay: Option<String>,
    at: Option<f64>,
    speed: Option<f64>,
}

/// The most missed events one reconnect replays (beyond that, the newest 50 follow too).
const MAX_RECOVERED_EVENTS: u32 = crate::catch_up::MAX_EVENTS;

/// Same-origin (the Origin's host is the Host header), an allowed origin, or no Origin at all
/// (not a browser).
#[must_use]
pub fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) else {
        return true;
    };
    if allowed.iter().any(|a| a == "*" || a == origin) {
        return true;
    }
    let origin_host = origin.split_once("://").map_or(origin, |(_, h)| h);
    headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .is_some_and(|host| host.eq_ignore_ascii_case(origin_host))
}

/// Checks done before upgrading: the upgrade rate (429) — the rest close after the upgrade so
/// browsers see the code.
fn precheck(st: &AppState, ip: IpAddr) -> Option<Response> {
    st.ws_limiter.check(ip).err().map(|retry| {
        st.metrics.rate_limited.inc();
        ApiError::RateLimited {
            retry_after_secs: retry,
        }
        .into_response()
    })
}

async fn refusal(st: &AppState, headers: &HeaderMap, token: Option<&str>) -> Option<(u16, String)> {
    if !origin_allowed(headers, &st.config.allowed_origins) {
        return Some((
            CLOSE_FORBIDDEN_ORIGIN,
            "cross-site WebSocket origin refused".to_owned(),
        ));
    }
    if let Err(e) = crate::auth::require_reader(st, token).await {
        return Some(auth_close(&e));
    }
    None
}

/// The close code for a failed token check: a refused token is 4401 (clients do not retry it); a
/// store that could not be asked is a server error, 1011, which clients retry with back-off.
fn auth_close(e: &ApiError) -> (u16, String) {
    match e {
        ApiError::Unauthorized(_) | ApiError::Forbidden(_) => (CLOSE_UNAUTHORIZED, e.to_string()),
        other => (
            CLOSE_SERVER_ERROR,
            format!("cannot check the token now, retry: {other}"),
        ),
    }
}

/// Outgoing bytes collected before a write to the socket (a flush always writes what is left).
/// tungstenite's default is 128 KiB; the buffer is allocated only once a socket has sent.
const WRITE_BUFFER: usize = 8 * 1024;

/// Size limits and buffers: clients send little, so an 8 KiB read buffer (tungstenite's default
/// is 128 KiB per connection) and a small write buffer keep memory per connection low.
fn tune(ws: WebSocketUpgrade, max: usize) -> WebSocketUpgrade {
    ws.max_message_size(max)
        .max_frame_size(max)
        .read_buffer_size(8 * 1024)
        .write_buffer_size(WRITE_BUFFER)
}

async fn close<S: futures_util::Sink<Message> + Unpin>(mut socket: S, code: u16, reason: &str) {
    let reason: String = reason.chars().take(120).collect(); // close reasons are ≤ 123 bytes
    let _ = socket
        .send(Message::Close(Some(CloseFrame {
            code,
            reason: reason.into(),
        })))
        .await;
}

type Sender = futures_util::stream::SplitSink<WebSocket, Message>;

/// Writes a batch with one flush: the messages collect in the socket's write buffer
/// ([`WRITE_BUFFER`]) and go out in as few writes as that allows.
async fn send_batch(sink: &mut Sender, batch: Vec<crate::queue::Text>) -> Result<(), axum::Error> {
    for text in batch {
        sink.feed(Message::Text(text)).await?;
    }
    sink.flush().await
}

/// Sends queued messages, runs the ghost timer and reacts to shutdown; a task of its own reads
/// what the client sends (`on_text` gets its text frames; pongs mark it alive), so a delivery
/// does not also poll the socket for reading. Returns when the socket is done.
async fn pump(
    socket: WebSocket,
    st: Arc<AppState>,
    q: Arc<ClientQueue>,
    endpoint: &'static str,
    mut on_text: impl FnMut(&str) + Send + 'static,
) {
    let (mut sink, mut stream) = socket.split();
    let alive = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let mut reader = {
        let alive = alive.clone();
        tokio::spawn(async move {
            while let Some(incoming) = stream.next().await {
                match incoming {
                    Ok(Message::Text(t)) => on_text(t.as_str()),
                    Ok(Message::Pong(_)) => alive.store(true, Ordering::Relaxed),
                    Ok(Message::Close(_)) | Err(_) => return,
                    Ok(_) => {}
                }
            }
        })
    };
    // the reader task ends with the pump, whichever way it returns
    let _abort_reader = AbortOnDrop(reader.abort_handle());
    let mut ping = tokio::time::interval(st.config.ping_interval);
    ping.tick().await;
    // registered once, not on every turn of the loop (the token's waiter list is shared by
    // every socket of the instance)
    let shutdown = st.shutdown.cancelled();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            next = q.next() => match next {
                Next::Send(batch) => {
                    // a client that stops reading blocks this send once its TCP buffers are
                    // full: give up after one ping interval (its queue has overflowed by then)
                    let n = batch.len();
                    let sent = tokio::time::timeout(st.config.ping_interval, send_batch(&mut sink, batch)).await;
                    if !matches!(sent, Ok(Ok(()))) {
                        tracing::debug!(endpoint, "terminating a socket that stopped reading");
                        return;
                    }
                    st.metrics.sent_n(endpoint, n as u64);
                }
                Next::Close(code, reason) => return close(sink, code, &reason).await,
            },
            _ = &mut reader => return, // the client closed or the connection broke
            _ = ping.tick() => {
                if !alive.swap(false, Ordering::Relaxed) {
                    tracing::debug!(endpoint, "terminating a socket that did not answer the last ping");
                    return;
                }
                if sink.send(Message::Ping(Default::default())).await.is_err() {
                    return;
                }
            }
            () = &mut shutdown => {
                return close(sink, CLOSE_GOING_AWAY, "server shutting down").await;
            }
        }
    }
}

/// Aborts a task when dropped.
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// `GET /ws`.
#[utoipa::path(
    get,
    path = "/ws",
    operation_id = "ws_centre",
    params(("token" = Option<String>, Query, description = "A viewer or operator token, when the server requires one")),
    responses((status = 101, description = "Switching protocols: the match-centre WebSocket"))
)]
pub async fn centre(
    State(st): State<Arc<AppState>>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    Query(q): Query<WsQuery>,
    ws: WebSocketUpgrade,
) -> Response {
    if let Some(r) = precheck(&st, ip) {
        return r;
    }
    let refused = refusal(&st, &headers, q.token.as_deref()).await;
    let max = st.config.max_message_bytes;
    tune(ws, max).on_upgrade(move |socket| async move {
        if let Some((code, reason)) = refused {
            return close(socket, code, &reason).await;
        }
        let id = st.next_client_id();
        let queue = Arc::new(ClientQueue::new(st.config.client_queue));
        st.centre.register(id, queue.clone());
        st.metrics.connected("ws", 1);
        queue.push(ServerMessage::Welcome.to_json().into());
        let (st2, q2) = (st.clone(), queue.clone());
        pump(socket, st.clone(), queue, "ws", move |text| {
            let reply = match ClientMessage::from_json(text) {
                Ok(ClientMessage::Subscribe { match_id }) => {
                    st2.centre.subscribe(id, match_id);
                    ServerMessage::Subscribed { match_id }
                }
                Ok(ClientMessage::Unsubscribe { match_id }) => {
                    st2.centre.unsubscribe(id, match_id);
                    ServerMessage::Unsubscribed { match_id }
                }
                Err(e) => ServerMessage::Error {
                    message: e.to_string(),
                },
            };
            q2.push(reply.to_json().into());
        })
        .await;
        st.centre.unregister(id);
        st.metrics.connected("ws", -1);
    })
}

/// `GET /ws/matches/{id}`.
#[utoipa::path(
    get,
    path = "/ws/matches/{id}",
    operation_id = "ws_live",
    params(
        ("id" = MatchId, Path, description = "The match"),
        ("token" = Option<String>, Query, description = "A viewer or operator token, when the server requires one"),
        ("since" = Option<String>, Query, description = "The newest event id the client has: the snapshot then carries every event stored after it (up to 1,000) instead of the last 50"),
        ("replay" = Option<String>, Query, description = "A recorded session of the match to play back instead of the live match: messages carry `replay: true`, `replay` messages report the player; the client sends play, pause, seek {t} and speed {value: 0.25–4}"),
        ("at" = Option<f64>, Query, description = "Replay: where to start, seconds of video"),
        ("speed" = Option<f64>, Query, description = "Replay: 0.25 to 4 (default 1)")
    ),
    responses((status = 101, description = "Switching protocols: the live tracking WebSocket"))
)]
pub async fn live(
    State(st): State<Arc<AppState>>,
    ClientIp(ip): ClientIp,
    Path(raw_id): Path<String>,
    headers: HeaderMap,
    Query(q): Query<WsQuery>,
    ws: WebSocketUpgrade,
) -> Response {
    if let Some(r) = precheck(&st, ip) {
        return r;
    }
    let refused = refusal(&st, &headers, q.token.as_deref()).await;
    let since = q.since.as_deref().and_then(|s| s.parse::<EventId>().ok());
    let (replay, at, speed) = (q.replay, q.at, q.speed);
    let max = st.config.max_message_bytes;
    tune(ws, max).on_upgrade(move |mut socket| async move {
        if let Some((code, reason)) = refused {
            return close(socket, code, &reason).await;
        }
        let Ok(m) = raw_id.parse::<MatchId>() else {
            return close(socket, CLOSE_UNKNOWN_MATCH, "unknown match").await;
        };
        let row = match st.store.get_match(m).await {
            Ok(r) => r,
            Err(sportz_store::StoreError::NotFound { .. }) => {
                return close(socket, CLOSE_UNKNOWN_MATCH, "unknown match").await;
            }
            Err(e) => {
                return close(
                    socket,
                    CLOSE_SERVER_ERROR,
                    &format!("store unavailable: {e}"),
                )
                .await;
            }
        };
        if let Some(session) = replay {
            return replay_session(socket, st, m, &session, (at, speed)).await;
        }
        let id = st.next_client_id();
        let queue = Arc::new(ClientQueue::new(st.config.client_queue));
        // subscribe before reading the snapshot so nothing between the two is missed
        let joined = st
            .relays
            .join(&st.bus, &st.metrics, m, id, queue.clone())
            .await;
        let snapshot = match joined {
            Ok(()) => snapshot(&st, &row, since).await,
            Err(e) => Err(BusError::Unavailable(e.to_string())),
        };
        let (messages, events) = match snapshot {
            Ok(s) => s,
            Err(e) => {
                let _ = socket
                    .send(Message::Text(bus_error_message(m, &e.to_string()).into()))
                    .await;
                st.relays.leave(m, id);
                return close(socket, CLOSE_BUS_UNAVAILABLE, "bus unavailable").await;
            }
        };
        st.metrics.connected("ws_match", 1);
        let after = events.last().copied().or(since);
        queue.mark_sent(events);
        let late = tokio::spawn(crate::catch_up::run(
            st.clone(),
            m,
            after,
            queue.clone(),
            st.config.catch_up.clone(),
        ));
        let _stop_late = AbortOnDrop(late.abort_handle());
        for text in messages {
            if socket.send(Message::Text(text.into())).await.is_err() {
                break;
            }
            st.metrics.sent("ws_match");
        }
        pump(socket, st.clone(), queue, "ws_match", |_ignored| {}).await;
        st.relays.leave(m, id);
        st.metrics.connected("ws_match", -1);
    })
}

/// A replay socket (`?replay=<session>`): the session's recording played back, its controls
/// read from the client. An unknown session or one without a recording closes 4404 with why.
async fn replay_session(
    socket: WebSocket,
    st: Arc<AppState>,
    m: MatchId,
    session: &str,
    (at, speed): (Option<f64>, Option<f64>),
) {
    use crate::recording::replay;
    let Ok(s) = session.parse::<sportz_contract::SessionId>() else {
        return close(socket, CLOSE_UNKNOWN_MATCH, "unknown session").await;
    };
    let found = crate::service::recordings::session_export(
        &st,
        m,
        s,
        crate::recording::export::Format::Cdf, // a format made of frames: the recording is needed
    )
    .await;
    let found = match found {
        Ok(f) => f,
        Err(ApiError::NotFound(why)) => {
            // a close reason is at most 123 bytes
            let why: String = why.chars().take(100).collect();
            return close(socket, CLOSE_UNKNOWN_MATCH, &why).await;
        }
        Err(e) => return close(socket, CLOSE_SERVER_ERROR, &e.to_string()).await,
    };
    let Some(recording) = found.recording else {
        return close(socket, CLOSE_UNKNOWN_MATCH, "nothing recorded").await;
    };
    let session = replay::Session {
        match_id: m,
        session_id: s,
        recording,
        events: Arc::new(found.events),
        duration: found.scanned.last_video_timestamp,
    };
    let speed = speed.filter(|v| replay::SPEEDS.contains(v)).unwrap_or(1.0);
    let at = at.filter(|v| v.is_finite() && *v >= 0.0).unwrap_or(0.0);
    let (tx, rx) = tokio::sync::watch::channel(replay::Player {
        playing: true,
        speed,
        seek: None,
    });
    let queue = Arc::new(ClientQueue::new(st.config.client_queue));
    let tap = st.replays.open(format!("{s}-{}", st.next_client_id()));
    let player = tokio::spawn(replay::run(session, queue.clone(), rx, at, tap));
    let _stop_player = AbortOnDrop(player.abort_handle());
    st.metrics.connected("ws_replay", 1);
    let q2 = queue.clone();
    pump(
        socket,
        st.clone(),
        queue,
        "ws_replay",
        move |text| match replay::parse_control(text) {
            Ok(c) => {
                tx.send_modify(|p| *p = p.with(c));
            }
            Err(why) => {
                let err = Envelope {
                    match_id: m,
                    session_id: Some(s),
                    ts: sportz_contract::unix_now(),
                    seq: 0,
                    payload: Payload::Error(sportz_contract::ErrorData {
                        code: "bad_request".into(),
                        message: why,
                    }),
                };
                q2.push(err.to_json().into());
            }
        },
    )
    .await;
    st.metrics.connected("ws_replay", -1);
}

/// The snapshot a new live client gets, in the seed's order; with `since`, the events it missed.
/// Also the ids of the events in it, oldest stored first.
async fn snapshot(
    st: &AppState,
    row: &sportz_store::Match,
    since: Option<EventId>,
) -> Result<(Vec<String>, Vec<EventId>), BusError> {
    let m = row.id;
    let session = match row.current_session_id {
        Some(s) => st.store.get_session(s).await.ok(),
        None => None,
    };
    let mut out = vec![
        Envelope {
            match_id: m,
            session_id: row.current_session_id,
            ts: sportz_contract::unix_now(),
            seq: 0,
            payload: Payload::Status(StatusData {
                status: session.as_ref().map(|s| s.status),
                match_status: Some(row.status),
                message: row.status_message.clone(),
                worker_id: session.and_then(|s| s.worker_id),
            }),
        }
        .to_json(),
    ];
    if row.status.is_active()
        && let Some(frame) = st.bus.last_frame(&m).await?
        && let Payload::Frame(f) = &frame.payload
    {
        let ball = Envelope {
            payload: Payload::Ball(f.ball_data()),
            ..frame.clone()
        };
        let players = Envelope {
            payload: Payload::Players(f.players_data()),
            ..frame.clone()
        };
        out.push(frame.to_json());
        out.push(ball.to_json());
        out.push(players.to_json());
    }
    if let Some(metrics) = st.bus.last_metrics(&m).await? {
        out.push(metrics.to_json());
    }
    let store_err = |e: sportz_store::StoreError| BusError::Unavailable(format!("store: {e}"));
    let missed = match since {
        Some(after) => st
            .store
            .events_after(m, after, MAX_RECOVERED_EVENTS)
            .await
            .map_err(store_err)?,
        None => None,
    };
    let events = match missed {
        Some(v) if v.len() < MAX_RECOVERED_EVENTS as usize => v,
        Some(mut v) => {
            // too many to replay: the oldest missed ones, then the newest 50 (the client
            // drops what it has twice by event id)
            v.extend(st.store.recent_events(m, 50).await.map_err(store_err)?);
            v
        }
        None => st.store.recent_events(m, 50).await.map_err(store_err)?,
    };
    let mut ids = Vec::with_capacity(events.len());
    for e in &events {
        out.push(crate::catch_up::event_message(m, e));
        ids.push(e.data.event_id);
    }
    Ok((out, ids))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_token_is_4401_a_store_failure_is_retried() {
        let cases = [
            (
                ApiError::Unauthorized("unknown or revoked token".into()),
                CLOSE_UNAUTHORIZED,
            ),
            (
                ApiError::Forbidden("viewer token".into()),
                CLOSE_UNAUTHORIZED,
            ),
            (
                ApiError::Unavailable("database is down".into()),
                CLOSE_SERVER_ERROR,
            ),
            (
                ApiError::Internal("pool timed out".into()),
                CLOSE_SERVER_ERROR,
            ),
        ];
        for (e, code) in cases {
            let (got, reason) = auth_close(&e);
            assert_eq!(got, code, "{e}: {reason}");
            assert!(
                reason.len() <= 123,
                "a close reason fits a control frame: {reason}"
            );
        }
    }

    fn h(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut m = HeaderMap::new();
        for (k, v) in pairs {
            m.insert(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        m
    }

    #[test]
    fn origins() {
        let none: Vec<String> = vec![];
        assert!(
            origin_allowed(&h(&[("host", "10.0.0.5:8080")]), &none),
            "no origin: not a browser"
        );
        assert!(origin_allowed(
            &h(&[
                ("host", "10.0.0.5:8080"),
                ("origin", "http://10.0.0.5:8080")
            ]),
            &none
        ));
        assert!(!origin_allowed(
            &h(&[("host", "10.0.0.5:8080"), ("origin", "http://evil.example")]),
            &none
        ));
        assert!(!origin_allowed(
            &h(&[
                ("host", "10.0.0.5:8080"),
                ("origin", "http://10.0.0.5:9999")
            ]),
            &none
        ));
        let allowed = vec!["tauri://localhost".to_owned()];
        assert!(origin_allowed(
            &h(&[("host", "127.0.0.1:8080"), ("origin", "tauri://localhost")]),
            &allowed
        ));
    }
}
