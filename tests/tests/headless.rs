//! `sportz --headless` as a user runs it: no display, embedded defaults, the synthetic demo
//! match created and played, the API and live relay answering, a clean stop on SIGTERM; and
//! `sportz synth` writing a match.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::Value;
use sportz_e2e::sportz_bin;

struct Child(std::process::Child);
impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn headless_runs_the_demo_match_without_a_display() {
    let dir = tempfile::tempdir().unwrap();
    let port = sportz_testkit::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut child = Child(
        Command::new(sportz_bin())
            .args(["--headless", "--bind", &format!("127.0.0.1:{port}")])
            .arg("--data-dir")
            .arg(dir.path())
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .env("SPORTZ_OPERATOR_TOKEN", "e2e-token")
            .env("SPORTZ_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(r) = http.get(format!("{base}/health")).send().await
            && r.status() == 200
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "sportz --headless never became ready"
        );
        assert!(
            child.0.try_wait().unwrap().is_none(),
            "sportz --headless exited early"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let matches: Value = http
        .get(format!("{base}/matches"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let demo = &matches["data"][0];
    assert_eq!(demo["videoSource"]["type"], "synthetic", "{matches}");
    let id = demo["id"].as_str().unwrap();

    // frames flow from the embedded worker through the live endpoint
    let (mut ws, _) =
        tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}/ws/matches/{id}"))
            .await
            .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let frame = loop {
        let msg = tokio::time::timeout_at(deadline.into(), ws.next())
            .await
            .expect("a frame within 60 s")
            .unwrap()
            .unwrap();
        if let tokio_tungstenite::tungstenite::Message::Text(t) = msg {
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            if v["type"] == "frame" {
                break v;
            }
        }
    };
    assert_eq!(frame["data"]["width"], 1280);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let m: Value = http
            .get(format!("{base}/matches/{id}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if m["data"]["status"] == "processing" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the demo match is not processing: {m}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // SIGTERM: a clean exit
    let pid = child.0.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(s) = child.0.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "no exit 15 s after SIGTERM");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(status.success(), "{status:?}");

    // the demo's session was recorded in the data dir: listed, and exported by `sportz export`
    let export = |args: &[&str]| {
        Command::new(sportz_bin())
            .arg("export")
            .args(args)
            .arg("--data-dir")
            .arg(dir.path())
            .output()
            .unwrap()
    };
    let list = export(&["--list"]);
    assert!(list.status.success(), "{list:?}");
    let listed = String::from_utf8_lossy(&list.stdout);
    assert!(
        listed.contains(id),
        "the demo's recording is listed: {listed}"
    );
    let cdf = dir.path().join("demo.cdf.jsonl");
    let out = export(&[
        "--match",
        id,
        "--format",
        "cdf",
        "--out",
        cdf.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("frames"), "{said}");
    let text = std::fs::read_to_string(&cdf).unwrap();
    assert!(text.lines().count() > 0, "CDF lines");
    let line: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(line["match"]["id"], id);
    // to standard output, and what is wrong is said
    let out = export(&["--match", id, "--format", "events-csv", "--out", "-"]);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("event_id,kind,"));
    let out = export(&["--match", id, "--format", "xlsx", "--out", "-"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("expected one of jsonl"),
        "{out:?}"
    );
    let out = export(&[
        "--match",
        "match_01JC0000000000000000000000",
        "--format",
        "cdf",
        "--out",
        "-",
    ]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--list"),
        "{out:?}"
    );
}

#[test]
fn synth_writes_a_video_with_its_truth() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(sportz_bin())
        .args([
            "synth",
            "--seed",
            "9",
            "--seconds",
            "2",
            "--size",
            "320x180",
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("wrote 50 frames"), "{stdout}");
    let v = sportz_testkit::video_facts(&dir.path().join("match.mp4"));
    assert_eq!((v.width, v.height, v.frames), (320, 180, 50));
    let truth = std::fs::read_to_string(dir.path().join("truth.jsonl")).unwrap();
    assert_eq!(truth.lines().count(), 50);
    let bad = Command::new(sportz_bin())
        .args(["synth", "--size", "big", "--out", "x"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("WIDTHxHEIGHT"));
}

#[test]
fn track_writes_frames_of_a_video_as_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    let made = Command::new(sportz_bin())
        .args([
            "synth",
            "--seed",
            "2",
            "--seconds",
            "2",
            "--size",
            "320x180",
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let out = dir.path().join("run.jsonl");
    let run = Command::new(sportz_bin())
        .arg("track")
        .arg(dir.path().join("match.mp4"))
        .arg("--calibration")
        .arg(dir.path().join("calibration.json"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{run:?}");
    assert!(
        String::from_utf8_lossy(&run.stdout).contains("wrote 50 frames"),
        "{run:?}"
    );
    let frames: Vec<Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &Value| v["type"] == "frame")
        .collect();
    assert_eq!(frames.len(), 50, "offline: nothing dropped");
    for (i, f) in frames.iter().enumerate() {
        assert_eq!(f["data"]["frame_number"], i as u64);
        assert_eq!(
            f["data"]["coordinate_mode"], "pitch",
            "calibrated from the synth's points"
        );
    }
    let missing = Command::new(sportz_bin())
        .args(["track", "/no/such.mp4", "--out", "x.jsonl"])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no such video file"));
}
