//! A WebSocket client's outgoing queue. Frames are latest-wins (a slow client skips frames);
//! everything else is reliable: when the reliable part overflows, the client is closed with
//! [`CLOSE_TOO_SLOW`] so it reconnects and re-syncs from the snapshot — never dropped silently.
//!
//! Messages are [`Text`]: one serialisation per broadcast, shared by reference count across
//! every socket it goes to (no copy per client). The writer takes everything queued at once
//! ([`Next::Send`] carries a batch) so a busy socket gets one write for many messages.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

/// Close code for a client whose queue overflowed: reconnect and re-sync from the snapshot.
pub const CLOSE_TOO_SLOW: u16 = 4008;

/// Close code telling a client to reconnect and re-sync (the bus came back).
pub const CLOSE_SERVICE_RESTART: u16 = 1012;

/// A message as it goes out: cheap to clone (a reference count), sent without a copy.
pub type Text = axum::extract::ws::Utf8Bytes;

/// What the writer should do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Everything queued, in order: reliable messages first, then the latest frame.
    Send(Vec<Text>),
    /// Close with this code and reason (after everything queued before it was sent).
    Close(u16, String),
}

#[derive(Debug, Default)]
struct State {
    frame: Option<Text>,
    reliable: VecDeque<Text>,
    close: Option<(u16, String)>,
}

#[derive(Debug)]
pub struct ClientQueue {
    state: Mutex<State>,
    notify: Notify,
    capacity: usize,
}

/// What a push did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pushed {
    Queued,
    /// A frame replaced an unsent frame (the older one is skipped).
    ReplacedFrame,
    /// The reliable queue was full: the client will be closed with [`CLOSE_TOO_SLOW`].
    Overflowed,
    /// The client is already closing.
    Closing,
}

impl ClientQueue {
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        Self {
            state: Mutex::new(State::default()),
            notify: Notify::new(),
            capacity: capacity.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues a latest-wins frame.
    pub fn push_frame(&self, msg: Text) -> Pushed {
        let out = {
            let mut s = self.lock();
            if s.close.is_some() {
                return Pushed::Closing;
            }
            if s.frame.replace(msg).is_some() {
                Pushed::ReplacedFrame
            } else {
                Pushed::Queued
            }
        };
        self.notify.notify_one();
        out
    }

    /// Queues a message that must not be lost.
    pub fn push(&self, msg: Text) -> Pushed {
        let out = {
            let mut s = self.lock();
            if s.close.is_some() {
                return Pushed::Closing;
            }
            if s.reliable.len() >= self.capacity {
                s.close = Some((
                    CLOSE_TOO_SLOW,
                    "client too slow: reconnect and re-sync from the snapshot".to_owned(),
                ));
                s.reliable.clear();
                s.frame = None;
                Pushed::Overflowed
            } else {
                s.reliable.push_back(msg);
                Pushed::Queued
            }
        };
        self.notify.notify_one();
        out
    }

    /// Asks the writer to close after what is queued.
    pub fn close(&self, code: u16, reason: &str) {
        {
            let mut s = self.lock();
            if s.close.is_none() {
                s.close = Some((code, reason.to_owned()));
            }
        }
        self.notify.notify_one();
    }

    /// The next thing to do; waits while there is nothing.
    pub async fn next(&self) -> Next {
        loop {
            let notified = self.notify.notified();
            {
                let mut s = self.lock();
                if !s.reliable.is_empty() || s.frame.is_some() {
                    let mut batch: Vec<Text> = s.reliable.drain(..).collect();
                    batch.extend(s.frame.take());
                    return Next::Send(batch);
                }
                if let Some((code, reason)) = s.close.clone() {
                    return Next::Close(code, reason);
                }
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> Text {
        Text::from(s)
    }

    #[tokio::test]
    async fn frames_are_latest_wins_and_reliable_messages_come_first() {
        let q = ClientQueue::new(4);
        assert_eq!(q.push_frame(m("f1")), Pushed::Queued);
        assert_eq!(q.push_frame(m("f2")), Pushed::ReplacedFrame);
        assert_eq!(q.push(m("e1")), Pushed::Queued);
        assert_eq!(q.push(m("e2")), Pushed::Queued);
        assert_eq!(q.next().await, Next::Send(vec![m("e1"), m("e2"), m("f2")]));
        assert_eq!(q.push_frame(m("f3")), Pushed::Queued);
        assert_eq!(q.next().await, Next::Send(vec![m("f3")]));
    }

    #[tokio::test]
    async fn overflow_closes_instead_of_dropping() {
        let q = ClientQueue::new(2);
        q.push(m("a"));
        q.push(m("b"));
        assert_eq!(q.push(m("c")), Pushed::Overflowed);
        assert_eq!(q.push(m("d")), Pushed::Closing);
        match q.next().await {
            Next::Close(code, reason) => {
                assert_eq!(code, CLOSE_TOO_SLOW);
                assert!(reason.contains("re-sync"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn close_comes_after_what_was_queued() {
        let q = ClientQueue::new(8);
        q.push(m("error"));
        q.close(1011, "bus unavailable");
        assert_eq!(q.next().await, Next::Send(vec![m("error")]));
        assert_eq!(q.next().await, Next::Close(1011, "bus unavailable".into()));
    }
}
