//! One processing session: status lifecycle, source with stall detection and reconnects,
//! the control loop, the lease, and the decode → analyse → publish pipeline.
//!
//! ```text
//! ffmpeg reader thread ──mpsc──▶ session loop ──latest-wins slot──▶ analyser thread
//!                                   (control, lease,                      │
//!                                    stall, reconnect)                    ▼
//!                                                      publisher task (frames, events, metrics)
//! ```
//! In live mode a frame that arrives while the analyser is busy replaces the waiting one and is
//! counted in `dropped_frames`: frames are dropped before inference, never queued without bound.
//! Offline (a file read as fast as possible) nothing is dropped: the reader waits.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use sportz_bus::ContractBus;
use sportz_contract::status::{DesiredState, SessionStatus};
use sportz_contract::worker::{SessionConfig, VideoSource};
use sportz_contract::{
    Envelope, ErrorData, Lease, MatchId, Payload, Sequencer, SessionId, StatusData,
};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use crate::WorkerSettings;
use crate::analyzer::{Analysis, Analyzer};
use crate::metrics::SessionMetrics;
use crate::source::{self, Decoder, Probe, SourceEvent, VideoFrame};

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
}

impl Publisher {
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
}

/// What the control key currently asks of this session.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Wanted {
    Run,
    Pause,
    Stop(String),
}

/// Watches `match:{id}:control`. A missing key (e.g. Redis restarted empty) is no evidence:
/// the session keeps its last instruction.
fn watch_control(
    bus: ContractBus,
    m: MatchId,
    session: SessionId,
    every: Duration,
    cancel: CancellationToken,
) -> watch::Receiver<Wanted> {
    let (tx, rx) = watch::channel(Wanted::Run);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        loop {
            tokio::select! {
                () = cancel.cancelled() => return,
                _ = tick.tick() => {}
            }
            let wanted = match bus.control(&m).await {
                Ok(Some(c)) if c.session_id != session => {
                    Wanted::Stop(format!("superseded by session {}", c.session_id))
                }
                Ok(Some(c)) => match c.state {
                    DesiredState::Running => Wanted::Run,
                    DesiredState::Paused => Wanted::Pause,
                    DesiredState::Stopped => Wanted::Stop("stop requested".to_owned()),
                },
                Ok(None) | Err(_) => continue,
            };
            if *tx.borrow() != wanted && tx.send(wanted).is_err() {
                return;
            }
        }
    });
    rx
}

/// Refreshes the lease every second. Resolves with the reason when the lease is lost to
/// another worker; bus outages are waited out (the lease is re-taken when the key is gone).
async fn keep_lease(bus: ContractBus, m: MatchId, lease: Lease, every: Duration) -> String {
    let mut tick = tokio::time::interval(every);
    loop {
        tick.tick().await;
        match bus.refresh_lease(&m, &lease).await {
            Ok(true) | Err(_) => continue,
            Ok(false) => {}
        }
        // not ours: re-take it if nobody holds it (e.g. it expired during a bus outage)
        match bus.acquire_lease(&m, &lease).await {
            Ok(true) | Err(_) => {}
            Ok(false) => {
                let holder = bus.lease(&m).await.ok().flatten().map_or_else(
                    || "another worker".to_owned(),
                    |l| format!("worker {}", l.worker_id),
                );
                return format!("lease lost to {holder}");
            }
        }
    }
}

/// A single-frame slot between the session loop and the analyser thread.
#[derive(Debug, Default)]
struct Slot {
    state: Mutex<(Option<VideoFrame>, bool)>,
    changed: Condvar,
}

impl Slot {
    /// Puts a frame; returns true when it replaced one the analyser had not taken (a drop).
    fn put(&self, f: VideoFrame) -> bool {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let dropped = s.0.replace(f).is_some();
        self.changed.notify_all();
        dropped
    }

    /// Waits until the slot is empty (offline mode: no drops).
    fn wait_empty(&self) {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        while s.0.is_some() && !s.1 {
            s = self.changed.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn take(&self) -> Option<VideoFrame> {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(f) = s.0.take() {
                self.changed.notify_all();
                return Some(f);
            }
            if s.1 {
                return None;
            }
            s = self.changed.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn close(&self) {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).1 = true;
        self.changed.notify_all();
    }
}

type Analysed = Result<(Analysis, Instant), String>;

fn spawn_analyser(mut analyzer: Box<dyn Analyzer>, slot: Arc<Slot>, tx: mpsc::Sender<Analysed>) {
    let spawned = std::thread::Builder::new()
        .name("analyser".into())
        .spawn(move || {
            while let Some(frame) = slot.take() {
                let out = analyzer.analyze(&frame).map(|a| (a, frame.read_instant));
                let failed = out.is_err();
                if tx.blocking_send(out).is_err() || failed {
                    break;
                }
            }
            slot.close();
        });
    if let Err(e) = spawned {
        tracing::error!("cannot start the analyser thread: {e}");
    }
}

/// Publishes analysed frames, their events and the metrics once per second.
async fn publish_loop(
    publisher: Arc<Publisher>,
    mut rx: mpsc::Receiver<Analysed>,
    metrics: Arc<Mutex<SessionMetrics>>,
    gpu: crate::gpu::GpuProbe,
) -> Option<String> {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.tick().await;
    loop {
        tokio::select! {
            item = rx.recv() => match item {
                None => {
                    // the session's final figures
                    let mut m = metrics.lock().unwrap_or_else(PoisonError::into_inner).snapshot(Instant::now());
                    m.gpu = gpu.current();
                    publisher.send(Payload::Metrics(m), "metrics").await;
                    return None;
                }
                Some(Err(e)) => return Some(e),
                Some(Ok((mut a, read_at))) => {
                    let latency_ms = read_at.elapsed().as_secs_f64() * 1000.0;
                    a.frame.latency_ms = latency_ms;
                    let n_events = a.events.len();
                    publisher.send(Payload::Frame(Box::new(a.frame)), "a frame").await;
                    for e in a.events {
                        publisher.send(Payload::Event(e), "an event").await;
                    }
                    metrics
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .frame_done(Instant::now(), a.detect_ms, latency_ms, n_events);
                }
            },
            _ = tick.tick() => {
                let mut m = metrics.lock().unwrap_or_else(PoisonError::into_inner).snapshot(Instant::now());
                m.gpu = gpu.current();
                publisher.send(Payload::Metrics(m), "metrics").await;
            }
        }
    }
}

/// Everything a session needs.
#[derive(Debug, Clone)]
pub(crate) struct SessionCtx {
    pub bus: ContractBus,
    pub match_id: MatchId,
    pub session_id: SessionId,
    pub config: SessionConfig,
    pub worker_id: String,
    pub settings: Arc<WorkerSettings>,
    pub shutdown: CancellationToken,
}

/// How the source loop ended.
enum Ended {
    Completed,
    Stopped(String),
    Failed { code: &'static str, message: String },
}

/// Runs a session to its end. `started` fires once `starting` is published.
pub(crate) async fn run(ctx: SessionCtx, started: tokio::sync::oneshot::Sender<()>) {
    let publisher = Arc::new(Publisher {
        bus: ctx.bus.clone(),
        match_id: ctx.match_id,
        session_id: ctx.session_id,
        worker_id: ctx.worker_id.clone(),
        seq: Mutex::new(Sequencer::new()),
        last_warn: Mutex::new(None),
    });
    publisher.status(SessionStatus::Starting, None).await;
    let _ = started.send(());

    let cancel = ctx.shutdown.child_token();
    let lease = Lease {
        worker_id: ctx.worker_id.clone(),
        session_id: ctx.session_id,
    };
    let ended = run_pipeline(&ctx, &publisher, &cancel, lease.clone()).await;
    cancel.cancel();
    match ended {
        Ended::Completed => publisher.status(SessionStatus::Completed, None).await,
        Ended::Stopped(why) => publisher.status(SessionStatus::Stopped, Some(why)).await,
        Ended::Failed { code, message } => {
            publisher.error(code, &message).await;
            publisher.status(SessionStatus::Failed, Some(message)).await;
        }
    }
    if let Err(e) = ctx.bus.release_lease(&ctx.match_id, &lease).await {
        tracing::warn!(match_id = %ctx.match_id, "cannot release the lease (it expires in 8 s): {e}");
    }
}

async fn run_pipeline(
    ctx: &SessionCtx,
    publisher: &Arc<Publisher>,
    cancel: &CancellationToken,
    lease: Lease,
) -> Ended {
    let s = &ctx.settings;
    if let Err(e) = crate::guard::check(&ctx.config.source, s.source_policy).await {
        return Ended::Failed {
            code: ErrorData::SOURCE_FAILED,
            message: e.to_string(),
        };
    }
    let analyzer = match s.analyzers.create(&ctx.match_id, &ctx.config) {
        Ok(a) => a,
        Err(e) => {
            return Ended::Failed {
                code: ErrorData::MODEL_FAILED,
                message: e,
            };
        }
    };
    let source = &ctx.config.source;

    // pipeline stages
    let slot = Arc::new(Slot::default());
    let (res_tx, res_rx) = mpsc::channel(64);
    spawn_analyser(analyzer, slot.clone(), res_tx);
    let metrics = Arc::new(Mutex::new(SessionMetrics::new(s.analyzers.device())));
    let mut publishing = tokio::spawn(publish_loop(
        publisher.clone(),
        res_rx,
        metrics.clone(),
        s.gpu.clone(),
    ));

    let mut control = watch_control(
        ctx.bus.clone(),
        ctx.match_id,
        ctx.session_id,
        s.control_poll,
        cancel.clone(),
    );
    let lease_lost = keep_lease(ctx.bus.clone(), ctx.match_id, lease, s.lease_refresh);
    tokio::pin!(lease_lost);

    let offline = !ctx.config.realtime && matches!(source, VideoSource::File(_));
    let mut probe: Option<Probe> = None;
    let mut position = 0.0_f64;
    let mut attempts = 0u32;
    let mut processing = false;
    let mut last_detail = String::new();

    let ended = 'session: loop {
        // honour pause before (re)starting the source
        if *control.borrow() == Wanted::Pause {
            publisher.status(SessionStatus::Paused, None).await;
            processing = false;
            loop {
                tokio::select! {
                    r = control.changed() => if r.is_err() { break 'session Ended::Stopped("control watcher ended".into()) },
                    why = &mut lease_lost => break 'session Ended::Failed { code: ErrorData::INTERNAL, message: why },
                    () = cancel.cancelled() => break 'session shutdown_end(ctx),
                }
                match control.borrow().clone() {
                    Wanted::Pause => {}
                    Wanted::Run => break,
                    Wanted::Stop(why) => break 'session Ended::Stopped(why),
                }
            }
        }
        if let Wanted::Stop(why) = control.borrow().clone() {
            break Ended::Stopped(why);
        }

        // (re)open the source
        let opened = match (probe, source) {
            (_, VideoSource::Synthetic(_)) => Ok(crate::synthetic::probe(
                s.synthetic_size,
                ctx.config.target_fps.filter(|f| *f > 0.0).unwrap_or(25.0),
            )),
            (Some(p), _)
                if !matches!(
                    source,
                    VideoSource::Http(_)
                        | VideoSource::Rtmp(_)
                        | VideoSource::Rtsp(_)
                        | VideoSource::Srt(_)
                ) =>
            {
                Ok(p)
            }
            _ => source::probe(source, s.probe_timeout).await,
        };
        let (tx, mut rx) = mpsc::channel::<SourceEvent>(4);
        let mut decoder = match opened {
            Ok(p) => {
                probe = Some(p);
                let fps = ctx.config.target_fps.filter(|f| *f > 0.0).unwrap_or(p.fps);
                let started = match source {
                    VideoSource::Synthetic(seed) => crate::synthetic::SyntheticSource::start(
                        *seed,
                        (p.width, p.height),
                        fps,
                        position,
                        ctx.config.realtime,
                        tx,
                    )
                    .map(Running::Synthetic),
                    _ => Decoder::start(source, p, fps, position, ctx.config.realtime, tx)
                        .map(Running::Ffmpeg)
                        .map_err(|e| e.to_string()),
                };
                match started {
                    Ok(d) => Some(d),
                    Err(message) => {
                        break Ended::Failed {
                            code: ErrorData::SOURCE_FAILED,
                            message,
                        };
                    }
                }
            }
            Err(e)
                if probe.is_none() && attempts == 0 && matches!(source, VideoSource::File(_)) =>
            {
                // a local file that cannot be read will not get better
                break Ended::Failed {
                    code: ErrorData::SOURCE_FAILED,
                    message: e.to_string(),
                };
            }
            Err(e) => {
                last_detail = e.to_string();
                None
            }
        };

        // read frames until the source ends, stalls, or control says otherwise
        let mut reconnect = decoder.is_none();
        // before the first frame ffmpeg probes the stream: allow the probe timeout
        let mut wait = s.stall_timeout.max(s.probe_timeout);
        while decoder.is_some() {
            tokio::select! {
                ev = tokio::time::timeout(wait, rx.recv()) => match ev {
                    Err(_) => {
                        last_detail = format!("no frame for {} s", wait.as_secs_f64());
                        reconnect = true;
                        break;
                    }
                    Ok(Some(SourceEvent::Frame(f))) => {
                        wait = s.stall_timeout;
                        if !processing {
                            processing = true;
                            attempts = 0;
                            publisher.status(SessionStatus::Processing, None).await;
                        }
                        let fps = ctx.config.target_fps.filter(|f| *f > 0.0).or(probe.map(|p| p.fps)).unwrap_or(25.0);
                        position = f.video_timestamp + 1.0 / fps;
                        metrics.lock().unwrap_or_else(PoisonError::into_inner).frame_read(f.read_instant);
                        if offline {
                            let slot = slot.clone();
                            let _ = tokio::task::spawn_blocking(move || slot.wait_empty()).await;
                        }
                        if slot.put(f) {
                            metrics.lock().unwrap_or_else(PoisonError::into_inner).dropped_frames += 1;
                        }
                    }
                    Ok(Some(SourceEvent::Ended { clean, detail })) => {
                        // seeks on resumed network sources land within about a second
                        let reached_end = probe
                            .and_then(|p| p.duration.map(|d| (d, p.fps)))
                            .is_some_and(|(d, fps)| position >= d - (2.0 / fps).max(1.0));
                        if reached_end || (clean && matches!(source, VideoSource::File(_))) {
                            break 'session Ended::Completed;
                        }
                        last_detail = if detail.is_empty() { "the source ended early".to_owned() } else { detail };
                        reconnect = true;
                        break;
                    }
                    Ok(None) => { reconnect = true; break; }
                },
                r = control.changed() => {
                    if r.is_err() { break 'session Ended::Stopped("control watcher ended".into()); }
                    match control.borrow().clone() {
                        Wanted::Run => {}
                        Wanted::Pause => break,
                        Wanted::Stop(why) => break 'session Ended::Stopped(why),
                    }
                }
                why = &mut lease_lost => break 'session Ended::Failed { code: ErrorData::INTERNAL, message: why },
                () = cancel.cancelled() => break 'session shutdown_end(ctx),
                done = &mut publishing => {
                    let why = done.ok().flatten().unwrap_or_else(|| "the publisher stopped".to_owned());
                    break 'session Ended::Failed { code: ErrorData::MODEL_FAILED, message: why };
                }
            }
        }
        if let Some(mut d) = decoder.take() {
            d.stop();
        }
        if !reconnect {
            continue; // paused: the loop head waits for the control key
        }

        // stalled or dropped: back off and reconnect, resuming files at their last timestamp
        attempts += 1;
        processing = false;
        if attempts > s.max_reconnects {
            break Ended::Failed {
                code: ErrorData::SOURCE_FAILED,
                message: format!(
                    "source lost after {} reconnect attempts: {last_detail}",
                    s.max_reconnects
                ),
            };
        }
        let backoff = reconnect_delay(s.reconnect_base, attempts);
        publisher
            .status(
                SessionStatus::Reconnecting,
                Some(format!(
                    "{last_detail}; reconnecting in {:.1} s (attempt {attempts} of {})",
                    backoff.as_secs_f64(),
                    s.max_reconnects
                )),
            )
            .await;
        tokio::select! {
            () = tokio::time::sleep(backoff) => {}
            r = control.changed() => {
                if r.is_err() { break Ended::Stopped("control watcher ended".into()); }
                if let Wanted::Stop(why) = control.borrow().clone() { break Ended::Stopped(why); }
            }
            why = &mut lease_lost => break Ended::Failed { code: ErrorData::INTERNAL, message: why },
            () = cancel.cancelled() => break shutdown_end(ctx),
        }
    };

    // drain: the analyser finishes its frame, the publisher sends what is left
    slot.close();
    if !publishing.is_finished() {
        let _ = tokio::time::timeout(Duration::from_secs(5), &mut publishing).await;
    }
    publishing.abort();
    ended
}

/// A running frame source.
#[derive(Debug)]
enum Running {
    Ffmpeg(Decoder),
    Synthetic(crate::synthetic::SyntheticSource),
}

impl Running {
    fn stop(&mut self) {
        match self {
            Self::Ffmpeg(d) => d.stop(),
            Self::Synthetic(s) => s.stop(),
        }
    }
}

fn shutdown_end(ctx: &SessionCtx) -> Ended {
    Ended::Failed {
        code: ErrorData::INTERNAL,
        message: format!(
            "worker {} shut down while processing; start the session again to resume",
            ctx.worker_id
        ),
    }
}

/// `base · 2^(attempt-1)`, capped at 30 × base (1 s, 2 s, 4 s … 30 s with the default base).
#[must_use]
pub fn reconnect_delay(base: Duration, attempt: u32) -> Duration {
    let factor = 2u32.saturating_pow(attempt.saturating_sub(1)).min(30);
    base.saturating_mul(factor).min(base.saturating_mul(30))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_caps_at_30_s() {
        let b = Duration::from_secs(1);
        let got: Vec<u64> = (1..=7).map(|a| reconnect_delay(b, a).as_secs()).collect();
        assert_eq!(got, [1, 2, 4, 8, 16, 30, 30]);
    }

    fn frame(n: u64) -> VideoFrame {
        VideoFrame {
            frame_number: n,
            video_timestamp: 0.0,
            read_at: 0.0,
            read_instant: Instant::now(),
            width: 1,
            height: 1,
            rgb: vec![0; 3],
        }
    }

    #[test]
    fn the_slot_keeps_the_latest_frame_and_counts_drops() {
        let slot = Slot::default();
        assert!(!slot.put(frame(1)));
        assert!(slot.put(frame(2)), "frame 1 was never taken: dropped");
        assert_eq!(slot.take().unwrap().frame_number, 2);
        slot.close();
        assert!(slot.take().is_none());
    }
}
