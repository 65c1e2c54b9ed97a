//! `GET /matches/{id}/video` over real HTTP: MJPEG parts of what the analysing process
//! publishes, 409 for a match not analysed here, 503 with the reason when the server renders
//! no video, 404 for an unknown match, the viewer token through `?token=` (an `<img>` cannot
//! send a header), and the viewers counted in `/health`.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use sportz_api::ApiConfig;
use sportz_api::video::{VideoHub, ViewerVideo};
use sportz_contract::MatchId;

async fn server(dir: &tempfile::TempDir, video: ViewerVideo, viewer_token: bool) -> Server {
    let config = ApiConfig {
        viewer_video: video,
        require_viewer_token: viewer_token,
        ..test_config()
    };
    start(memory_bus(), sqlite_store(dir).await, config).await
}

#[tokio::test]
async fn viewers_get_the_published_pictures_as_mjpeg() {
    let dir = tempfile::tempdir().unwrap();
    let hub = Arc::new(VideoHub::default());
    let s = server(&dir, ViewerVideo::On(hub.clone()), false).await;
    let m: MatchId = s.synthetic_match().await["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();

    // not analysed in this process: 409, saying where the video is
    let (code, v) = s.get(&format!("/matches/{m}/video")).await;
    assert_eq!(code, 409, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not being analysed in this process"),
        "{v}"
    );
    let (code, v) = s
        .get(&format!("/matches/{}/video", MatchId::generate()))
        .await;
    assert_eq!(code, 404, "{v}");

    // analysed here: a stream of JPEG parts, the newest picture first
    assert!(!hub.analysed(&m));
    hub.publish(&m, b"\xff\xd8picture-0\xff\xd9");
    let resp = s
        .http
        .get(format!("{}/matches/{m}/video", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(
        resp.headers()["content-type"],
        "multipart/x-mixed-replace; boundary=sportzframe"
    );
    assert!(hub.analysed(&m), "someone watches now");
    let (_, health) = s.get("/health").await;
    assert_eq!(health["viewer_video"]["on"], true, "{health}");
    assert_eq!(health["viewer_video"]["viewers"], 1, "{health}");
    let publisher = {
        let hub = hub.clone();
        tokio::spawn(async move {
            for i in 1..=20 {
                hub.analysed(&m);
                hub.publish(&m, format!("\u{ff}picture-{i}").as_bytes());
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };
    let mut body = resp;
    let mut got = Vec::new();
    while let Ok(Ok(Some(chunk))) = tokio::time::timeout(Duration::from_secs(5), body.chunk()).await
    {
        got.extend_from_slice(&chunk);
        if String::from_utf8_lossy(&got).contains("picture-20") {
            break;
        }
    }
    publisher.await.unwrap();
    let text = String::from_utf8_lossy(&got);
    assert!(
        text.starts_with("--sportzframe\r\nContent-Type: image/jpeg\r\nContent-Length: 13\r\n\r\n"),
        "{text}"
    );
    assert!(
        text.contains("picture-0"),
        "the latest picture first: {text}"
    );
    assert!(text.contains("picture-20"), "and then the new ones: {text}");
    let parts = text.matches("--sportzframe\r\n").count();
    assert!((2..=21).contains(&parts), "{parts} parts: {text}");
    drop(body);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while hub.viewers() > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the viewer who left is still counted"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_server_without_video_says_why_and_tokens_are_taken_from_the_query() {
    let dir = tempfile::tempdir().unwrap();
    let s = server(
        &dir,
        ViewerVideo::Off("off by default on CPU-only machines: --viewer-video on".into()),
        true,
    )
    .await;
    let m = s.synthetic_match().await["id"].as_str().unwrap().to_owned();
    let (code, v) = s.get(&format!("/matches/{m}/video")).await;
    assert_eq!(code, 401, "a viewer token is required: {v}");
    let (code, v) = s
        .get(&format!("/matches/{m}/video?token=not-a-token"))
        .await;
    assert_eq!(code, 401, "{v}");
    let (code, v) = s.get(&format!("/matches/{m}/video?token={TOKEN}")).await;
    assert_eq!(code, 503, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("off by default on CPU-only machines: --viewer-video on"),
        "{v}"
    );
    let (code, health) = s.req("GET", "/health", None, Some(TOKEN)).await;
    assert_eq!(code, 200);
    assert_eq!(health["viewer_video"]["on"], false, "{health}");
    assert!(
        health["viewer_video"]["reason"]
            .as_str()
            .unwrap()
            .contains("--viewer-video on")
    );
}
