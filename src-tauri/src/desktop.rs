//! The desktop app: the embedded API and worker (the same composition root as `--headless`), a
//! window with the web UI served by that API, and a native window where the wgpu overlay draws
//! the match selected in the UI. Only this module touches Tauri and GTK.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use tokio_util::sync::CancellationToken;

mod file_dialog;

use crate::overlay::Latest;
use crate::system::Mode;

/// The UI window's size; the overlay window sits to its right.
const UI_SIZE: (f64, f64) = (1100.0, 800.0);
const OVERLAY_SIZE: (f64, f64) = (800.0, 450.0);
const LOCAL_TITLE: &str = "sportz — pitch overlay";
/// The overlay says when what it draws comes from a worker on another machine.
const REMOTE_TITLE: &str =
    "sportz — pitch overlay (worker elsewhere: boxes and radar from the bus, no video)";
const REPLAY_TITLE: &str = "sportz — pitch overlay (replay)";
const REPLAY_NO_VIDEO_TITLE: &str =
    "sportz — pitch overlay (replay; no video: the match's file is not on this machine)";
/// The path the UI's "Open a video…" button (and Ctrl+O) navigates to: caught here, never loaded.
const OPEN_VIDEO_PATH: &str = "/__desktop/open-video";

/// `sportz` with no arguments: starts the system on `rt`, hands `rt` to Tauri and runs the
/// windows until they close.
pub fn run(args: crate::cli::SystemArgs, rt: &tokio::runtime::Runtime) -> anyhow::Result<()> {
    anyhow::ensure!(
        std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some(),
        "the desktop app needs a display (DISPLAY or WAYLAND_DISPLAY); on a server run `sportz --headless`"
    );
    let latest = Latest::default();
    let shutdown = CancellationToken::new();
    let system = rt.block_on(crate::system::start(
        &args,
        Mode::Desktop(latest.sink()),
        shutdown.clone(),
    ))?;
    let addr = system.addr;
    let (api_state, handle) = (system.api_state.clone(), rt.handle().clone());
    let window_script = desktop_script(system.local_operator_token.as_deref(), addr.port());
    // matches whose worker runs elsewhere are drawn from the bus (no video)
    rt.spawn(
        latest
            .clone()
            .follow_bus(system.bus.clone(), shutdown.clone()),
    );
    let system = rt.spawn(system.wait());
    tauri::async_runtime::set(rt.handle().clone());
    let local = format!("http://127.0.0.1:{}/", addr.port());
    let join = match (addr.ip().is_unspecified(), crate::system::lan_address()) {
        (true, Some(ip)) => format!("viewers join at http://{ip}:{}/", addr.port()),
        (true, None) => format!("viewers join on port {}", addr.port()),
        (false, _) => format!("local only ({addr}); bind 0.0.0.0 for LAN viewers"),
    };
    println!("sportz desktop: UI {local} — {join}");
    let url: tauri::Url = local.parse()?;
    let app = tauri::Builder::default()
        .setup(move |app| {
            // "Open a video…" in the UI (and Ctrl+O) navigates to OPEN_VIDEO_PATH on the local
            // origin: caught before loading, it shows the native file dialog instead
            let (app_handle, local_origin) = (app.handle().clone(), local.clone());
            let (chosen_state, chosen_rt) = (api_state.clone(), handle.clone());
            let ui =
                tauri::WebviewWindowBuilder::new(app, "main", tauri::WebviewUrl::External(url))
                    .title(format!("sportz — {join}"))
                    .inner_size(UI_SIZE.0, UI_SIZE.1)
                    .position(0.0, 0.0)
                    .initialization_script(&window_script)
                    .on_navigation(move |to| {
                        if !is_open_video(to, &local_origin) {
                            return true;
                        }
                        if let Some(ui) = tauri::Manager::get_webview_window(&app_handle, "main") {
                            let (ui2, state, rt) =
                                (ui.clone(), chosen_state.clone(), chosen_rt.clone());
                            let _ = ui.run_on_main_thread(move || {
                                let target = ui2.clone();
                                file_dialog::open(&ui2, move |path| {
                                    open_in_ui(&target, &state, &rt, path);
                                });
                            });
                        }
                        false
                    })
                    .build()?;
            // a video file dropped on the window becomes a started match, shown at once
            let (dropped_on, state, rt) = (ui.clone(), api_state.clone(), handle.clone());
            ui.on_window_event(move |e| {
                if let tauri::WindowEvent::DragDrop(tauri::DragDropEvent::Drop { paths, .. }) = e {
                    for path in paths.clone() {
                        open_in_ui(&dropped_on, &state, &rt, path);
                    }
                }
            });
            let overlay = tauri::window::WindowBuilder::new(app, "overlay")
                .title(LOCAL_TITLE)
                .inner_size(OVERLAY_SIZE.0, OVERLAY_SIZE.1)
                .position(UI_SIZE.0 + 10.0, 0.0)
                .build()?;
            let (state, rt) = (api_state.clone(), handle.clone());
            std::thread::Builder::new()
                .name("overlay".into())
                .spawn(move || draw_loop(&overlay, &ui, &latest, &state, &rt))?;
            Ok(())
        })
        .build(tauri::generate_context!("../tauri.conf.json"))
        .context("cannot start the desktop window")?;
    app.run(|_, _| {});
    shutdown.cancel();
    rt.block_on(system)
        .map_err(|_| anyhow::anyhow!("the embedded system panicked"))?
}

/// Opens the video at `path` as a started match (`crate::open_video`) and shows it in the UI
/// window, or tells the user there why not.
pub fn open_in_ui(
    ui: &tauri::WebviewWindow,
    state: &Arc<sportz_api::state::AppState>,
    rt: &tokio::runtime::Handle,
    path: std::path::PathBuf,
) {
    let (ui, state) = (ui.clone(), state.clone());
    rt.spawn(async move {
        let script = match crate::open_video::open_video(&state, &path).await {
            Ok(id) => format!("location.hash = '#/match/{id}';"),
            Err(why) => notice_script(&why),
        };
        let _ = ui.eval(&script);
    });
}

/// Whether a navigation is the UI's "Open a video…" (on the local server's origin only).
fn is_open_video(to: &tauri::Url, local_origin: &str) -> bool {
    to.path() == OPEN_VIDEO_PATH && to.as_str().starts_with(local_origin.trim_end_matches('/'))
}

/// The script the desktop's own window runs before each page, only on the local server's
/// origin: it marks the page as the desktop's (`window.__SPORTZ_DESKTOP__`: the "Open a
/// video…" button, the replay player in the route for the overlay) and stores the run's
/// operator token where the web UI keeps one (`localStorage["sportz.operatorToken"]`) — the
/// token is never in a URL, and LAN browsers never see it.
fn desktop_script(token: Option<&str>, port: u16) -> String {
    let origin = serde_json::to_string(&format!("http://127.0.0.1:{port}")).unwrap_or_default();
    let store = token.map_or_else(String::new, |t| {
        format!(
            " try {{ localStorage.setItem('sportz.operatorToken', {}); }} catch (e) {{}}",
            serde_json::to_string(t).unwrap_or_default()
        )
    });
    format!("if (location.origin === {origin}) {{ window.__SPORTZ_DESKTOP__ = true;{store} }}")
}

/// A message for the user in the UI window (`sportz-notice`, shown by `ui/src/main.ts`).
fn notice_script(message: &str) -> String {
    format!(
        "window.dispatchEvent(new CustomEvent('sportz-notice', {{ detail: {} }}));",
        serde_json::to_string(message).unwrap_or_default()
    )
}

/// The match in a UI location such as `http://…/#/match/mat_01…`.
fn followed_match(url: &str) -> Option<sportz_contract::MatchId> {
    let (_, hash) = url.split_once('#')?;
    let mut parts = hash.split('/').filter(|p| !p.is_empty());
    (parts.next()? == "match")
        .then(|| parts.next()?.parse().ok())
        .flatten()
}

/// Draws the followed match (the UI's current match, else whichever is playing) at up to 30 fps;
/// during a replay in the UI window, the frames of that replay's player.
fn draw_loop(
    window: &tauri::Window,
    ui: &tauri::WebviewWindow,
    latest: &Latest,
    state: &sportz_api::state::AppState,
    rt: &tokio::runtime::Handle,
) {
    let size = |w: &tauri::Window| w.inner_size().map_or((1, 1), |s| (s.width, s.height));
    let mut overlay = match sportz_overlay::WindowOverlay::new(window.clone(), size(window)) {
        Ok(o) => o,
        Err(e) => {
            tracing::error!("the pitch overlay cannot draw: {e}");
            return;
        }
    };
    tracing::info!(adapter = %overlay.describe(), "pitch overlay ready");
    let idle = Arc::new(sportz_overlay::Scene::new(1280, 720));
    let (mut seen, mut drawn_size, mut scene) = (None, (0, 0), idle.clone());
    let mut followed = None;
    let mut title = LOCAL_TITLE;
    let mut replay: Option<crate::replay_overlay::ReplayFollower> = None;
    loop {
        let started = Instant::now();
        let Ok(url) = ui.url() else {
            return; // the window closed
        };
        let mut dirty = false;
        let player = crate::replay_overlay::followed_player(url.as_str());
        if player.as_ref().map(|(_, p)| p) != replay.as_ref().map(|r| &r.player) {
            replay = player
                .and_then(|(m, p)| crate::replay_overlay::ReplayFollower::new(state, rt, m, &p));
            (seen, scene, dirty) = (None, idle.clone(), true);
        }
        if replay.as_ref().is_some_and(|r| r.ended()) {
            replay = None;
        }
        let want_title = if let Some(r) = replay.as_mut() {
            if let Some(s) = r.next_scene() {
                (scene, dirty) = (Arc::new(s), true);
            }
            if r.has_video() == Some(false) {
                REPLAY_NO_VIDEO_TITLE
            } else {
                REPLAY_TITLE
            }
        } else {
            let want = followed_match(url.as_str()).or_else(|| latest.most_recent());
            if want != followed {
                (followed, seen, scene) = (want, None, idle.clone());
            }
            if let Some(m) = followed
                && let Some((n, s)) = latest.newer(&m, seen)
            {
                (seen, scene, dirty) = (Some(n), s, true);
            }
            match followed {
                Some(m) if latest.is_remote(&m) => REMOTE_TITLE,
                _ => LOCAL_TITLE,
            }
        };
        if want_title != title {
            title = want_title;
            let _ = window.set_title(title);
        }
        let now = size(window);
        if dirty || now != drawn_size {
            if let Err(e) = overlay.draw(&scene, now) {
                tracing::warn!("overlay frame skipped: {e}");
            }
            drawn_size = now;
        }
        std::thread::sleep(Duration::from_millis(33).saturating_sub(started.elapsed()));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_followed_match_comes_from_the_ui_route() {
        let id = sportz_contract::MatchId::generate();
        let url = format!("http://127.0.0.1:8080/#/match/{id}");
        assert_eq!(super::followed_match(&url), Some(id));
        assert_eq!(super::followed_match(&format!("{url}/edit")), Some(id));
        assert_eq!(super::followed_match("http://127.0.0.1:8080/#/"), None);
        assert_eq!(
            super::followed_match("http://127.0.0.1:8080/#/match/nope"),
            None
        );
        assert_eq!(super::followed_match("http://127.0.0.1:8080/"), None);
    }

    #[test]
    fn the_window_script_marks_the_desktop_and_stores_the_token_on_the_local_origin_only() {
        let s = super::desktop_script(Some("sportz_local_ab\"c"), 8080);
        assert!(
            s.starts_with(r#"if (location.origin === "http://127.0.0.1:8080")"#),
            "{s}"
        );
        assert!(s.contains("window.__SPORTZ_DESKTOP__ = true;"), "{s}");
        assert!(
            s.contains(r#"localStorage.setItem('sportz.operatorToken', "sportz_local_ab\"c")"#),
            "escaped: {s}"
        );
        let no_token = super::desktop_script(None, 8080);
        assert!(!no_token.contains("localStorage"), "{no_token}");
    }

    #[test]
    fn only_the_local_origin_opens_the_file_dialog() {
        let local = "http://127.0.0.1:8080/";
        let at = |u: &str| super::is_open_video(&u.parse().unwrap(), local);
        assert!(at("http://127.0.0.1:8080/__desktop/open-video"));
        assert!(!at("http://127.0.0.1:8080/#/"));
        assert!(!at("http://127.0.0.1:8080/__desktop/open-video/x"));
        assert!(!at("http://evil.example/__desktop/open-video"));
        assert!(!at("http://127.0.0.1:9090/__desktop/open-video"));
    }
}
