//! A WebSocket client's outgoing queue. Frames are latest-wins (a slow client skips frames);
//! everything else is reliable: when the reliable part overflows, the client is closed with
//! [`CLOSE_TOO_SLOW`] so it reconnects and re-syncs from the snapshot — never dropped silently.
//!
//! Messages are [`Text`]: one serialisation per broadcast, shared by reference count across
//! every socket it goes to (no copy per client). The writer takes everything queued at once
//! ([`Next::Send`] carries a batch) so a busy socket gets one write for many messages.
//!
//! An event goes to a client once: the snapshot, the relay and the late catch-up (see
//! `crate::catch_up`) can each hold the same event, and the queue sends each event id only the first
//! time (it remembers the last [`REMEMBERED_EVENTS`] it sent).

use std::collections::{HashSet, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};

use sportz_contract::EventId;
use tokio::sync::Notify;

/// How many sent event ids a client's queue remembers to send each event once (a match has a few
/// hundred events; past this the oldest ids are forgotten).
pub const REMEMBERED_EVENTS: usize = 4096;

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
    /// Messages in order; an event carries its id.
    reliable: VecDeque<(Text, Option<EventId>)>,
    close: Option<(u16, String)>,
    sent: SentEvents,
}

/// The event ids a client was sent, oldest forgotten first.
#[derive(Debug, Default)]
struct SentEvents {
    ids: HashSet<EventId>,
    order: VecDeque<EventId>,
}

impl SentEvents {
    /// Records an id; false when it was sent already.
    fn first_time(&mut self, id: EventId) -> bool {
        if !self.ids.insert(id) {
            return false;
        }
        self.order.push_back(id);
        if self.order.len() > REMEMBERED_EVENTS
            && let Some(old) = self.order.pop_front()
        {
            self.ids.remove(&old);
        }
        true
    }
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
    /// An event this client was sent already: not queued again.
    AlreadySent,
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
        self.push_reliable(msg, None)
    }

    /// Queues an event message: reliable, and sent only if this client was not sent that event
    /// already.
    pub fn push_event(&self, id: EventId, msg: Text) -> Pushed {
        self.push_reliable(msg, Some(id))
    }

    /// Notes events this client got another way (the snapshot), so they are not sent again.
    pub fn mark_sent(&self, ids: impl IntoIterator<Item = EventId>) {
        let mut s = self.lock();
        for id in ids {
            s.sent.first_time(id);
        }
    }

    fn push_reliable(&self, msg: Text, event: Option<EventId>) -> Pushed {
        let out = {
            let mut s = self.lock();
            if s.close.is_some() {
                return Pushed::Closing;
            }
            if event.is_some_and(|id| s.sent.ids.contains(&id)) {
                return Pushed::AlreadySent;
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
                s.reliable.push_back((msg, event));
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
                let mut guard = self.lock();
                let s = &mut *guard;
                let mut batch: Vec<Text> = Vec::with_capacity(s.reliable.len() + 1);
                for (msg, event) in s.reliable.drain(..) {
                    if event.is_none_or(|id| s.sent.first_time(id)) {
                        batch.push(msg);
                    }
                }
                batch.extend(s.frame.take());
                if !batch.is_empty() {
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
    async fn an_event_is_sent_once_however_often_it_is_queued() {
        let q = ClientQueue::new(8);
        let (a, b, c) = (
            EventId::generate(),
            EventId::generate(),
            EventId::generate(),
        );
        q.mark_sent([a]);
        assert_eq!(q.push_event(a, m("a again")), Pushed::AlreadySent);
        q.push_event(b, m("b"));
        q.push(m("status"));
        q.push_event(b, m("b again"));
        assert_eq!(q.next().await, Next::Send(vec![m("b"), m("status")]));
        assert_eq!(q.push_event(b, m("b later")), Pushed::AlreadySent);
        q.push_event(c, m("c"));
        assert_eq!(q.next().await, Next::Send(vec![m("c")]));
        // only duplicates queued: nothing to send, the writer keeps waiting
        q.push_event(c, m("c again"));
        let waited = tokio::time::timeout(std::time::Duration::from_millis(50), q.next()).await;
        assert!(
            waited.is_err(),
            "a batch of duplicates is not a send: {waited:?}"
        );
    }

    #[test]
    fn the_oldest_sent_ids_are_forgotten_past_the_limit() {
        let mut sent = SentEvents::default();
        let ids: Vec<EventId> = (0..=REMEMBERED_EVENTS)
            .map(|_| EventId::generate())
            .collect();
        assert!(ids.iter().all(|id| sent.first_time(*id)));
        assert_eq!(sent.ids.len(), REMEMBERED_EVENTS);
        assert!(sent.first_time(ids[0]), "the oldest was forgotten");
        assert!(
            !sent.first_time(ids[REMEMBERED_EVENTS]),
            "the newest is remembered"
        );
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
