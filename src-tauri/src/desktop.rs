//! The desktop app: the embedded API and worker (the same composition root as `--headless`), a
//! window with the web UI served by that API, and a native window where the wgpu overlay draws
//! the match selected in the UI. Only this module touches Tauri and GTK.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use tokio_util::sync::CancellationToken;

use crate::overlay::Latest;
use crate::system::Mode;

/// The UI window's size; the overlay window sits to its right.
const UI_SIZE: (f64, f64) = (1100.0, 800.0);
const OVERLAY_SIZE: (f64, f64) = (800.0, 450.0);
const LOCAL_TITLE: &str = "sportz — pitch overlay";
/// The overlay says when what it draws comes from a worker on another machine.
const REMOTE_TITLE: &str =
    "sportz — pitch overlay (worker elsewhere: boxes and radar from the bus, no video)";

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
    let operator_script = system
        .local_operator_token
        .as_deref()
        .map(|t| operator_script(t, addr.port()));
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
            let mut ui =
                tauri::WebviewWindowBuilder::new(app, "main", tauri::WebviewUrl::External(url))
                    .title(format!("sportz — {join}"))
                    .inner_size(UI_SIZE.0, UI_SIZE.1)
                    .position(0.0, 0.0);
            if let Some(script) = &operator_script {
                ui = ui.initialization_script(script);
            }
            let ui = ui.build()?;
            // a video file dropped on the window becomes a started match, shown at once
            let (dropped_on, state, rt) = (ui.clone(), api_state.clone(), handle.clone());
            ui.on_window_event(move |e| {
                if let tauri::WindowEvent::DragDrop(tauri::DragDropEvent::Drop { paths, .. }) = e {
                    for path in paths.clone() {
                        let (ui, state) = (dropped_on.clone(), state.clone());
                        rt.spawn(async move {
                            let script = match crate::open_video::open_video(&state, &path).await {
                                Ok(id) => format!("location.hash = '#/match/{id}';"),
                                Err(why) => notice_script(&why),
                            };
                            let _ = ui.eval(&script);
                        });
                    }
                }
            });
            let overlay = tauri::window::WindowBuilder::new(app, "overlay")
                .title(LOCAL_TITLE)
                .inner_size(OVERLAY_SIZE.0, OVERLAY_SIZE.1)
                .position(UI_SIZE.0 + 10.0, 0.0)
                .build()?;
            std::thread::Builder::new()
                .name("overlay".into())
                .spawn(move || draw_loop(&overlay, &ui, &latest))?;
            Ok(())
        })
        .build(tauri::generate_context!("../tauri.conf.json"))
        .context("cannot start the desktop window")?;
    app.run(|_, _| {});
    shutdown.cancel();
    rt.block_on(system)
        .map_err(|_| anyhow::anyhow!("the embedded system panicked"))?
}

/// The script the desktop's own window runs before each page: it stores the run's operator
/// token where the web UI keeps one (`localStorage["sportz.operatorToken"]`), only on the local
/// server's origin — the token is never in a URL, and LAN browsers never see it.
fn operator_script(token: &str, port: u16) -> String {
    let (origin, token) = (
        serde_json::to_string(&format!("http://127.0.0.1:{port}")).unwrap_or_default(),
        serde_json::to_string(token).unwrap_or_default(),
    );
    format!(
        "if (location.origin === {origin}) {{ try {{ localStorage.setItem('sportz.operatorToken', {token}); }} catch (e) {{}} }}"
    )
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

/// Draws the followed match (the UI's current match, else whichever is playing) at up to 30 fps.
fn draw_loop(window: &tauri::Window, ui: &tauri::WebviewWindow, latest: &Latest) {
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
    let mut titled_remote = false;
    loop {
        let started = Instant::now();
        let Ok(url) = ui.url() else {
            return; // the window closed
        };
        let want = followed_match(url.as_str()).or_else(|| latest.most_recent());
        if want != followed {
            (followed, seen, scene) = (want, None, idle.clone());
        }
        let mut dirty = false;
        if let Some(m) = followed
            && let Some((n, s)) = latest.newer(&m, seen)
        {
            (seen, scene, dirty) = (Some(n), s, true);
            let remote = latest.is_remote(&m);
            if remote != titled_remote {
                titled_remote = remote;
                let _ = window.set_title(if remote { REMOTE_TITLE } else { LOCAL_TITLE });
            }
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
    fn the_operator_script_stores_the_token_on_the_local_origin_only() {
        let s = super::operator_script("sportz_local_ab\"c", 8080);
        assert!(
            s.starts_with(r#"if (location.origin === "http://127.0.0.1:8080")"#),
            "{s}"
        );
        assert!(
            s.contains(r#"localStorage.setItem('sportz.operatorToken', "sportz_local_ab\"c")"#),
            "escaped: {s}"
        );
    }
}
