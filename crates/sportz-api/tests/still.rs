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
