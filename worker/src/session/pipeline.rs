//! The session's pipeline and its reader loop. [`run_pipeline`] checks the source, makes the
//! analyser, starts the analyser thread and the publisher task, and runs the [`Reader`]: one
//! turn of its loop honours a pause, **opens** the source ([`Reader::open`]: ffprobe, then the
//! ffmpeg child or the synthetic renderer — every (re)start of ffmpeg happens there), **reads**
//! frames into the analyser's slot until the source ends, stalls, or control says otherwise
//! ([`Reader::read`]), and **backs off** before the next attempt ([`Reader::back_off`]).
//! Every wait also listens for a stop, the lease being lost and the worker shutting down.

use std::ops::ControlFlow::{self, Break, Continue};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use sportz_contract::ErrorData;
use sportz_contract::status::SessionStatus;
use sportz_contract::worker::VideoSource;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::analyser::{OFFLINE_LEAD, Slot, spawn_analyser};
use super::control::{Wanted, watch_control};
use super::lease::LeaseKeeper;
use super::publisher::{Publisher, publish_loop};
use super::{Ended, SessionCtx, create_analyzer, reconnect_delay, shutdown_end};
use crate::analyzer::{Analyzer, AnalyzerError};
use crate::metrics::SessionMetrics;
use crate::source::{self, Decoder, Probe, SourceError, SourceEvent, VideoFrame};

/// A step of the reader loop: go on with a `T`, or the session ends.
type Step<T = ()> = ControlFlow<Ended, T>;

/// Runs the pipeline until the session ends, then drains it.
pub(super) async fn run_pipeline(
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
                message: e.to_string(),
            };
        }
    };
    let offline = ctx.config.is_offline();
    let mut stages = Stages::start(ctx, publisher, analyzer, offline);
    let control = watch_control(
        ctx.bus.clone(),
        ctx.match_id,
        ctx.session_id,
        s.control_poll,
        cancel.clone(),
    );
    let mut reader = Reader {
        ctx,
        publisher,
        cancel,
        lease,
        control,
        stages: &mut stages,
        offline,
        probe: None,
        resumed_said: false,
        // a takeover resumes a file or HTTP video where the lost worker was
        position: match &ctx.config.source {
            VideoSource::File(_) | VideoSource::Http(_) => ctx
                .config
                .start_at
                .filter(|t| t.is_finite() && *t > 0.0)
                .unwrap_or(0.0),
            _ => 0.0,
        },
        attempts: 0,
        processing: false,
        last_detail: String::new(),
    };
    let ended = loop {
        if let Break(ended) = reader.turn().await {
            break ended;
        }
    };
    stages.drain().await;
    ended
}

/// The stages after the reader: the frame slot, the analyser thread behind it, and the
/// publisher task.
struct Stages {
    slot: Arc<Slot>,
    metrics: Arc<Mutex<SessionMetrics>>,
    /// Ends with the analyser's error, or `None` once the analyser is done.
    publishing: JoinHandle<Option<AnalyzerError>>,
}

impl Stages {
    /// `offline`: every frame of a file at full speed (the detector may run further ahead).
    fn start(
        ctx: &SessionCtx,
        publisher: &Arc<Publisher>,
        analyzer: Box<dyn Analyzer>,
        offline: bool,
    ) -> Self {
        let s = &ctx.settings;
        let slot = Arc::new(Slot::default());
        let (res_tx, res_rx) = mpsc::channel(64);
        let lead = if offline { OFFLINE_LEAD } else { 1 };
        spawn_analyser(analyzer, slot.clone(), res_tx, lead);
        let metrics = Arc::new(Mutex::new(SessionMetrics::new(s.analyzers.device())));
        let publishing = tokio::spawn(publish_loop(
            publisher.clone(),
            res_rx,
            metrics.clone(),
            s.gpu.clone(),
        ));
        Self {
            slot,
            metrics,
            publishing,
        }
    }

    /// The analyser finishes its frame, the publisher sends what is left (for up to 5 s).
    async fn drain(mut self) {
        self.slot.close();
        if !self.publishing.is_finished() {
            let _ = tokio::time::timeout(Duration::from_secs(5), &mut self.publishing).await;
        }
        self.publishing.abort();
    }
}

/// The reader loop's state, kept across pauses and reconnects.
struct Reader<'a> {
    ctx: &'a SessionCtx,
    publisher: &'a Publisher,
    cancel: &'a CancellationToken,
    lease: &'a mut LeaseKeeper,
    control: watch::Receiver<Wanted>,
    stages: &'a mut Stages,
    /// A file read as fast as possible: the reader waits for the analyser instead of dropping.
    offline: bool,
    /// What the first successful probe found (re-probed for network sources).
    probe: Option<Probe>,
    /// Where the next (re)start resumes, in video seconds.
    position: f64,
    /// Whether the first `processing` was published (it says where a resumed session began).
    resumed_said: bool,
    /// Reconnect attempts since the last frame.
    attempts: u32,
    /// Whether `processing` was published since the last (re)start.
    processing: bool,
    /// Why the source was last lost, for the `reconnecting` and `failed` messages.
    last_detail: String,
}

/// How reading ended without ending the session.
enum Interrupted {
    /// Control asked for a pause: the next turn waits for it to lift.
    Paused,
    /// The source stalled, dropped or could not be opened: back off and reconnect.
    Lost,
}

impl Reader<'_> {
    /// One turn: honour a pause, open the source, read it, back off when it was lost.
    async fn turn(&mut self) -> Step {
        self.honour_control().await?;
        let (tx, rx) = mpsc::channel::<SourceEvent>(4);
        let interrupted = match self.open(tx).await? {
            Some(running) => self.read(running, rx).await?,
            None => Interrupted::Lost,
        };
        match interrupted {
            Interrupted::Paused => Continue(()), // the next turn waits for the control key
            Interrupted::Lost => self.back_off().await,
        }
    }

    /// Before (re)starting the source: waits while paused, ends on a stop.
    async fn honour_control(&mut self) -> Step {
        if *self.control.borrow() == Wanted::Pause {
            self.publisher.status(SessionStatus::Paused, None).await;
            self.processing = false;
            loop {
                tokio::select! {
                    r = self.control.changed() => if r.is_err() { return Break(Ended::Stopped("control watcher ended".into())) },
                    why = self.lease.lost() => return Break(Ended::Failed { code: ErrorData::INTERNAL, message: why }),
                    () = self.cancel.cancelled() => return Break(shutdown_end(self.ctx)),
                }
                match self.control.borrow().clone() {
                    Wanted::Pause => {}
                    Wanted::Run => break,
                    Wanted::Stop(why) => return Break(Ended::Stopped(why)),
                }
            }
        }
        if let Wanted::Stop(why) = self.control.borrow().clone() {
            return Break(Ended::Stopped(why));
        }
        Continue(())
    }

    /// (Re)opens the source at `position`: probes it, then starts ffmpeg (or the synthetic
    /// renderer) sending into `tx`. `None` when it cannot be opened now (a reconnect follows).
    async fn open(&mut self, tx: mpsc::Sender<SourceEvent>) -> Step<Option<Running>> {
        let source = &self.ctx.config.source;
        match self.probe_source().await {
            Ok(p) => {
                self.probe = Some(p);
                match self.start(p, tx) {
                    Ok(running) => Continue(Some(running)),
                    Err(message) => Break(Ended::Failed {
                        code: ErrorData::SOURCE_FAILED,
                        message,
                    }),
                }
            }
            Err(e)
                if self.probe.is_none()
                    && self.attempts == 0
                    && matches!(source, VideoSource::File(_)) =>
            {
                // a local file that cannot be read will not get better
                Break(Ended::Failed {
                    code: ErrorData::SOURCE_FAILED,
                    message: e.to_string(),
                })
            }
            Err(e) => {
                self.last_detail = e.to_string();
                Continue(None)
            }
        }
    }

    /// The source's size and rate: made up for the synthetic source, remembered for files and
    /// devices, asked of ffprobe again for network sources (the stream may have changed).
    async fn probe_source(&self) -> Result<Probe, SourceError> {
        let (ctx, s) = (self.ctx, &self.ctx.settings);
        let source = &ctx.config.source;
        match (self.probe, source) {
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
        }
    }

    /// Starts ffmpeg (or the synthetic renderer) at `position`.
    fn start(&self, p: Probe, tx: mpsc::Sender<SourceEvent>) -> Result<Running, String> {
        let config = &self.ctx.config;
        let fps = config.target_fps.filter(|f| *f > 0.0).unwrap_or(p.fps);
        match &config.source {
            VideoSource::Synthetic(seed) => crate::synthetic::SyntheticSource::start(
                *seed,
                (p.width, p.height),
                fps,
                self.position,
                config.realtime,
                tx,
            )
            .map(Running::Synthetic),
            source => Decoder::start(source, p, fps, self.position, config.realtime, tx)
                .map(Running::Ffmpeg)
                .map_err(|e| e.to_string()),
        }
    }

    /// Reads frames into the slot until the source ends or stalls, or control pauses it.
    async fn read(
        &mut self,
        mut running: Running,
        mut rx: mpsc::Receiver<SourceEvent>,
    ) -> Step<Interrupted> {
        let s = &self.ctx.settings;
        // before the first frame ffmpeg probes the stream: allow the probe timeout
        let mut wait = s.stall_timeout.max(s.probe_timeout);
        let interrupted = loop {
            tokio::select! {
                ev = tokio::time::timeout(wait, rx.recv()) => match ev {
                    Err(_) => {
                        self.last_detail = format!("no frame for {} s", wait.as_secs_f64());
                        break Interrupted::Lost;
                    }
                    Ok(Some(SourceEvent::Frame(f))) => {
                        wait = s.stall_timeout;
                        self.on_frame(f).await;
                    }
                    Ok(Some(SourceEvent::Ended { clean, detail })) => {
                        self.on_source_end(clean, detail)?;
                        break Interrupted::Lost;
                    }
                    Ok(None) => break Interrupted::Lost,
                },
                r = self.control.changed() => {
                    if r.is_err() { return Break(Ended::Stopped("control watcher ended".into())); }
                    match self.control.borrow().clone() {
                        Wanted::Run => {}
                        Wanted::Pause => break Interrupted::Paused,
                        Wanted::Stop(why) => return Break(Ended::Stopped(why)),
                    }
                }
                why = self.lease.lost() => return Break(Ended::Failed { code: ErrorData::INTERNAL, message: why }),
                () = self.cancel.cancelled() => return Break(shutdown_end(self.ctx)),
                done = &mut self.stages.publishing => {
                    let why = done.ok().flatten().map_or_else(|| "the publisher stopped".to_owned(), |e| e.to_string());
                    return Break(Ended::Failed { code: ErrorData::MODEL_FAILED, message: why });
                }
            }
        };
        running.stop();
        Continue(interrupted)
    }

    /// A frame read: `processing` on the first one, then into the slot (waiting for the
    /// analyser offline, replacing a waiting frame live).
    async fn on_frame(&mut self, f: VideoFrame) {
        if !self.processing {
            self.processing = true;
            self.attempts = 0;
            // the first `processing` of a session that resumed a video says where (a takeover)
            let resumed = (!self.resumed_said && self.position > 0.0 && f.frame_number > 0)
                .then(|| format!("resumed at {:.1} s of the video", f.video_timestamp));
            self.resumed_said = true;
            self.publisher
                .status(SessionStatus::Processing, resumed)
                .await;
        }
        let config = &self.ctx.config;
        let fps = config
            .target_fps
            .filter(|f| *f > 0.0)
            .or(self.probe.map(|p| p.fps))
            .unwrap_or(25.0);
        self.position = f.video_timestamp + 1.0 / fps;
        let metrics = &self.stages.metrics;
        metrics
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .frame_read(f.read_instant);
        let slot = &self.stages.slot;
        if self.offline {
            let slot = slot.clone();
            let _ = tokio::task::spawn_blocking(move || slot.wait_empty()).await;
        }
        if slot.put(f) {
            metrics
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .dropped_frames += 1;
        }
    }

    /// The source ended: the session is complete at the end of the video (or of a file that
    /// ended cleanly); anywhere else it was lost.
    fn on_source_end(&mut self, clean: bool, detail: String) -> Step {
        // seeks on resumed network sources land within about a second
        let reached_end = self
            .probe
            .and_then(|p| p.duration.map(|d| (d, p.fps)))
            .is_some_and(|(d, fps)| self.position >= d - (2.0 / fps).max(1.0));
        if reached_end || (clean && matches!(self.ctx.config.source, VideoSource::File(_))) {
            return Break(Ended::Completed);
        }
        self.last_detail = if detail.is_empty() {
            "the source ended early".to_owned()
        } else {
            detail
        };
        Continue(())
    }

    /// Stalled or dropped: waits `base · 2^n` before the next attempt (files and HTTP then
    /// resume at their last timestamp); fails after the attempt limit.
    async fn back_off(&mut self) -> Step {
        let s = &self.ctx.settings;
        self.attempts += 1;
        self.processing = false;
        let attempts = self.attempts;
        if attempts > s.max_reconnects {
            return Break(Ended::Failed {
                code: ErrorData::SOURCE_FAILED,
                message: format!(
                    "source lost after {} reconnect attempts: {}",
                    s.max_reconnects, self.last_detail
                ),
            });
        }
        let backoff = reconnect_delay(s.reconnect_base, attempts);
        self.publisher
            .status(
                SessionStatus::Reconnecting,
                Some(format!(
                    "{}; reconnecting in {:.1} s (attempt {attempts} of {})",
                    self.last_detail,
                    backoff.as_secs_f64(),
                    s.max_reconnects
                )),
            )
            .await;
        tokio::select! {
            () = tokio::time::sleep(backoff) => {}
            r = self.control.changed() => {
                if r.is_err() { return Break(Ended::Stopped("control watcher ended".into())); }
                if let Wanted::Stop(why) = self.control.borrow().clone() { return Break(Ended::Stopped(why)); }
            }
            why = self.lease.lost() => return Break(Ended::Failed { code: ErrorData::INTERNAL, message: why }),
            () = self.cancel.cancelled() => return Break(shutdown_end(self.ctx)),
        }
        Continue(())
    }
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
