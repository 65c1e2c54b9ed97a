//! The worker end to end on real ffmpeg, on the in-process bus and on a real redis-server.

mod common;

use std::time::Duration;

use common::*;
use sportz_bus::ContractBus;
use sportz_contract::keys;
use sportz_contract::status::{DesiredState, SessionStatus};
use sportz_contract::worker::{SessionConfig, VideoSource};
use sportz_contract::{MatchId, Payload};

async fn clip_flows_through(bus: ContractBus) {
    let dir = tempfile::tempdir().unwrap();
    let clip = make_clip(dir.path(), "clip.mp4", 2, 10);
    let m = MatchId::generate();
    let mut watch = Watch::new(&bus, m).await;
    let _w = spawn_worker(&bus, fast_settings(&format!("w-{m}")));
    start(&bus, m, file_config(&clip, false)).await;

    watch.status(20, SessionStatus::Completed).await;
    let frames = watch.frames();
    assert_eq!(frames.len(), 20, "2 s at 10 fps, offline: nothing dropped");
    for (i, f) in frames.iter().enumerate() {
        assert_eq!(f.frame_number, i as u64);
        assert!((f.video_timestamp - i as f64 / 10.0).abs() < 1e-6, "{f:?}");
        assert_eq!((f.width, f.height), (320, 240));
        assert!(f.latency_ms >= 0.0);
    }
    let statuses: Vec<SessionStatus> = watch.statuses().into_iter().map(|s| s.0).collect();
    assert_eq!(
        statuses,
        [
            SessionStatus::Starting,
            SessionStatus::Processing,
            SessionStatus::Completed
        ]
    );
    // one sequence per session, strictly increasing across all message types
    let seqs: Vec<u64> = watch.seen.iter().map(|e| e.seq).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    // the lease is released at the end, the snapshot holds the last frame
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(bus.lease(&m).await.unwrap(), None);
    let last = bus.last_frame(&m).await.unwrap().expect("frame:last");
    assert!(matches!(&last.payload, Payload::Frame(f) if f.frame_number == 19));
}

#[tokio::test]
async fn clip_flows_through_on_memory() {
    clip_flows_through(memory_bus()).await;
}

#[tokio::test]
async fn clip_flows_through_on_redis() {
    let (bus, _guard) = redis_bus().await;
    clip_flows_through(bus).await;
}

#[tokio::test]
async fn metrics_and_heartbeat_are_published() {
    let bus = memory_bus();
    let dir = tempfile::tempdir().unwrap();
    let clip = make_clip(dir.path(), "clip.mp4", 4, 10);
    let m = MatchId::generate();
    let mut watch = Watch::new(&bus, m).await;
    let _w = spawn_worker(&bus, fast_settings("w-metrics"));
    start(&bus, m, file_config(&clip, true)).await;
    let metrics = watch
        .until(
            10,
            "metrics after frames",
            |e| matches!(&e.payload, Payload::Metrics(x) if x.frames_processed > 5),
        )
        .await;
    let Payload::Metrics(x) = metrics.payload else {
        unreachable!()
    };
    assert!(
        x.source_fps > 5.0 && x.source_fps < 15.0,
        "paced at ~10 fps: {x:?}"
    );
    assert_eq!(x.device, "cpu");
    let hb = bus.heartbeats().await.unwrap();
    let me = hb
        .iter()
        .find(|h| h.worker_id == "w-metrics")
        .expect("heartbeat");
    assert_eq!(me.active_matches, vec![m]);
    assert_eq!(me.capacity, 1);
    assert!(bus.lease(&m).await.unwrap().is_some());
    assert!(bus.last_metrics(&m).await.unwrap().is_some());
}

#[tokio::test]
async fn pause_stops_frames_and_resume_continues_where_it_was() {
    let bus = memory_bus();
    let dir = tempfile::tempdir().unwrap();
    let clip = make_clip(dir.path(), "clip.mp4", 8, 10);
    let m = MatchId::generate();
    let mut watch = Watch::new(&bus, m).await;
    let _w = spawn_worker(&bus, fast_settings("w-pause"));
    let s = start(&bus, m, file_config(&clip, true)).await;
    watch
        .until(
            10,
            "a few frames",
            |e| matches!(&e.payload, Payload::Frame(f) if f.frame_number >= 5),
        )
        .await;

    set_control(&bus, m, s, DesiredState::Paused).await;
    watch.status(5, SessionStatus::Paused).await;
    let paused_at = watch.frames().last().unwrap().frame_number;
    watch.seen.clear();
    watch.drain_for(Duration::from_millis(1200)).await;
    assert!(
        watch.frames().is_empty(),
        "frames while paused: {:?}",
        watch.frames().len()
    );

    set_control(&bus, m, s, DesiredState::Running).await;
    watch.status(5, SessionStatus::Processing).await;
    let f = watch.until(5, "a frame after resume", is_frame).await;
    let Payload::Frame(f) = f.payload else {
        unreachable!()
    };
    assert!(
        f.frame_number > paused_at && f.frame_number <= paused_at + 5,
        "resumed at {} after pausing at {paused_at}",
        f.frame_number
    );

    set_control(&bus, m, s, DesiredState::Stopped).await;
    let stopped = watch.status(5, SessionStatus::Stopped).await;
    let Payload::Status(st) = stopped.payload else {
        unreachable!()
    };
    assert_eq!(st.message.as_deref(), Some("stop requested"));
}

#[tokio::test]
async fn a_new_session_supersedes_the_running_one() {
    let (bus, _guard) = redis_bus().await;
    let dir = tempfile::tempdir().unwrap();
    let clip = make_clip(dir.path(), "clip.mp4", 20, 10);
    let m = MatchId::generate();
    let mut watch = Watch::new(&bus, m).await;
    let mut settings = fast_settings(&format!("w-sup-{m}"));
    settings.capacity = 2;
    let _w = spawn_worker(&bus, settings);
    let first = start(&bus, m, file_config(&clip, true)).await;
    watch.status(10, SessionStatus::Processing).await;

    let second = start(&bus, m, file_config(&clip, true)).await;
    let stopped = watch.status(10, SessionStatus::Stopped).await;
    assert_eq!(stopped.session_id, Some(first));
    let Payload::Status(st) = &stopped.payload else {
        unreachable!()
    };
    assert!(
        st.message.as_deref().unwrap().contains(&second.to_string()),
        "{st:?}"
    );
    let running = watch
        .until(15, "the second session processing", |e| {
            e.session_id == Some(second) && status_of(e) == Some(SessionStatus::Processing)
        })
        .await;
    // starting (1), then processing — after a once-a-second metrics message or two when the
    // wait for the old session's lease is slow: numbered from 1 again, not after the first
    // session's frames
    assert!(
        (2..=4).contains(&running.seq),
        "the new session numbers its own messages: processing has seq {}",
        running.seq
    );
    let lease = bus.lease(&m).await.unwrap().unwrap();
    assert_eq!(lease.session_id, second);
}

#[tokio::test]
async fn bad_sources_fail_with_a_clear_message() {
    let bus = memory_bus();
    let mut settings = fast_settings("w-bad");
    settings.source_policy.allow_private_hosts = false;
    settings.capacity = 3;
    let _w = spawn_worker(&bus, settings);
    let dir = tempfile::tempdir().unwrap();
    let not_video = dir.path().join("notes.mp4");
    std::fs::write(&not_video, "this is not a video").unwrap();
    let cases = [
        (
            SessionConfig::new(VideoSource::File("/nonexistent/final.mp4".into())),
            "no such file `/nonexistent/final.mp4`",
        ),
        (
            SessionConfig::new(VideoSource::Http("http://127.0.0.1:9/live.m3u8".into())),
            "private or loopback",
        ),
        (
            SessionConfig::new(VideoSource::Rtmp("http://example.com/x".into())),
            "expected an rtmp://",
        ),
        (file_config(&not_video, false), "cannot read video from"),
    ];
    for (config, needle) in cases {
        let m = MatchId::generate();
        let mut watch = Watch::new(&bus, m).await;
        start(&bus, m, config).await;
        let failed = watch.status(15, SessionStatus::Failed).await;
        let Payload::Status(st) = failed.payload else {
            unreachable!()
        };
        let msg = st.message.unwrap();
        assert!(msg.contains(needle), "`{msg}` should contain `{needle}`");
        // an error message with a stable code came first
        assert!(
            watch
                .seen
                .iter()
                .any(|e| matches!(&e.payload, Payload::Error(x) if x.code == "source_failed"))
        );
        assert_eq!(bus.lease(&m).await.unwrap(), None, "lease released");
    }
}

#[tokio::test]
async fn stale_commands_are_ignored() {
    let bus = memory_bus();
    let dir = tempfile::tempdir().unwrap();
    let clip = make_clip(dir.path(), "clip.mp4", 1, 10);
    let _w = spawn_worker(&bus, fast_settings("w-stale"));
    let m = MatchId::generate();
    let mut watch = Watch::new(&bus, m).await;
    let s = start(&bus, m, file_config(&clip, false)).await;
    // the API changed its mind before the worker read it: stop wanted
    set_control(&bus, m, s, DesiredState::Stopped).await;
    watch.drain_for(Duration::from_millis(1500)).await;
    // either the worker read it after the stop (ignored) or just before (then it stopped)
    let statuses: Vec<SessionStatus> = watch.statuses().into_iter().map(|x| x.0).collect();
    assert!(
        statuses.is_empty() || statuses.last() == Some(&SessionStatus::Stopped),
        "{statuses:?}"
    );
    assert!(
        bus.raw()
            .pending(keys::WORKER_COMMANDS, keys::WORKERS_GROUP, 10)
            .await
            .unwrap()
            .is_empty(),
        "acked"
    );
}

#[tokio::test]
async fn at_capacity_the_next_command_waits_for_room_or_another_worker() {
    let (bus, _guard) = redis_bus().await;
    let dir = tempfile::tempdir().unwrap();
    let clip = make_clip(dir.path(), "clip.mp4", 30, 10);
    let (m1, m2) = (MatchId::generate(), MatchId::generate());
    let mut w1 = Watch::new(&bus, m1).await;
    let mut w2 = Watch::new(&bus, m2).await;
    let tag = m1.to_string();
    let _a = spawn_worker(&bus, fast_settings(&format!("a-{tag}")));
    let s1 = start(&bus, m1, file_config(&clip, true)).await;
    w1.status(10, SessionStatus::Processing).await;
    start(&bus, m2, file_config(&clip, true)).await;
    w2.drain_for(Duration::from_secs(2)).await;
    assert!(
        w2.statuses().is_empty(),
        "a full worker took another match: {:?}",
        w2.statuses()
    );

    // a second worker with room picks it up
    let _b = spawn_worker(&bus, fast_settings(&format!("b-{tag}")));
    let st = w2.status(15, SessionStatus::Starting).await;
    let Payload::Status(x) = st.payload else {
        unreachable!()
    };
    assert_eq!(x.worker_id.as_deref(), Some(format!("b-{tag}").as_str()));
    set_control(&bus, m1, s1, DesiredState::Stopped).await;
    w1.status(5, SessionStatus::Stopped).await;
}

#[tokio::test]
async fn the_synthetic_demo_source_plays_live_and_resumes_where_it_paused() {
    let bus = memory_bus();
    let mut settings = fast_settings("w-synth");
    settings.synthetic_size = (320, 180);
    let _w = spawn_worker(&bus, settings);
    let m = MatchId::generate();
    let mut watch = Watch::new(&bus, m).await;
    let mut config = SessionConfig::new(VideoSource::Synthetic(3));
    config.target_fps = Some(10.0);
    let s = start(&bus, m, config).await;
    watch
        .until(
            20,
            "synthetic frames",
            |e| matches!(&e.payload, Payload::Frame(f) if f.frame_number >= 5),
        )
        .await;
    let frames = watch.frames();
    assert_eq!((frames[0].width, frames[0].height), (320, 180));
    assert!(
        frames
            .windows(2)
            .all(|w| w[0].frame_number < w[1].frame_number)
    );
    assert!((frames[5].video_timestamp - frames[5].frame_number as f64 / 10.0).abs() < 1e-9);
    set_control(&bus, m, s, DesiredState::Paused).await;
    watch.status(5, SessionStatus::Paused).await;
    let paused_at = watch.frames().last().unwrap().frame_number;
    set_control(&bus, m, s, DesiredState::Running).await;
    let next = watch.until(10, "a frame after resume", is_frame).await;
    let Payload::Frame(f) = next.payload else {
        unreachable!()
    };
    assert!(
        f.frame_number > paused_at && f.frame_number <= paused_at + 3,
        "{} after {paused_at}",
        f.frame_number
    );
    set_control(&bus, m, s, DesiredState::Stopped).await;
    watch.status(5, SessionStatus::Stopped).await;
}

/// A takeover's session resumes where the lost worker was: `start_at` of a file.
#[tokio::test]
async fn a_session_with_start_at_resumes_the_file_there() {
    let dir = tempfile::tempdir().unwrap();
    let clip = make_clip(dir.path(), "clip.mp4", 2, 10);
    let bus = memory_bus();
    let _w = spawn_worker(&bus, fast_settings("resume"));
    let m = MatchId::generate();
    let mut watch = Watch::new(&bus, m).await;
    let mut config = file_config(&clip, false);
    config.start_at = Some(1.2);
    start(&bus, m, config).await;
    watch.status(20, SessionStatus::Completed).await;
    let frames = watch.frames();
    assert_eq!(frames.len(), 8, "frames 12..19 of a 2 s clip at 10 fps");
    assert_eq!(frames[0].frame_number, 12);
    assert!(
        (frames[0].video_timestamp - 1.2).abs() < 1e-6,
        "{:?}",
        frames[0]
    );
    assert_eq!(frames.last().unwrap().frame_number, 19);
    let processing = watch
        .statuses()
        .into_iter()
        .find(|(s, _)| *s == SessionStatus::Processing)
        .unwrap();
    assert_eq!(
        processing.1.as_deref(),
        Some("resumed at 1.2 s of the video")
    );
}
