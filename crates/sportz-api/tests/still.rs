//! The calibration still (`GET /matches/{id}/still?t=`): a JPEG decoded by the real ffmpeg from
//! the match's video file, and clear refusals when there is no frame to show.

mod common;

use common::*;
use serde_json::json;

#[tokio::test]
async fn a_still_is_a_jpeg_of_the_video_and_missing_frames_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let clip = sportz_testkit::TestClip::new(2, 10).make(&dir.path().join("clip.mp4"));
    let s = start(memory_bus(), sqlite_store(&dir).await, test_config()).await;
    let m = s
        .create_match(json!({"homeTeam": "A", "awayTeam": "B",
            "videoSource": {"type": "file", "value": clip.display().to_string()}}))
        .await;
    let id = m["id"].as_str().unwrap();

    let r = s
        .http
        .get(format!("{}/matches/{id}/still?t=1.2", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "image/jpeg");
    let jpeg = r.bytes().await.unwrap();
    assert!(
        jpeg.starts_with(&[0xFF, 0xD8, 0xFF]),
        "not a JPEG: {:?}",
        &jpeg[..8.min(jpeg.len())]
    );

    // past the end of a 2 s clip there is no frame
    let (code, v) = s.get(&format!("/matches/{id}/still?t=30")).await;
    assert_eq!(code, 409, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cannot read a frame at 30 s"),
        "{v}"
    );

    // a synthetic match has no video to take a still from
    let synthetic = s.synthetic_match().await;
    let (code, v) = s
        .get(&format!(
            "/matches/{}/still",
            synthetic["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(code, 409, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no still image"),
        "{v}"
    );
}

/// A still goes through the worker's source guard before ffmpeg opens anything: a URL on a
/// loopback or private host is refused with the guard's reason (no request reaches the host),
/// unless the API is configured to allow private sources.
#[tokio::test]
async fn a_still_from_a_private_host_is_refused_unless_allowed() {
    // a listener on loopback that counts the connections it gets
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let counted = hits.clone();
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            drop(sock); // not a video server: ffmpeg fails on it
        }
    });
    let source = json!({"type": "http", "value": format!("http://127.0.0.1:{port}/clip.mp4")});

    let dir = tempfile::tempdir().unwrap();
    let s = start(memory_bus(), sqlite_store(&dir).await, test_config()).await;
    let m = s
        .create_match(json!({"homeTeam": "A", "awayTeam": "B", "videoSource": source}))
        .await;
    let id = m["id"].as_str().unwrap();
    for path in [
        format!("/matches/{id}/still?t=1"),
        format!("/matches/{id}/still"),
    ] {
        let (code, v) = s.get(&path).await;
        assert_eq!(code, 422, "{path}: {v}");
        let msg = v["error"]["message"].as_str().unwrap();
        assert!(
            msg.contains("private or loopback address 127.0.0.1"),
            "{msg}"
        );
        assert!(
            msg.contains("allow_private_sources"),
            "says how to allow it: {msg}"
        );
    }
    let (code, v) = s
        .op(
            "POST",
            &format!("/matches/{id}/calibration/auto"),
            Some(json!({})),
        )
        .await;
    assert_eq!(
        code, 422,
        "the automatic calibration reads the same still: {v}"
    );
    assert_eq!(
        hits.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "nothing connected to the private host"
    );

    // allowed: ffmpeg does connect (and fails on a host that is no video server: 409)
    let dir2 = tempfile::tempdir().unwrap();
    let mut config = test_config();
    config.source_policy.allow_private_hosts = true;
    let s2 = start(memory_bus(), sqlite_store(&dir2).await, config).await;
    let m2 = s2
        .create_match(json!({"homeTeam": "A", "awayTeam": "B", "videoSource": source}))
        .await;
    let (code, v) = s2
        .get(&format!("/matches/{}/still", m2["id"].as_str().unwrap()))
        .await;
    assert_eq!(code, 409, "{v}");
    assert!(
        hits.load(std::sync::atomic::Ordering::SeqCst) >= 1,
        "ffmpeg tried the host"
    );
}
