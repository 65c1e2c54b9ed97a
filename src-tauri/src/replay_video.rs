//! The source video under a replay in the desktop overlay: an ffmpeg decoder of the match's file
//! (command line from `sportz-media`) read forward as the replay plays, started again at the
//! asked time when the replay seeks back or jumps ahead.

use std::io::Read as _;
use std::process::{Child, ChildStdout};

use sportz_contract::worker::VideoSource;
use sportz_overlay::VideoImage;

/// A jump ahead further than this starts the decoder again at the new time rather than
/// decoding everything in between.
const MAX_READ_AHEAD_S: f64 = 3.0;

/// What to do for a picture at `t` when the decoder's next picture is at `next`, pictures
/// `dt` apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Read (and drop) this many pictures, then the one after is the one.
    Read { skip: u32 },
    /// Start the decoder again at `t`.
    Restart,
}

/// The step for a picture at `t` (pure: tested on its own).
#[must_use]
pub fn step(next: Option<f64>, t: f64, dt: f64) -> Step {
    let Some(next) = next else {
        return Step::Restart;
    };
    if t < next - dt / 2.0 || t > next + MAX_READ_AHEAD_S {
        return Step::Restart;
    }
    Step::Read {
        skip: ((t - next) / dt + 0.5).floor().max(0.0) as u32,
    }
}

/// Decodes `source` at `size` for a replay.
#[derive(Debug)]
pub struct ReplayVideo {
    source: VideoSource,
    size: (u32, u32),
    fps: f64,
    decoder: Option<Decoder>,
}

/// A running ffmpeg and the video time of the next picture it writes.
#[derive(Debug)]
struct Decoder {
    child: Child,
    stdout: ChildStdout,
    next: f64,
}

impl ReplayVideo {
    /// For a match whose video is a file that still exists (else `None`: the replay is drawn
    /// without video). `size` is the analysed frames' size.
    #[must_use]
    pub fn open(source: Option<&VideoSource>, size: (u32, u32)) -> Option<Self> {
        let source = source?;
        let VideoSource::File(path) = source else {
            return None;
        };
        if !std::path::Path::new(path).is_file() || size.0 == 0 || size.1 == 0 {
            return None;
        }
        let out = sportz_media::probe_command(source).output().ok()?;
        let probe = sportz_media::parse_probe(&String::from_utf8_lossy(&out.stdout)).ok()?;
        Some(Self {
            source: source.clone(),
            size,
            fps: probe.fps,
            decoder: None,
        })
    }

    fn start(&mut self, t: f64) -> Option<()> {
        self.stop();
        let mut child = sportz_media::decode_command(&self.source, t, false, self.fps, self.size)
            .stderr(std::process::Stdio::null())
            .spawn()
            .ok()?;
        let stdout = child.stdout.take()?;
        self.decoder = Some(Decoder {
            child,
            stdout,
            next: t,
        });
        Some(())
    }

    fn stop(&mut self) {
        if let Some(mut d) = self.decoder.take() {
            let _ = d.child.kill();
            let _ = d.child.wait();
        }
    }

    /// Reads the decoder's next picture into `rgb` (one picture's size).
    fn read_into(&mut self, rgb: &mut [u8]) -> Option<()> {
        let d = self.decoder.as_mut()?;
        if d.stdout.read_exact(rgb).is_err() {
            self.stop(); // the end of the file, or the decoder failed
            return None;
        }
        d.next += 1.0 / self.fps;
        Some(())
    }

    /// The picture at video time `t`; `None` past the end of the file.
    pub fn at(&mut self, t: f64) -> Option<VideoImage> {
        let dt = 1.0 / self.fps;
        let skip = match step(self.decoder.as_ref().map(|d| d.next), t, dt) {
            Step::Restart => {
                self.start(t)?;
                0
            }
            Step::Read { skip } => skip,
        };
        // the pictures a fast replay jumps over all go through one buffer
        let mut rgb = vec![0u8; self.size.0 as usize * self.size.1 as usize * 3];
        for _ in 0..=skip {
            self.read_into(&mut rgb)?;
        }
        Some(VideoImage {
            width: self.size.0,
            height: self.size.1,
            rgb,
        })
    }
}

impl Drop for ReplayVideo {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DT: f64 = 0.04;

    #[test]
    fn playing_on_reads_the_next_picture_and_skips_what_a_fast_replay_jumped() {
        assert_eq!(step(Some(1.0), 1.0, DT), Step::Read { skip: 0 });
        assert_eq!(step(Some(1.0), 1.01, DT), Step::Read { skip: 0 });
        // 4×: every fourth picture
        assert_eq!(step(Some(1.04), 1.16, DT), Step::Read { skip: 3 });
        assert_eq!(step(Some(1.0), 3.9, DT), Step::Read { skip: 73 });
    }

    #[test]
    fn a_seek_back_a_far_jump_or_no_decoder_starts_again() {
        assert_eq!(step(None, 2.0, DT), Step::Restart);
        assert_eq!(step(Some(5.0), 1.0, DT), Step::Restart);
        assert_eq!(step(Some(5.0), 4.99, DT), Step::Read { skip: 0 });
        assert_eq!(step(Some(1.0), 4.5, DT), Step::Restart);
    }

    #[test]
    fn only_a_file_that_is_still_there_has_video() {
        assert!(ReplayVideo::open(None, (640, 360)).is_none());
        assert!(ReplayVideo::open(Some(&VideoSource::Synthetic(3)), (640, 360)).is_none());
        assert!(
            ReplayVideo::open(
                Some(&VideoSource::File("/nonexistent/match.mp4".into())),
                (640, 360)
            )
            .is_none()
        );
    }

    /// A real clip: the picture at a time is the clip's picture at that time, after a seek back
    /// too (the synth draws the frame number nowhere, so compare with ffmpeg's own still).
    #[test]
    fn pictures_follow_the_asked_time_in_a_real_clip() {
        let dir = tempfile::tempdir().unwrap();
        sportz_synth::write_match(
            &sportz_synth::SynthConfig {
                width: 320,
                height: 180,
                duration_secs: 3.0,
                cuts: false,
                ..sportz_synth::SynthConfig::default()
            },
            11,
            dir.path(),
            |_| {},
        )
        .unwrap();
        let clip = dir.path().join("match.mp4");
        let source = VideoSource::File(clip.display().to_string());
        let mut v = ReplayVideo::open(Some(&source), (320, 180)).expect("a file source");
        let still = |t: f64| -> Vec<u8> {
            let out = sportz_media::still_rgb_command(&clip.display().to_string(), t, 320, 180)
                .output()
                .unwrap();
            out.stdout
        };
        let diff = |a: &[u8], b: &[u8]| -> f64 {
            a.iter()
                .zip(b)
                .map(|(x, y)| f64::from(x.abs_diff(*y)))
                .sum::<f64>()
                / a.len() as f64
        };
        let (s1, s2) = (still(1.0), still(2.0));
        assert!(diff(&s1, &s2) > 1.0, "the clip moves between 1 s and 2 s");
        for t in [1.0, 2.0, 1.0] {
            let pic = v.at(t).expect("a picture");
            let want = if t < 1.5 { &s1 } else { &s2 };
            let other = if t < 1.5 { &s2 } else { &s1 };
            assert!(
                diff(&pic.rgb, want) < diff(&pic.rgb, other) / 2.0,
                "the picture at {t} s"
            );
        }
        assert!(v.at(10.0).is_none(), "past the end");
    }
}
