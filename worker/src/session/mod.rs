//! One processing session: status lifecycle, source with stall detection and reconnects,
//! the control loop, the lease, and the decode → analyse → publish pipeline.
//!
//! ```text
//! ffmpeg reader thread ──mpsc──▶ session loop ──latest-wins slot──▶ analyser thread
//!                                (stall, reconnect,                       │
//!                                 pause, stop)                            ▼
//!                                 ▲          ▲             publisher task (frames, events, metrics)
//!     control watcher task ─watch─┘          └─lost─ lease keeper task (refreshes every 1 s)
//! ```
//! In live mode a frame that arrives while the analyser is busy replaces the waiting one and is
//! counted in `dropped_frames`: frames are dropped before inference, never queued without bound.
//! Offline (a file read as fast as possible) nothing is dropped: the reader waits.
//!
//! The lease keeper runs from the start of the session to its end on its own, so the lease stays
//! fresh while the session loop waits on something slow (the source guard's DNS lookup, the
//! model load — run on a blocking thread —, ffprobe, a back-off); the loop only hears from it
//! when the lease is lost.
//!
//! - `publisher`: the one sequence of the session's messages, and the publisher task.
//! - `analyser`: the latest-wins frame slot and the analyser thread.
//! - `control`: the control-key watcher (run, pause, stop, superseded).
//! - `lease`: the lease keeper task.

mod analyser;
mod control;
mod lease;
mod publisher;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use sportz_bus::ContractBus;
use sportz_contract::status::SessionStatus;
use sportz_contract::worker::{SessionConfig, VideoSource};
use sportz_contract::{ErrorData, Lease, MatchId, SessionId};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::WorkerSettings;
use crate::analyzer::Analyzer;
use crate::metrics::SessionMetrics;
use crate::source::{self, Decoder, Probe, SourceEvent};
use analyser::{Slot, spawn_analyser};
use control::{Wanted, watch_control};
use lease::LeaseKeeper;
use publisher::{Publisher, publish_loop};

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
    let lease = Lease {
        worker_id: ctx.worker_id.clone(),
        session_id: ctx.session_id,
    };
    // taken by the intake just before: kept from now on, by a task of its own
    let mut keeper = LeaseKeeper::spawn(
        ctx.bus.clone(),
        ctx.match_id,
        lease.clone(),
        ctx.settings.lease_refresh,
    );
    let publisher = Arc::new(Publisher::new(
        ctx.bus.clone(),
        ctx.match_id,
        ctx.session_id,
        ctx.worker_id.clone(),
    ));
    publisher.status(SessionStatus::Starting, None).await;
    let _ = started.send(());

    let cancel = ctx.shutdown.child_token();
    let ended = run_pipeline(&ctx, &publisher, &cancel, &mut keeper).await;
    cancel.cancel();
    keeper.stop().await;
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

/// Makes the session's analyser off the async runtime: loading a model blocks for seconds.
async fn create_analyzer(ctx: &SessionCtx) -> Result<Box<dyn Analyzer>, String> {
    let (settings, match_id, config) = (ctx.settings.clone(), ctx.match_id, ctx.config.clone());
    match tokio::task::spawn_blocking(move || settings.analyzers.create(&match_id, &config)).await {
        Ok(created) => created,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => Err(format!("the model load was cancelled: {e}")),
    }
}

async fn run_pipeline(
    ctx: &SessionCtx,
    publisher: &Arc<Publisher>,
    cancel: &CancellationToken,
    lease: &mut LeaseKeeper,
) -> Ended {
    let s = &ctx.settings;
    if let Err(e) = crate::guard::check(&ctx.config.source, s.source_policy).await {
        return Ended::Failed {
            code: ErrorData::SOURCE_FAILED,
            message: e.to_string(),
        };
    }
    let analyzer = match create_analyzer(ctx).await {
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
                    why = lease.lost() => break 'session Ended::Failed { code: ErrorData::INTERNAL, message: why },
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
                why = lease.lost() => break 'session Ended::Failed { code: ErrorData::INTERNAL, message: why },
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
            why = lease.lost() => break Ended::Failed { code: ErrorData::INTERNAL, message: why },
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
}
