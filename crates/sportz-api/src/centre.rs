//! The match-centre registry for `/ws`: `matchId → sockets` plus each socket's own set of rooms,
//! so a disconnect removes the socket from every room it joined. Room-scoped broadcast is
//! O(subscribers of that room).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use sportz_contract::MatchId;

use crate::metrics::Metrics;
use crate::queue::{ClientQueue, Pushed, Text};

pub type ClientId = u64;

#[derive(Debug, Default)]
struct State {
    clients: HashMap<ClientId, Arc<ClientQueue>>,
    rooms: HashMap<MatchId, HashSet<ClientId>>,
    joined: HashMap<ClientId, HashSet<MatchId>>,
}

#[derive(Debug, Default)]
pub struct CentreHub {
    state: Mutex<State>,
}

impl CentreHub {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn register(&self, id: ClientId, q: Arc<ClientQueue>) {
        self.lock().clients.insert(id, q);
    }

    /// Removes the client from every room it joined.
    pub fn unregister(&self, id: ClientId) {
        let mut s = self.lock();
        s.clients.remove(&id);
        if let Some(rooms) = s.joined.remove(&id) {
            for m in rooms {
                if let Some(set) = s.rooms.get_mut(&m) {
                    set.remove(&id);
                    if set.is_empty() {
                        s.rooms.remove(&m);
                    }
                }
            }
        }
    }

    pub fn subscribe(&self, id: ClientId, m: MatchId) {
        let mut s = self.lock();
        s.rooms.entry(m).or_default().insert(id);
        s.joined.entry(id).or_default().insert(m);
    }

    pub fn unsubscribe(&self, id: ClientId, m: MatchId) {
        let mut s = self.lock();
        if let Some(set) = s.rooms.get_mut(&m) {
            set.remove(&id);
            if set.is_empty() {
                s.rooms.remove(&m);
            }
        }
        if let Some(j) = s.joined.get_mut(&id) {
            j.remove(&m);
        }
    }

    /// Sends to every client of this instance.
    pub fn broadcast_all(&self, msg: &Text, metrics: &Metrics) {
        let targets: Vec<Arc<ClientQueue>> = self.lock().clients.values().cloned().collect();
        for q in targets {
            metrics.record_push("ws", q.push(msg.clone()));
        }
    }

    /// Sends to the subscribers of one match on this instance.
    pub fn broadcast_room(&self, m: &MatchId, msg: &Text, metrics: &Metrics) {
        let targets: Vec<Arc<ClientQueue>> = {
            let s = self.lock();
            s.rooms
                .get(m)
                .map(|ids| {
                    ids.iter()
                        .filter_map(|i| s.clients.get(i).cloned())
                        .collect()
                })
                .unwrap_or_default()
        };
        for q in targets {
            metrics.record_push("ws", q.push(msg.clone()));
        }
    }

    /// Sends `msg` to every client of this instance and closes each with `code`: broadcasts were
    /// interrupted, so they reconnect and re-sync rather than miss them silently.
    pub fn close_all(&self, msg: &Text, code: u16, reason: &str) {
        let targets: Vec<Arc<ClientQueue>> = self.lock().clients.values().cloned().collect();
        for q in targets {
            q.push(msg.clone());
            q.close(code, reason);
        }
    }

    /// (clients, rooms) — for tests and metrics.
    pub fn sizes(&self) -> (usize, usize) {
        let s = self.lock();
        (s.clients.len(), s.rooms.len())
    }

    pub fn room_size(&self, m: &MatchId) -> usize {
        self.lock().rooms.get(m).map_or(0, HashSet::len)
    }
}

/// Whether a push overflowed (for the caller's logging).
#[must_use]
pub const fn overflowed(p: Pushed) -> bool {
    matches!(p, Pushed::Overflowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disconnect_cleans_every_room() {
        let hub = CentreHub::default();
        let (a, b) = (MatchId::generate(), MatchId::generate());
        hub.register(1, Arc::new(ClientQueue::new(4)));
        hub.register(2, Arc::new(ClientQueue::new(4)));
        hub.subscribe(1, a);
        hub.subscribe(1, b);
        hub.subscribe(2, a);
        assert_eq!(hub.room_size(&a), 2);
        hub.unregister(1);
        assert_eq!(hub.room_size(&a), 1);
        assert_eq!(hub.room_size(&b), 0);
        assert_eq!(hub.sizes(), (1, 1));
        hub.unsubscribe(2, a);
        assert_eq!(hub.sizes(), (1, 0));
    }
}
