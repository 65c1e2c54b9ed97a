//! `sportz track --annotate OUT.mp4`: each analysed frame (from the vision-stage tap) is drawn by
//! the wgpu overlay offscreen and encoded to H.264 by an ffmpeg child (command line from
//! `sportz-media`), on a thread of its own so the pipeline is not slowed by the encoder.

use std::sync::Arc;

use sportz_contract::FrameData;
use sportz_overlay::VideoImage;

use crate::overlay::{Sink, scene_from_frame, video_of};

/// Renders analysed frames with the overlay and encodes them to H.264 (`track --annotate`).
pub struct Annotator {
    tx: Option<std::sync::mpsc::SyncSender<(VideoImage, FrameData)>>,
    thread: Option<std::thread::JoinHandle<anyhow::Result<u64>>>,
}

impl std::fmt::Debug for Annotator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Annotator").finish_non_exhaustive()
    }
}

impl Annotator {
    /// Checks that a GPU adapter exists, then starts the render-and-encode thread.
    ///
    /// # Errors
    /// No wgpu adapter.
    pub fn start(out: &std::path::Path, fps: f64) -> anyhow::Result<Self> {
        drop(sportz_overlay::Offscreen::new(16, 16)?);
        let (tx, rx) = std::sync::mpsc::sync_channel::<(VideoImage, FrameData)>(4);
        let out = out.to_owned();
        let thread = std::thread::Builder::new()
            .name("annotate".into())
            .spawn(move || encode(&rx, &out, fps))?;
        Ok(Self {
            tx: Some(tx),
            thread: Some(thread),
        })
    }

    /// A sink that queues each frame for the encoder (blocking when it is behind: offline work
    /// waits rather than drops).
    #[must_use]
    pub fn sink(&self) -> Sink {
        let tx = self.tx.clone();
        Arc::new(move |_, f, a| {
            if let Some(tx) = &tx {
                let _ = tx.send((video_of(f), a.frame.clone()));
            }
        })
    }

    /// Waits for the encoder to finish; returns the number of frames written.
    ///
    /// # Errors
    /// The renderer or ffmpeg failed.
    pub fn finish(mut self) -> anyhow::Result<u64> {
        self.tx = None;
        self.thread.take().map_or(Ok(0), |t| {
            t.join()
                .map_err(|_| anyhow::anyhow!("the annotate thread panicked"))?
        })
    }
}

fn encode(
    rx: &std::sync::mpsc::Receiver<(VideoImage, FrameData)>,
    out: &std::path::Path,
    fps: f64,
) -> anyhow::Result<u64> {
    use anyhow::Context as _;
    use std::io::Write as _;
    let mut state: Option<(sportz_overlay::Offscreen, std::process::Child)> = None;
    let mut frames = 0u64;
    // the synth and the tests never drop frames, but another source could; keep the fed ones
    for (video, frame) in rx {
        if state.is_none() {
            let (w, h) = (video.width & !1, video.height & !1);
            let off = sportz_overlay::Offscreen::new(w, h)?;
            let child = sportz_media::Encode::new(sportz_media::RawPixels::Rgba, w, h, fps)
                .command(out)
                // ffmpeg's complaints go straight to the user's terminal
                .stderr(std::process::Stdio::inherit())
                .spawn()
                .context(
                    "cannot start ffmpeg to encode the annotated video (scripts/setup installs it)",
                )?;
            state = Some((off, child));
        }
        let Some((off, child)) = state.as_mut() else {
            continue;
        };
        let img = off.render(&scene_from_frame(&frame, Some(video)))?;
        child
            .stdin
            .as_mut()
            .context("ffmpeg's stdin")?
            .write_all(&img.data)
            .with_context(|| format!("ffmpeg stopped while writing {}", out.display()))?;
        frames += 1;
    }
    if let Some((_, mut child)) = state {
        drop(child.stdin.take());
        let status = child.wait()?;
        anyhow::ensure!(
            status.success(),
            "ffmpeg failed writing {} ({status})",
            out.display()
        );
    }
    Ok(frames)
}
