//! The publisher stage: every message of a session goes out through one [`Publisher`] with one
//! sequence (statuses, errors, frames, events, metrics), and [`publish_loop`] is the task that
//! takes analysed frames from the analyser thread and publishes them, their events and the
//! metrics once per second. A frame's `latency_ms` (read → published) is measured and set here,
//! and only here: analysers leave it at 0.
//!
//! Frames are live data: one the bus cannot take is gone. Events are kept: those the bus
//! refuses wait in an outbox (up to the settings' `outbox_cap`, oldest dropped beyond: said in
//! the log, in an `events_dropped` error message and in `metrics.events_dropped`) and go out, in order, before anything else once the bus answers again; at the end of the
//! session the outbox is retried for up to the settings' `outbox_drain`. With a spool directory
//! the outbox is also on disk ([`super::spool`]), so what is left when the session ends — or
//! when the worker dies — is published by the next start. `events_emitted` counts published
//! events.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use sportz_bus::ContractBus;
use sportz_contract::status::SessionStatus;
use sportz_contract::{Envelope, ErrorData, MatchId, Payload, Sequencer, SessionId, StatusData};
use tokio::sync::mpsc;

use super::analyser::Analysed;
use super::ledger::Ledger;
use super::spool::Spool;
use crate::analyzer::AnalyzerError;
use crate::metrics::SessionMetrics;

/// How often a session publishes its metrics (the contract: once a second).
pub(crate) const METRICS_EVERY: Duration = Duration::from_secs(1);

/// After a failed publish, how long the bus is taken to be down before it is tried again.
pub(crate) const BUS_RETRY: Duration = Duration::from_secs(1);

/// What one [`Publisher::send_events`] did.
#[derive(Debug, Clone, Copy)]
struct Sent {
    /// Events the bus took.
    events: usize,
    /// Events dropped because the outbox was full.
    dropped: usize,
}

impl Sent {
    fn record(self, metrics: &Mutex<SessionMetrics>) {
        let mut m = metrics.lock().unwrap_or_else(PoisonError::into_inner);
        m.events_published(self.events);
        m.events_lost(self.dropped);
    }
}

/// Publishes the session's messages with one sequence.
#[derive(Debug)]
pub(crate) struct Publisher {
    bus: ContractBus,
    match_id: MatchId,
    session_id: SessionId,
    worker_id: String,
    seq: Mutex<Sequencer>,
    /// Rate-limits "bus unavailable" warnings.
    last_warn: Mutex<Option<Instant>>,
    /// When a publish last failed: for [`BUS_RETRY`] after it, frames and metrics are not
    /// offered to the bus and events go straight to the outbox, so a bus that is down (each
    /// attempt waits for its connect or response timeout) does not stall the pipeline.
    failed_at: Mutex<Option<Instant>>,
    /// Events not published yet, oldest first (and their copy on disk).
    outbox: tokio::sync::Mutex<Outbox>,
    /// How long the end of the session retries the outbox.
    drain: Duration,
    /// The most events the outbox keeps.
    cap: usize,
}

/// The unpublished events, in memory and (with a spool directory) on disk.
#[derive(Debug, Default)]
struct Outbox {
    queue: VecDeque<Envelope>,
    spool: Option<Spool>,
    /// The count of published events on disk (`super::ledger`).
    ledger: Option<Ledger>,
    /// A spool write failed (logged once).
    spool_failed: bool,
}

impl Outbox {
    fn spool_io(&mut self, match_id: MatchId, r: impl FnOnce(&mut Spool) -> std::io::Result<()>) {
        let Some(spool) = self.spool.as_mut() else {
            return;
        };
        match r(spool) {
            Ok(()) => self.spool_failed = false,
            Err(e) if !self.spool_failed => {
                self.spool_failed = true;
                tracing::error!(%match_id, "cannot write the events spool (events stay in memory only): {e}");
            }
            Err(_) => {}
        }
    }
}

impl Publisher {
    /// `spool_dir`: where unpublished events are kept on disk (`None`: in memory only);
    /// `ledger_dir`: where the count of published events is kept (`None`: not kept);
    /// `(cap, drain)`: the most events kept, and how long the end of the session retries them.
    pub(crate) fn new(
        bus: ContractBus,
        (match_id, session_id): (MatchId, SessionId),
        worker_id: String,
        (spool_dir, ledger_dir): (Option<&std::path::Path>, Option<&std::path::Path>),
        (cap, drain): (usize, Duration),
    ) -> Self {
        Self {
            bus,
            match_id,
            session_id,
            worker_id,
            seq: Mutex::new(Sequencer::new()),
            last_warn: Mutex::new(None),
            failed_at: Mutex::new(None),
            outbox: tokio::sync::Mutex::new(Outbox {
                spool: spool_dir.map(|d| Spool::new(d, match_id, session_id)),
                ledger: ledger_dir.map(|d| Ledger::new(d, match_id, session_id)),
                ..Outbox::default()
            }),
            drain,
            cap: cap.max(1),
        }
    }

    fn envelope(&self, payload: Payload) -> Envelope {
        self.seq
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .envelope(
                self.match_id,
                self.session_id,
                sportz_contract::unix_now(),
                payload,
            )
    }

    /// Whether a publish failed less than [`BUS_RETRY`] ago.
    fn bus_down(&self) -> bool {
        self.failed_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some_and(|t| t.elapsed() < BUS_RETRY)
    }

    /// Publishes one envelope, remembering whether the bus took it.
    async fn publish(&self, env: &Envelope) -> Result<(), sportz_bus::BusError> {
        let r = self.bus.publish(env).await;
        *self
            .failed_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = r.is_err().then(Instant::now);
        r
    }

    fn warn(&self, what: &str, e: &sportz_bus::BusError) {
        let mut last = self
            .last_warn
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if last.is_none_or(|t| t.elapsed() > Duration::from_secs(5)) {
            *last = Some(Instant::now());
            tracing::warn!(match_id = %self.match_id, "cannot publish {what}: {e}");
        }
    }

    /// Publishes a status, in order with the events: when events wait for the bus, or the bus
    /// was just refusing, it joins them in the outbox (and the spool). A terminal status is
    /// retried for the drain time first (the events ahead of it go out first), so the API learns
    /// how the session ended; one the bus still refuses waits in the spool for the next start.
    pub(crate) async fn status(&self, status: SessionStatus, message: Option<String>) {
        tracing::info!(match_id = %self.match_id, session_id = %self.session_id, status = status.as_str(), message = message.as_deref().unwrap_or(""), "session status");
        let env = self.envelope(Payload::Status(StatusData {
            status: Some(status),
            match_status: None,
            message,
            worker_id: Some(self.worker_id.clone()),
        }));
        let deadline = Instant::now()
            + if status.is_terminal() {
                self.drain
            } else {
                Duration::ZERO
            };
        loop {
            {
                let mut outbox = self.outbox.lock().await;
                if outbox.queue.is_empty() && !self.bus_down() {
                    match self.publish(&env).await {
                        Ok(()) => return,
                        Err(e) => self.warn("a status (kept to retry)", &e),
                    }
                }
                if Instant::now() >= deadline {
                    outbox.queue.push_back(env.clone());
                    outbox.spool_io(self.match_id, |s| s.append([&env]));
                    return;
                }
            }
            // what waits ahead of it goes first
            self.send_events(Vec::new()).await;
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    pub(crate) async fn error(&self, code: &str, message: &str) {
        let env = self.envelope(Payload::Error(ErrorData {
            code: code.to_owned(),
            message: message.to_owned(),
        }));
        if let Err(e) = self.publish(&env).await {
            self.warn("an error", &e);
        }
    }

    /// Live data (frames, metrics): sent when the bus is believed up, else gone.
    async fn send(&self, payload: Payload, what: &str) {
        let env = self.envelope(payload);
        if self.bus_down() {
            return;
        }
        if let Err(e) = self.publish(&env).await {
            self.warn(what, &e);
        }
    }

    /// Publishes the outbox, then `events`, stopping at the first refusal (what is left waits
    /// in the outbox, in order). Returns how many events went out (statuses that waited with
    /// them are not counted).
    async fn send_events(&self, events: Vec<sportz_contract::EventData>) -> Sent {
        let mut guard = self.outbox.lock().await;
        let outbox = &mut *guard;
        let held = outbox.queue.len(); // already on disk, when spooling
        outbox
            .queue
            .extend(events.into_iter().map(|e| self.envelope(Payload::Event(e))));
        // published envelopes, and of those events (statuses may wait in the outbox too)
        let (mut sent, mut events_sent) = (0, Vec::new());
        // while the bus is known to be down the new events only join the outbox
        let try_now = !self.bus_down();
        while let Some(env) = outbox.queue.front().filter(|_| try_now) {
            match self.publish(env).await {
                Ok(()) => {
                    if let Payload::Event(e) = &env.payload {
                        events_sent.push(e.event_id);
                    }
                    outbox.queue.pop_front();
                    sent += 1;
                }
                Err(e) => {
                    self.warn("an event (kept to retry)", &e);
                    break;
                }
            }
        }
        if let Some(l) = outbox.ledger.as_mut() {
            l.published(&events_sent);
        }
        let mut dropped = 0;
        if outbox.queue.len() > self.cap {
            dropped = outbox.queue.len() - self.cap;
            outbox.queue.drain(..dropped);
            tracing::error!(match_id = %self.match_id, dropped, "the bus has been down too long: the oldest unpublished events are dropped");
            // said on the match's channel too, once the bus takes it (after what waits)
            outbox.queue.push_back(self.envelope(Payload::Error(ErrorData {
                code: ErrorData::EVENTS_DROPPED.to_owned(),
                message: format!(
                    "the bus was down too long: the {dropped} oldest unpublished events were dropped (the outbox holds {})",
                    self.cap
                ),
            })));
        }
        // keep the file equal to the queue: append the new ones while nothing went out, else
        // write what is left (once, when the bus comes back); nothing when nothing waits
        let m = self.match_id;
        if outbox.queue.is_empty() {
            if held > 0 {
                outbox.spool_io(m, Spool::clear);
            }
        } else if sent == 0 && dropped == 0 {
            if outbox.queue.len() > held {
                let new: Vec<Envelope> = outbox.queue.iter().skip(held).cloned().collect();
                outbox.spool_io(m, |s| s.append(new.iter()));
            }
        } else {
            let queue = outbox.queue.clone();
            outbox.spool_io(m, |s| s.rewrite(&queue));
        }
        if sent > 0 && !outbox.queue.is_empty() {
            tracing::info!(match_id = %self.match_id, waiting = outbox.queue.len(), "events still waiting for the bus");
        }
        Sent {
            events: events_sent.len(),
            dropped,
        }
    }

    /// At the end of a session: retries the outbox until it is empty or the drain time passed;
    /// returns (published, left unpublished).
    async fn drain_events(&self, metrics: &Mutex<SessionMetrics>) -> (usize, usize) {
        let deadline = Instant::now() + self.drain;
        let mut published = 0;
        loop {
            let sent = self.send_events(Vec::new()).await;
            published += sent.events;
            sent.record(metrics);
            let (left, spooled) = {
                let o = self.outbox.lock().await;
                (o.queue.len(), o.spool.is_some() && !o.spool_failed)
            };
            if left == 0 || Instant::now() >= deadline {
                if left > 0 && spooled {
                    tracing::warn!(match_id = %self.match_id, waiting = left, "the bus did not come back: events kept in the spool, published at the worker's next start");
                } else if left > 0 {
                    tracing::error!(match_id = %self.match_id, lost = left, "the bus did not come back: events lost");
                }
                return (published, left);
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

/// Publishes analysed frames, their events and the metrics once per second. Ends with the
/// analyser's error, or `None` once the analyser is done.
pub(crate) async fn publish_loop(
    publisher: Arc<Publisher>,
    mut rx: mpsc::Receiver<Result<Analysed, AnalyzerError>>,
    metrics: Arc<Mutex<SessionMetrics>>,
    gpu: crate::gpu::GpuProbe,
) -> Option<AnalyzerError> {
    let mut tick = tokio::time::interval(METRICS_EVERY);
    tick.tick().await;
    loop {
        tokio::select! {
            item = rx.recv() => match item {
                None => {
                    publisher.drain_events(&metrics).await;
                    // the session's final figures
                    let mut m = metrics.lock().unwrap_or_else(PoisonError::into_inner).snapshot(Instant::now());
                    m.gpu = gpu.current();
                    tracing::info!(match_id = %publisher.match_id, session_id = %publisher.session_id, events_published = m.events_emitted, events_dropped = m.events_dropped, frames = m.frames_processed, "the session's final figures");
                    publisher.send(Payload::Metrics(m), "metrics").await;
                    return None;
                }
                Some(Err(e)) => return Some(e),
                Some(Ok(Analysed::Frame { analysis, read_instant })) => publish_analysed(&publisher, &metrics, *analysis, read_instant).await,
                Some(Ok(Analysed::End(events))) => publisher.send_events(events).await.record(&metrics),
            },
            _ = tick.tick() => {
                let mut m = metrics.lock().unwrap_or_else(PoisonError::into_inner).snapshot(Instant::now());
                m.gpu = gpu.current();
                publisher.send(Payload::Metrics(m), "metrics").await;
            }
        }
    }
}

/// Publishes one analysed frame and its events. Its `latency_ms` is set here, once: from the
/// moment the frame was read to the moment it is published; the metrics get the same figure.
async fn publish_analysed(
    publisher: &Publisher,
    metrics: &Mutex<SessionMetrics>,
    mut analysis: crate::analyzer::Analysis,
    read_instant: std::time::Instant,
) {
    let latency_ms = read_instant.elapsed().as_secs_f64() * 1000.0;
    analysis.frame.latency_ms = latency_ms;
    publisher
        .send(Payload::Frame(Box::new(analysis.frame)), "a frame")
        .await;
    let sent = publisher.send_events(analysis.events).await;
    sent.record(metrics);
    let mut m = metrics.lock().unwrap_or_else(PoisonError::into_inner);
    m.frame_done(Instant::now(), analysis.detect_ms, latency_ms);
    m.camera_missing = analysis.camera_missing;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_go_out_once_a_second() {
        assert_eq!(METRICS_EVERY, Duration::from_secs(1));
    }
}
