//! The bounded per-subscriber buffer: pushing never blocks; when full, the oldest message is
//! dropped and counted, and the reader learns how many it lost ([`SubEvent::Lagged`]).

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::sync::Notify;

use crate::SubEvent;

#[derive(Debug)]
pub(crate) struct SubQueue {
    state: Mutex<State>,
    notify: Notify,
    capacity: usize,
}

#[derive(Debug)]
struct State {
    items: VecDeque<SubEvent>,
    dropped: u64,
    closed: bool,
}

impl SubQueue {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            state: Mutex::new(State {
                items: VecDeque::with_capacity(capacity.min(1024)),
                dropped: 0,
                closed: false,
            }),
            notify: Notify::new(),
            capacity: capacity.max(1),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Adds an event; returns false when the subscription is closed.
    pub(crate) fn push(&self, ev: SubEvent) -> bool {
        {
            let mut s = self.lock();
            if s.closed {
                return false;
            }
            if s.items.len() >= self.capacity {
                // drop the oldest plain message; connection notices are never dropped
                if let Some(i) = s
                    .items
                    .iter()
                    .position(|e| matches!(e, SubEvent::Message(_)))
                {
                    s.items.remove(i);
                    s.dropped += 1;
                } else {
                    s.items.pop_front();
                }
            }
            s.items.push_back(ev);
        }
        self.notify.notify_one();
        true
    }

    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.notify.notify_waiters();
        self.notify.notify_one();
    }

    pub(crate) async fn pop(&self) -> Option<SubEvent> {
        loop {
            let notified = self.notify.notified();
            {
                let mut s = self.lock();
                if s.dropped > 0 {
                    let n = std::mem::take(&mut s.dropped);
                    return Some(SubEvent::Lagged(n));
                }
                if let Some(ev) = s.items.pop_front() {
                    return Some(ev);
                }
                if s.closed {
                    return None;
                }
            }
            notified.await;
        }
    }
}
