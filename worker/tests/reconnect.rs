//! A source that drops mid-stream: a local HTTP server cuts the connection; the worker reports
//! `reconnecting`, reconnects with back-off, resumes at its last timestamp and goes back to
//! `processing`.

mod common;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::*;
use sportz_contract::MatchId;
use sportz_contract::Payload;
use sportz_contract::status::SessionStatus;
use sportz_contract::worker::{SessionConfig, VideoSource};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

fn make_ts(dir: &std::path::Path, secs: u32) -> PathBuf {
    sportz_testkit::TestClip {
        bitrate: Some("400k"),
        mpegts: true,
        ..sportz_testkit::TestClip::new(secs, 10)
    }
    .make(&dir.join("live.ts"))
}

/// Serves one file over HTTP/1.1 (with `Range`), throttled to about 1.5× its bitrate after a
/// first burst. An outage `outage_after` the first request lasts one second: every open
/// connection is cut mid-body and new ones are closed unanswered.
async fn serve(
    bytes: Arc<Vec<u8>>,
    secs: u32,
    outage_after: Duration,
) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/live.ts", listener.local_addr().unwrap());
    let first_request: Arc<std::sync::OnceLock<Instant>> = Arc::default();
    let cut = Arc::new(AtomicBool::new(false));
    let connections = Arc::new(AtomicUsize::new(0));
    let conns = connections.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let t0 = *first_request.get_or_init(Instant::now);
            let in_outage = move || {
                let e = t0.elapsed();
                e >= outage_after && e < outage_after + Duration::from_secs(1)
            };
            if in_outage() {
                continue; // refused: dropped unanswered
            }
            conns.fetch_add(1, Ordering::SeqCst);
            let (bytes, cut) = (bytes.clone(), cut.clone());
            tokio::spawn(async move {
                let mut req = vec![0u8; 8192];
                let n = sock.read(&mut req).await.unwrap_or(0);
                let req = String::from_utf8_lossy(&req[..n]).to_lowercase();
                let start = req
                    .lines()
                    .find_map(|l| l.strip_prefix("range: bytes="))
                    .and_then(|r| r.split('-').next()?.trim().parse::<usize>().ok())
                    .unwrap_or(0)
                    .min(bytes.len());
                let head = if start > 0 {
                    format!(
                        "HTTP/1.1 206 Partial Content\r\nContent-Type: video/mp2t\r\nAccept-Ranges: bytes\r\nContent-Range: bytes {start}-{}/{}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        bytes.len() - 1,
                        bytes.len(),
                        bytes.len() - start
                    )
                } else {
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: video/mp2t\r\nAccept-Ranges: bytes\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        bytes.len()
                    )
                };
                if sock.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let per_100ms = (bytes.len() / (secs as usize * 10)) * 3 / 2;
                let burst = 128 * 1024;
                let mut pos = start;
                while pos < bytes.len() {
                    let step = if pos - start < burst {
                        burst
                    } else {
                        per_100ms.max(1)
                    };
                    let end = (pos + step).min(bytes.len());
                    if sock.write_all(&bytes[pos..end]).await.is_err() {
                        return;
                    }
                    pos = end;
                    if in_outage() {
                        cut.store(true, Ordering::SeqCst);
                        return; // the drop: connection closed mid-body
                    }
                    if pos - start >= burst {
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
            });
        }
    });
    (url, connections)
}

#[tokio::test]
async fn a_dropped_http_stream_reconnects_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let secs = 24;
    let ts = make_ts(dir.path(), secs);
    let bytes = Arc::new(std::fs::read(&ts).unwrap());
    let (url, connections) = serve(bytes, secs, Duration::from_secs(9)).await;

    let bus = memory_bus();
    let m = MatchId::generate();
    let mut watch = Watch::new(&bus, m).await;
    let _w = spawn_worker(&bus, fast_settings("w-reconnect"));
    let mut config = SessionConfig::new(VideoSource::Http(url));
    config.realtime = true;
    start(&bus, m, config).await;

    watch.status(15, SessionStatus::Processing).await;
    let reconnecting = watch.status(20, SessionStatus::Reconnecting).await;
    let before = watch.frames().last().map_or(0, |f| f.frame_number);
    let Payload::Status(st) = reconnecting.payload else {
        unreachable!()
    };
    let msg = st.message.unwrap();
    assert!(
        msg.contains("reconnecting in 0.1 s (attempt 1 of 10)"),
        "{msg}"
    );
    watch.status(20, SessionStatus::Processing).await;
    let after = watch
        .until(10, "a frame after reconnecting", is_frame)
        .await;
    let Payload::Frame(after) = after.payload else {
        unreachable!()
    };
    assert!(
        after.frame_number > before,
        "resumed at frame {} after {before}",
        after.frame_number
    );
    watch.status(30, SessionStatus::Completed).await;
    assert!(
        connections.load(Ordering::SeqCst) >= 3,
        "probe, cut stream, reconnect"
    );
    let statuses: Vec<SessionStatus> = watch.statuses().into_iter().map(|s| s.0).collect();
    assert_eq!(
        statuses,
        [
            SessionStatus::Starting,
            SessionStatus::Processing,
            SessionStatus::Reconnecting,
            SessionStatus::Processing,
            SessionStatus::Completed
        ]
    );
}

#[tokio::test]
async fn a_source_that_never_comes_back_fails_after_the_attempt_limit() {
    let bus = memory_bus();
    let m = MatchId::generate();
    let mut watch = Watch::new(&bus, m).await;
    let mut settings = fast_settings("w-gone");
    settings.max_reconnects = 3;
    settings.probe_timeout = Duration::from_secs(2);
    let _w = spawn_worker(&bus, settings);
    // a port with nothing listening
    let port = sportz_testkit::free_port();
    let mut config = SessionConfig::new(VideoSource::Http(format!("http://127.0.0.1:{port}/x.ts")));
    config.realtime = true;
    start(&bus, m, config).await;
    let failed = watch.status(30, SessionStatus::Failed).await;
    let Payload::Status(st) = failed.payload else {
        unreachable!()
    };
    let msg = st.message.unwrap();
    assert!(
        msg.contains("source lost after 3 reconnect attempts"),
        "{msg}"
    );
    let attempts = watch
        .statuses()
        .iter()
        .filter(|(s, _)| *s == SessionStatus::Reconnecting)
        .count();
    assert_eq!(attempts, 3);
}
