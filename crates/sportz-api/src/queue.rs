//! A WebSocket client's outgoing queue. Frames are latest-wins (a slow client skips frames);
//! everything else is reliable: when the reliable part overflows, the client is closed with
//! [`CLOSE_TOO_SLOW`] so it reconnects and re-syncs from the snapshot — never dropped silently.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

/// Close code for a client whose queue overflowed: reconnect and re-sync from the snapshot.
pub const CLOSE_TOO_SLOW: u16 = 4008;

/// What the writer should do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    Send(Arc<str>),
    /// Close with this code and reason (after everything queued before it was sent).
    Close(u16, String),
}

#[derive(Debug, Default)]
struct State {
    frame: Option<Arc<str>>,
    reliable: VecDeque<Arc<str>>,
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
    pub fn push_frame(&self, msg: Arc<str>) -> Pushed {
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
    pub fn push(&self, msg: Arc<str>) -> Pushed {
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
                if let Some(m) = s.reliable.pop_front() {
                    return Next::Send(m);
                }
                if let Some(f) = s.frame.take() {
                    return Next::Send(f);
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

    fn m(s: &str) -> Arc<str> {
        Arc::from(s)
    }

    #[tokio::test]
    async fn frames_are_latest_wins_and_reliable_messages_come_first() {
        let q = ClientQueue::new(4);
        assert_eq!(q.push_frame(m("f1")), Pushed::Queued);
        assert_eq!(q.push_frame(m("f2")), Pushed::ReplacedFrame);
        assert_eq!(q.push(m("e1")), Pushed::Queued);
        assert_eq!(q.next().await, Next::Send(m("e1")));
        assert_eq!(q.next().await, Next::Send(m("f2")));
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
        assert_eq!(q.next().await, Next::Send(m("error")));
        assert_eq!(q.next().await, Next::Close(1011, "bus unavailable".into()));
    }
}
