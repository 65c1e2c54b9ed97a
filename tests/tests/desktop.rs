//! The desktop app under Xvfb: it starts on the demo match, and after a few seconds a screenshot
//! of the screen shows the web UI (WebKitGTK window) and the wgpu overlay window with players on
//! its radar. Asserted on pixels; the PNG is kept at `target/tmp/desktop-screenshot.png`.
//! With `--redis` and a worker in another process, the overlay draws the match that worker runs
//! from the bus and says so in its title. Ctrl+O in the UI window shows the native file dialog
//! (GTK's, driven with xdotool as a user would), and the video chosen there becomes a started
//! match, with no token pasted.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sportz_e2e::sportz_bin;
use sportz_overlay::RgbaImage;

struct Child(std::process::Child);
impl Drop for Child {
    fn drop(&mut self) {
        // SIGTERM first so the app shuts its worker down, then make sure
        let _ = Command::new("kill").arg(self.0.id().to_string()).status();
        std::thread::sleep(Duration::from_millis(300));
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A private X server on a display number it picks itself (`-displayfd`: Xvfb binds the first
/// free one and writes its number), so tests running at once never share a display — probing
/// for a free number and then starting Xvfb raced when two tests picked the same one.
fn xvfb() -> (Child, String) {
    use std::io::BufRead as _;
    let mut child = Command::new("Xvfb")
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "1920x1080x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("Xvfb (apt install xvfb; scripts/setup installs it)");
    let stdout = child.stdout.take().expect("Xvfb's stdout");
    let child = Child(child);
    let mut line = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .expect("Xvfb's display number");
    let n: u32 = line
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("Xvfb did not start (it wrote {line:?} for its display)"));
    (child, format!(":{n}"))
}

fn screenshot(display: &str, out: &Path) -> Option<RgbaImage> {
    let ok = Command::new("import")
        .args(["-display", display, "-window", "root"])
        .arg(out)
        .status()
        .expect("ImageMagick's import (scripts/setup installs imagemagick)")
        .success();
    ok.then(|| RgbaImage::from_png(&std::fs::read(out).ok()?).ok())
        .flatten()
}

fn near(px: [u8; 4], rgb: [u8; 3], tol: u8) -> bool {
    px[..3].iter().zip(rgb).all(|(a, b)| a.abs_diff(b) <= tol)
}

/// What the screenshot must show, or why not yet.
fn check(img: &RgbaImage) -> Result<String, String> {
    // the UI window: 1100×800 at the top left, the match centre drawn by WebKit
    let mut colours = std::collections::HashSet::new();
    for y in (0..800).step_by(4) {
        for x in (0..1100).step_by(4) {
            colours.insert(img.pixel(x, y));
        }
    }
    if colours.len() < 20 {
        return Err(format!(
            "the UI window shows {} colours: not drawn yet",
            colours.len()
        ));
    }
    // the overlay window: 800×450 at x = 1110, its radar at the bottom right
    let (ox, ow, oh) = (1110u32, 800u32, 450u32);
    let mut pitch = 0;
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    for y in oh / 2..oh {
        for x in ox + ow / 2..ox + ow {
            if near(img.pixel(x, y), [38, 120, 60], 3) {
                pitch += 1;
                (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            }
        }
    }
    if pitch < 5_000 {
        return Err(format!(
            "no radar in the overlay window yet ({pitch} pitch pixels)"
        ));
    }
    // player dots inside the radar, in whatever kit colours the match learnt (the fixed
    // palette before): coloured pixels that are neither the pitch's green nor its white lines
    let mut dots = 0;
    for y in y0..=y1 {
        for x in x0..=x1 {
            let [r, g, b, _] = img.pixel(x, y);
            let (r, g, b) = (u16::from(r), u16::from(g), u16::from(b));
            let white = r > 180 && g > 180 && b > 180;
            dots += usize::from(!white && g + 20 < r.max(b) && r.max(b) > 60);
        }
    }
    if dots < 60 {
        return Err(format!(
            "no players on the radar yet ({dots} dot pixels in the radar {x0}..{x1} × {y0}..{y1})"
        ));
    }
    Ok(format!(
        "UI colours {}, radar pitch px {pitch}, player-dot px {dots}",
        colours.len()
    ))
}

#[test]
fn desktop_shows_the_ui_and_the_overlay_with_players_on_the_radar() {
    let (_x, display) = xvfb();
    let data = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let web_data = tempfile::tempdir().unwrap(); // WebKit's storage (XDG_DATA_HOME)
    let port = sportz_testkit::free_port();
    let log = data.path().join("desktop.log");
    let mut cmd = desktop_app(&display, port, data.path(), runtime.path(), &log, &[]);
    let app = Child(cmd.env("XDG_DATA_HOME", web_data.path()).spawn().unwrap());
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("desktop-screenshot.png");
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut app = app;
    let verdict = loop {
        std::thread::sleep(Duration::from_secs(3));
        if let Some(status) = app.0.try_wait().unwrap() {
            let log = std::fs::read_to_string(data.path().join("desktop.log")).unwrap_or_default();
            panic!("the desktop app exited ({status}):\n{log}");
        }
        let result = screenshot(&display, &out)
            .map_or_else(|| Err("no screenshot".into()), |img| check(&img));
        match result {
            Ok(v) => break v,
            Err(why) if Instant::now() > deadline => {
                let log =
                    std::fs::read_to_string(data.path().join("desktop.log")).unwrap_or_default();
                panic!("after 120 s: {why}; screenshot {}\n{log}", out.display());
            }
            Err(_) => {}
        }
    };
    eprintln!("desktop screenshot {}: {verdict}", out.display());

    // the window is the operator without a pasted token: the run's token is in its storage
    // (WebKit's localStorage, UTF-16 in SQLite), the API takes it, and it is in no log
    let deadline = Instant::now() + Duration::from_secs(30);
    let token = loop {
        if let Some(t) = stored_operator_token(web_data.path()) {
            break t;
        }
        assert!(
            Instant::now() < deadline,
            "no operator token in the window's storage under {}",
            web_data.path().display()
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    assert!(
        token.starts_with("sportz_local_") && token.len() == 13 + 64,
        "{token}"
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let body = serde_json::json!({"homeTeam": "Desk", "awayTeam": "Top"});
        let (code, v) = sportz_e2e::Api::new(port, &token)
            .post("/matches", Some(&body))
            .await;
        assert_eq!(code, 201, "the window's token is an operator's: {v}");
        let (code, _) = sportz_e2e::Api::new(port, "sportz_local_not-it")
            .post("/matches", Some(&body))
            .await;
        assert_eq!(code, 401);
    });
    let log = std::fs::read_to_string(data.path().join("desktop.log")).unwrap_or_default();
    assert!(!log.contains(&token), "the window's token is never logged");
}

/// The operator token the UI window stored (`localStorage["sportz.operatorToken"]`), read from
/// the raw bytes of WebKit's localStorage database and its WAL under `xdg_data`.
fn stored_operator_token(xdg_data: &Path) -> Option<String> {
    let dir = xdg_data.join("app.sportz.desktop").join("localstorage");
    let utf16 = |s: &str| -> Vec<u8> { s.encode_utf16().flat_map(u16::to_le_bytes).collect() };
    let prefix = utf16("sportz_local_");
    for entry in std::fs::read_dir(dir).ok()?.filter_map(Result::ok) {
        let bytes = std::fs::read(entry.path()).ok()?;
        if let Some(at) = bytes
            .windows(prefix.len())
            .position(|w| w == prefix.as_slice())
        {
            let hex: String = bytes[at + prefix.len()..]
                .chunks(2)
                .take(64)
                .map_while(|c| {
                    let ch = char::from(c[0]);
                    (c.len() == 2 && c[1] == 0 && ch.is_ascii_hexdigit()).then_some(ch)
                })
                .collect();
            if hex.len() == 64 {
                return Some(format!("sportz_local_{hex}"));
            }
        }
    }
    None
}

/// The desktop app on `display`, serving on `port` with `data` as its data dir and its log in
/// `log`: the built-in detector, the operator token `e2e-token`, then `extra` flags.
fn desktop_app(
    display: &str,
    port: u16,
    data: &Path,
    runtime: &Path,
    log: &Path,
    extra: &[&str],
) -> Command {
    let mut cmd = Command::new(sportz_bin());
    cmd.args(["--bind", &format!("127.0.0.1:{port}")])
        .args(extra)
        .arg("--data-dir")
        .arg(data)
        .env("DISPLAY", display)
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("SPORTZ_MODEL")
        .env("XDG_RUNTIME_DIR", runtime)
        .env("SPORTZ_OPERATOR_TOKEN", "e2e-token")
        .env("SPORTZ_LOG", "info")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap());
    cmd
}

/// The names of the top-level windows on `display` (`xwininfo -root -tree`).
fn window_names(display: &str) -> String {
    Command::new("xwininfo")
        .args(["-display", display, "-root", "-tree"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .expect("xwininfo (x11-utils; scripts/setup installs it)")
}

#[test]
fn the_overlay_draws_a_match_whose_worker_runs_elsewhere_from_the_bus() {
    let redis = sportz_testkit::RedisServer::start();
    let (_x, display) = xvfb();
    let dir = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    // the worker "on another machine": its own process and data dir, on the shared Redis
    let _remote = Child(
        Command::new(sportz_bin())
            .args(["worker", "--redis", &redis.url(), "--worker-id", "remote"])
            .arg("--data-dir")
            .arg(dir.path().join("remote"))
            .env_remove("SPORTZ_MODEL")
            .env("SPORTZ_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let port = sportz_testkit::free_port();
    let log = dir.path().join("desktop.log");
    let mut app = Child(
        desktop_app(
            &display,
            port,
            &dir.path().join("desktop"),
            runtime.path(),
            &log,
            &["--redis", &redis.url()],
        )
        .spawn()
        .unwrap(),
    );
    // two synthetic matches (the demo and one more) for two workers of capacity 1: one of
    // them runs in the other process, whichever the workers took
    let base = format!("http://127.0.0.1:{port}");
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let api = sportz_e2e::Api::new(port, "e2e-token");
        api.wait_healthy(90).await;
        let (code, m) = api
            .post(
                "/matches",
                Some(&serde_json::json!({"homeTeam": "Away", "awayTeam": "Day",
                    "videoSource": {"type": "synthetic", "value": 5}})),
            )
            .await;
        assert_eq!(code, 201, "{m}");
        let id = m["data"]["id"].as_str().unwrap().to_owned();
        let (code, v) = api.post(&format!("/matches/{id}/start"), None).await;
        assert_eq!(code, 200, "{v}");
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if window_names(&display).contains("worker elsewhere") {
            break;
        }
        if let Some(status) = app.0.try_wait().unwrap() {
            panic!(
                "the desktop app exited ({status}):\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        assert!(
            Instant::now() < deadline,
            "the overlay never drew the remote worker's match ({base}):\n{}\n{}",
            window_names(&display),
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("desktop-remote-screenshot.png");
    let shot = screenshot(&display, &out);
    eprintln!(
        "overlay titled for a remote worker; screenshot {} ({})",
        out.display(),
        if shot.is_some() { "taken" } else { "failed" }
    );
}

/// `xdotool ARGS` on `display`: its stdout, or `None` when it failed (no such window yet).
fn xdotool(display: &str, args: &[&str]) -> Option<String> {
    let out = Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .output()
        .expect("xdotool (scripts/setup installs it)");
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The first window whose name matches `name`.
fn window(display: &str, name: &str) -> Option<String> {
    xdotool(display, &["search", "--name", name])?
        .lines()
        .next()
        .map(str::to_owned)
}

#[test]
fn a_video_opened_in_the_native_dialog_becomes_a_started_match() {
    let (_x, display) = xvfb();
    let dir = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let web_data = tempfile::tempdir().unwrap();
    // a real clip with a name of its own
    let synth = dir.path().join("synth");
    let out = sportz_e2e::run_sportz(&[
        "synth",
        "--seed",
        "31",
        "--seconds",
        "3",
        "--size",
        "640x360",
        "--no-cuts",
        "--out",
        synth.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let clip = dir.path().join("Dialog derby.mp4");
    std::fs::rename(synth.join("match.mp4"), &clip).unwrap();
    let port = sportz_testkit::free_port();
    let log = dir.path().join("desktop.log");
    let mut app = Child(
        desktop_app(
            &display,
            port,
            &dir.path().join("data"),
            runtime.path(),
            &log,
            &["--no-demo"],
        )
        .env("XDG_DATA_HOME", web_data.path())
        .spawn()
        .unwrap(),
    );
    let log_text = || std::fs::read_to_string(&log).unwrap_or_default();
    // Ctrl+O in the UI window (clicked first, so the page has the keyboard) until the dialog
    // shows: the page may still be loading on the first tries
    let deadline = Instant::now() + Duration::from_secs(90);
    let dialog = loop {
        if let Some(status) = app.0.try_wait().unwrap() {
            panic!("the desktop app exited ({status}):\n{}", log_text());
        }
        if let Some(d) = window(&display, "Open a video") {
            break d;
        }
        assert!(
            Instant::now() < deadline,
            "no file dialog after Ctrl+O in 90 s:\n{}\n{}",
            window_names(&display),
            log_text()
        );
        if let Some(ui) = window(&display, "bind 0.0.0.0 for LAN viewers") {
            let _ = xdotool(&display, &["windowfocus", "--sync", &ui]);
            let _ = xdotool(
                &display,
                &["mousemove", "--window", &ui, "550", "760", "click", "1"],
            );
            let _ = xdotool(&display, &["key", "ctrl+o"]);
        }
        std::thread::sleep(Duration::from_secs(2));
    };
    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("desktop-file-dialog.png");
    let _ = screenshot(&display, &shot);
    // type the path as a user would: the location field (Ctrl+L), the path, Enter
    let path = clip.to_str().unwrap();
    let _ = xdotool(&display, &["windowfocus", "--sync", &dialog]);
    let _ = xdotool(&display, &["key", "ctrl+l"]);
    std::thread::sleep(Duration::from_millis(300));
    let _ = xdotool(&display, &["type", "--delay", "15", path]);
    std::thread::sleep(Duration::from_millis(300));
    let _ = xdotool(&display, &["key", "Return"]);

    let rt = tokio::runtime::Runtime::new().unwrap();
    let m = rt.block_on(async {
        let api = sportz_e2e::Api::new(port, "e2e-token");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = app.0.try_wait().unwrap() {
                panic!("the desktop app exited ({status}):\n{}", log_text());
            }
            // a transport error (a pooled connection the server just closed) is asked again
            let list = match api.http.get(format!("{}/matches", api.base)).send().await {
                Ok(r) => r.json::<serde_json::Value>().await.unwrap_or_default(),
                Err(_) => serde_json::Value::Null,
            };
            let found = list["data"]
                .as_array()
                .and_then(|a| a.iter().find(|m| m["name"] == "Dialog derby"))
                .cloned();
            // created first, then calibrated from a still and started
            if let Some(m) = &found
                && m["status"] != "ready"
            {
                break m.clone();
            }
            assert!(
                Instant::now() < deadline,
                "no started match for the chosen file ({found:?}; dialog screenshot {}):\n{}",
                shot.display(),
                log_text()
            );
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    });
    assert_eq!(
        m["videoSource"]["value"],
        clip.canonicalize().unwrap().display().to_string(),
        "{m}"
    );
    assert!(
        matches!(
            m["status"].as_str(),
            Some("starting" | "processing" | "completed")
        ),
        "started: {m}"
    );
    assert!(
        window(&display, "Open a video").is_none_or(|d| {
            // hidden for the next time, not gone: it must not be mapped
            xdotool(
                &display,
                &["search", "--onlyvisible", "--name", "Open a video"],
            )
            .is_none_or(|v| !v.contains(&d))
        }),
        "the dialog closed"
    );
    eprintln!("opened {} through the dialog: {}", clip.display(), m["id"]);
}
