//! The publisher stage: every message of a session goes out through one [`Publisher`] with one
//! sequence (statuses, errors, frames, events, metrics), and [`publish_loop`] is the task that
//! takes analysed frames from the analyser thread and publishes them, their events and the
//! metrics once per second. A frame's `latency_ms` (read → published) is measured and set here,
//! and only here: analysers leave it at 0.
//!
//! Frames are live data: one the bus cannot take is gone. Events are kept: those the bus
//! refuses wait in an outbox (up to [`OUTBOX_CAP`], oldest dropped beyond with a warning) and go
//! out, in order, before anything else once the bus answers again; at the end of the session
//! the outbox is retried for up to [`OUTBOX_DRAIN`]. `events_emitted` counts published events.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use sportz_bus::ContractBus;
use sportz_contract::status::SessionStatus;
use sportz_contract::{Envelope, ErrorData, MatchId, Payload, Sequencer, SessionId, StatusData};
use tokio::sync::mpsc;

use super::analyser::Analysed;
use crate::analyzer::AnalyzerError;
use crate::metrics::SessionMetrics;

/// Events kept while the bus is down.
pub(crate) const OUTBOX_CAP: usize = 10_000;
/// How long the end of a session waits for the bus to take the outbox.
pub(crate) const OUTBOX_DRAIN: Duration = Duration::from_secs(30);

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
    /// Events not published yet, oldest first.
    outbox: tokio::sync::Mutex<VecDeque<Envelope>>,
}

impl Publisher {
    pub(crate) fn new(
        bus: ContractBus,
        match_id: MatchId,
        session_id: SessionId,
        worker_id: String,
    ) -> Self {
        Self {
            bus,
            match_id,
            session_id,
            worker_id,
            seq: Mutex::new(Sequencer::new()),
            last_warn: Mutex::new(None),
            outbox: tokio::sync::Mutex::new(VecDeque::new()),
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

    /// Publishes a status; terminal statuses are retried for up to a minute while the bus is
    /// down, so the API learns how the session ended.
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
                Duration::from_secs(60)
            } else {
                Duration::ZERO
            };
        loop {
            match self.bus.publish(&env).await {
                Ok(()) => return,
                Err(e) if Instant::now() < deadline => {
                    self.warn("a status", &e);
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
                Err(e) => return self.warn("a status", &e),
            }
        }
    }

    pub(crate) async fn error(&self, code: &str, message: &str) {
        let env = self.envelope(Payload::Error(ErrorData {
            code: code.to_owned(),
            message: message.to_owned(),
        }));
        if let Err(e) = self.bus.publish(&env).await {
            self.warn("an error", &e);
        }
    }

    async fn send(&self, payload: Payload, what: &str) {
        let env = self.envelope(payload);
        if let Err(e) = self.bus.publish(&env).await {
            self.warn(what, &e);
        }
    }

    /// Publishes the outbox, then `events`, stopping at the first refusal (what is left waits
    /// in the outbox, in order). Returns how many events went out.
    async fn send_events(&self, events: Vec<sportz_contract::EventData>) -> usize {
        let mut outbox = self.outbox.lock().await;
        outbox.extend(events.into_iter().map(|e| self.envelope(Payload::Event(e))));
        let mut sent = 0;
        while let Some(env) = outbox.front() {
            match self.bus.publish(env).await {
                Ok(()) => {
                    outbox.pop_front();
                    sent += 1;
                }
                Err(e) => {
                    self.warn("an event (kept to retry)", &e);
                    break;
                }
            }
        }
        if outbox.len() > OUTBOX_CAP {
            let drop = outbox.len() - OUTBOX_CAP;
            outbox.drain(..drop);
            tracing::warn!(match_id = %self.match_id, dropped = drop, "the bus has been down too long: oldest unpublished events dropped");
        }
        if sent > 0 && !outbox.is_empty() {
            tracing::info!(match_id = %self.match_id, waiting = outbox.len(), "events still waiting for the bus");
        }
        sent
    }

    /// At the end of a session: retries the outbox until it is empty or `OUTBOX_DRAIN` passed;
    /// returns (published, left unpublished).
    async fn drain_events(&self, metrics: &Mutex<SessionMetrics>) -> (usize, usize) {
        let deadline = Instant::now() + OUTBOX_DRAIN;
        let mut published = 0;
        loop {
            let n = self.send_events(Vec::new()).await;
            published += n;
            metrics
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .events_published(n);
            let left = self.outbox.lock().await.len();
            if left == 0 || Instant::now() >= deadline {
                if left > 0 {
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
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.tick().await;
    loop {
        tokio::select! {
            item = rx.recv() => match item {
                None => {
                    publisher.drain_events(&metrics).await;
                    // the session's final figures
                    let mut m = metrics.lock().unwrap_or_else(PoisonError::into_inner).snapshot(Instant::now());
                    m.gpu = gpu.current();
                    publisher.send(Payload::Metrics(m), "metrics").await;
                    return None;
                }
                Some(Err(e)) => return Some(e),
                Some(Ok(done)) => publish_analysed(&publisher, &metrics, done).await,
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
    Analysed {
        mut analysis,
        read_instant,
    }: Analysed,
) {
    let latency_ms = read_instant.elapsed().as_secs_f64() * 1000.0;
    analysis.frame.latency_ms = latency_ms;
    publisher
        .send(Payload::Frame(Box::new(analysis.frame)), "a frame")
        .await;
    let published = publisher.send_events(analysis.events).await;
    let mut m = metrics.lock().unwrap_or_else(PoisonError::into_inner);
    m.frame_done(Instant::now(), analysis.detect_ms, latency_ms);
    m.events_published(published);
    m.camera_missing = analysis.camera_missing;
}
