//! Annotated live video for viewers (`GET /matches/{id}/video`): the frames the analysing
//! process renders (boxes, ids, ball trail — the overlay's renderer, in the app's composition
//! root) are encoded once as JPEG and fanned out to every viewer as MJPEG
//! (`multipart/x-mixed-replace`, which `<img>` plays in every browser).
//!
//! Latest wins: each viewer gets the newest picture when it is ready for one, so a slow viewer
//! skips pictures and never holds the others or the analysis back. Nothing is rendered for a
//! match nobody watches ([`VideoHub::analysed`] says whether anyone does).
//!
//! The video exists only in the process that analyses the match (the desktop app or
//! `sportz --headless` with its embedded worker); a match analysed by a worker elsewhere has
//! none here, and the route says so.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use sportz_contract::MatchId;
use tokio::sync::watch;

/// The multipart boundary between pictures.
pub const BOUNDARY: &str = "sportzframe";

/// The response's content type.
#[must_use]
pub fn content_type() -> String {
    format!("multipart/x-mixed-replace; boundary={BOUNDARY}")
}

/// A match counts as analysed here while its last frame is at most this old.
pub const ANALYSED_WITHIN: Duration = Duration::from_secs(5);

/// A stream that got no new picture for this long ends (the match stopped or moved; the page
/// asks again).
pub const IDLE_END: Duration = Duration::from_secs(10);

/// Whether this server renders video for viewers, and why not when it does not.
#[derive(Debug, Clone)]
pub enum ViewerVideo {
    /// Off, with the reason the route gives (e.g. "off by default on CPU-only machines").
    Off(String),
    On(Arc<VideoHub>),
}

impl Default for ViewerVideo {
    fn default() -> Self {
        Self::Off("this server does not render video for viewers".into())
    }
}

#[derive(Debug)]
struct Feed {
    pictures: watch::Sender<Option<Bytes>>,
    last_frame: Instant,
}

/// The latest annotated picture of each match analysed in this process, for its viewers.
#[derive(Debug, Default)]
pub struct VideoHub {
    feeds: Mutex<HashMap<MatchId, Feed>>,
    /// Why the renderer stopped, once it has (the route then answers 503 with it).
    stopped: Mutex<Option<String>>,
}

/// Feeds of matches not analysed for this long are forgotten once nobody watches them.
const FORGET_AFTER: Duration = Duration::from_secs(60);

impl VideoHub {
    fn feeds(&self) -> std::sync::MutexGuard<'_, HashMap<MatchId, Feed>> {
        self.feeds.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The analyser produced a frame of `m` (call it for every frame: it is cheap). Returns
    /// whether anyone watches `m`, i.e. whether this frame is worth rendering and
    /// [`Self::publish`]ing.
    pub fn analysed(&self, m: &MatchId) -> bool {
        let now = Instant::now();
        let mut feeds = self.feeds();
        if !feeds.contains_key(m) {
            feeds.retain(|_, f| {
                f.pictures.receiver_count() > 0 || now - f.last_frame < FORGET_AFTER
            });
        }
        let feed = feeds.entry(*m).or_insert_with(|| Feed {
            pictures: watch::channel(None).0,
            last_frame: now,
        });
        feed.last_frame = now;
        feed.pictures.receiver_count() > 0
    }

    /// Hands one encoded JPEG of `m` to its viewers (the multipart part is built once and
    /// shared). Returns how many viewers there are.
    pub fn publish(&self, m: &MatchId, jpeg: &[u8]) -> usize {
        let part = part(jpeg);
        let feeds = self.feeds();
        feeds.get(m).map_or(0, |f| {
            f.pictures.send_replace(Some(part));
            f.pictures.receiver_count()
        })
    }

    /// A viewer of `m`'s pictures, when `m` is analysed in this process (a frame within
    /// [`ANALYSED_WITHIN`]); its first picture is the latest one, when there is one.
    #[must_use]
    pub fn subscribe(&self, m: &MatchId) -> Option<watch::Receiver<Option<Bytes>>> {
        let feeds = self.feeds();
        let feed = feeds
            .get(m)
            .filter(|f| f.last_frame.elapsed() < ANALYSED_WITHIN)?;
        let mut rx = feed.pictures.subscribe();
        if rx.borrow().is_some() {
            rx.mark_changed();
        }
        Some(rx)
    }

    /// The renderer stopped for good (`why`, for viewers): current streams end, and the route
    /// answers 503 with it.
    pub fn stop(&self, why: String) {
        *self.stopped.lock().unwrap_or_else(PoisonError::into_inner) = Some(why);
        self.feeds().clear();
    }

    /// Why the renderer stopped, if it did.
    #[must_use]
    pub fn stopped(&self) -> Option<String> {
        self.stopped
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Viewers of every match.
    #[must_use]
    pub fn viewers(&self) -> usize {
        self.feeds()
            .values()
            .map(|f| f.pictures.receiver_count())
            .sum()
    }
}

/// One picture as a part of the multipart stream.
#[must_use]
pub fn part(jpeg: &[u8]) -> Bytes {
    let head = format!(
        "--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {}\r\n\r\n",
        jpeg.len()
    );
    let mut b = Vec::with_capacity(head.len() + jpeg.len() + 2);
    b.extend_from_slice(head.as_bytes());
    b.extend_from_slice(jpeg);
    b.extend_from_slice(b"\r\n");
    Bytes::from(b)
}

/// The pictures of one viewer as body chunks: each new picture when it is there, until none
/// came for `idle` (or the feed is gone). `on_end` runs when the stream ends or is dropped
/// (the client left).
pub fn stream(
    rx: watch::Receiver<Option<Bytes>>,
    idle: Duration,
    on_end: impl FnOnce() + Send + 'static,
) -> impl futures_util::Stream<Item = Result<Bytes, std::convert::Infallible>> + Send {
    struct Guard<F: FnOnce()>(Option<F>);
    impl<F: FnOnce()> Drop for Guard<F> {
        fn drop(&mut self) {
            if let Some(f) = self.0.take() {
                f();
            }
        }
    }
    futures_util::stream::unfold(
        (rx, Guard(Some(on_end))),
        move |(mut rx, guard)| async move {
            loop {
                match tokio::time::timeout(idle, rx.changed()).await {
                    Ok(Ok(())) => {
                        let picture = rx.borrow_and_update().clone();
                        if let Some(p) = picture {
                            return Some((Ok(p), (rx, guard)));
                        }
                    }
                    // no picture for `idle`, or the feed is gone
                    Ok(Err(_)) | Err(_) => return None,
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt as _;

    use super::*;

    #[test]
    fn a_part_is_a_jpeg_between_boundary_headers() {
        let p = part(b"\xff\xd8jpeg\xff\xd9");
        let text = String::from_utf8_lossy(&p);
        assert!(
            text.starts_with(
                "--sportzframe\r\nContent-Type: image/jpeg\r\nContent-Length: 8\r\n\r\n"
            ),
            "{text}"
        );
        assert!(p.ends_with(b"\xff\xd9\r\n"));
        assert_eq!(
            content_type(),
            "multipart/x-mixed-replace; boundary=sportzframe"
        );
    }

    #[test]
    fn only_a_match_analysed_here_and_lately_can_be_watched() {
        let hub = VideoHub::default();
        let (m, other) = (MatchId::generate(), MatchId::generate());
        assert!(hub.subscribe(&m).is_none(), "never analysed here");
        assert!(!hub.analysed(&m), "nobody watches yet");
        let rx = hub.subscribe(&m).expect("analysed a moment ago");
        assert!(hub.analysed(&m), "now someone does");
        assert!(!hub.analysed(&other), "not the other match");
        assert_eq!(hub.viewers(), 1);
        drop(rx);
        assert!(!hub.analysed(&m), "the viewer left");
        assert_eq!(hub.publish(&other, b"x"), 0);
    }

    #[tokio::test]
    async fn viewers_get_the_latest_picture_and_the_stream_ends_when_idle() {
        let hub = VideoHub::default();
        let m = MatchId::generate();
        hub.analysed(&m);
        assert_eq!(hub.publish(&m, b"first"), 0, "nobody watches yet");
        // a new viewer starts with the latest picture
        let ended = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = ended.clone();
        let mut s = Box::pin(stream(
            hub.subscribe(&m).unwrap(),
            Duration::from_millis(200),
            move || flag.store(true, std::sync::atomic::Ordering::SeqCst),
        ));
        let first = s.next().await.unwrap().unwrap();
        assert!(first.windows(5).any(|w| w == b"first"));
        // two pictures before the viewer reads: it gets the newer one only
        assert_eq!(hub.publish(&m, b"second"), 1);
        assert_eq!(hub.publish(&m, b"third"), 1);
        let next = s.next().await.unwrap().unwrap();
        assert!(next.windows(5).any(|w| w == b"third"), "latest wins");
        assert!(!ended.load(std::sync::atomic::Ordering::SeqCst));
        // nothing new for the idle time: the stream ends and says so
        assert!(s.next().await.is_none());
        assert!(ended.load(std::sync::atomic::Ordering::SeqCst));
    }

    #[tokio::test]
    async fn a_stopped_renderer_ends_the_streams_and_says_why() {
        let hub = VideoHub::default();
        let m = MatchId::generate();
        hub.analysed(&m);
        let mut s = Box::pin(stream(hub.subscribe(&m).unwrap(), IDLE_END, || {}));
        assert_eq!(hub.stopped(), None);
        hub.stop("the renderer failed".into());
        assert!(s.next().await.is_none(), "the stream ends at once");
        assert_eq!(hub.stopped().as_deref(), Some("the renderer failed"));
        assert!(!hub.analysed(&m), "nobody watches any more");
    }

    #[tokio::test]
    async fn a_viewer_who_leaves_is_counted_out() {
        let hub = VideoHub::default();
        let m = MatchId::generate();
        hub.analysed(&m);
        let left = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = left.clone();
        let s = stream(hub.subscribe(&m).unwrap(), IDLE_END, move || {
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        assert_eq!(hub.viewers(), 1);
        drop(s);
        assert!(left.load(std::sync::atomic::Ordering::SeqCst));
        assert_eq!(hub.viewers(), 0);
    }
}
