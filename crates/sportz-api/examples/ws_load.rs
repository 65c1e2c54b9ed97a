//! WebSocket load tool: starts `sportz api` on a private redis-server, opens N clients on one
//! match's live endpoint (`/ws/matches/{id}`) and M on the match centre (`/ws`, subscribed to the
//! match), drives frames at 25/s (published on the bus, as a worker would) and commentary at
//! 10/s (POSTed, as an operator would), and reports delivery latency p50/p99/p999,
//! deliveries/s, server RSS per connection and errors.
//!
//! Run (after `cargo build --release -p sportz`):
//!   cargo run --release -p sportz-api --example ws_load -- --clients 1000 --seconds 20
//!   cargo run --release -p sportz-api --example ws_load -- --clients 10000 --centre 1000 --seconds 20

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{Value, json};
use sportz_bus::{Bus, ContractBus, RedisBus};
use sportz_contract::Envelope;
use tokio::sync::Mutex;
use tokio_tungstenite::tungstenite::Message;

const TOKEN: &str = "load-tool-operator-token";

mod common;
use common::{arg, pct, rss_kb};

#[derive(Default)]
struct Stats {
    frame_lat: Mutex<Vec<f64>>,
    comm_lat: Mutex<Vec<f64>>,
    deliveries: AtomicU64,
    errors: AtomicU64,
    connected: AtomicU64,
}

#[tokio::main]
async fn main() {
    let clients: usize = arg("--clients", "1000").parse().expect("--clients N");
    let centre: usize = arg("--centre", &clients.min(1000).to_string())
        .parse()
        .expect("--centre M");
    let seconds: u64 = arg("--seconds", "20").parse().expect("--seconds S");
    let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into());
    let bin = arg("--sportz", &format!("{target}/release/sportz"));

    let redis = sportz_testkit::RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let port = sportz_testkit::free_port();
    let mut server = std::process::Command::new(&bin)
        .args([
            "api",
            "--bind",
            &format!("127.0.0.1:{port}"),
            "--redis",
            &redis.url(),
            "--no-rate-limit",
        ])
        .arg("--database")
        .arg(dir.path().join("load.sqlite3"))
        .env("SPORTZ_OPERATOR_TOKEN", TOKEN)
        .env("SPORTZ_LOG", "warn")
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {bin}: {e} (cargo build --release -p sportz)"));
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::new();
    for _ in 0..300 {
        if http
            .get(format!("{base}/health"))
            .send()
            .await
            .is_ok_and(|r| r.status() == 200)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let created: Value = http
        .post(format!("{base}/matches"))
        .bearer_auth(TOKEN)
        .json(&json!({"homeTeam": "Load", "awayTeam": "Test", "videoSource": {"type": "synthetic", "value": 1}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let m = created["data"]["id"].as_str().unwrap().to_owned();
    let rss_idle = rss_kb(server.id());
    println!(
        "command: cargo run --release -p sportz-api --example ws_load -- --clients {clients} --centre {centre} --seconds {seconds}"
    );
    println!(
        "server pid {} rss idle {} MiB",
        server.id(),
        rss_idle / 1024
    );

    let stats = Arc::new(Stats::default());
    let stop = Arc::new(tokio::sync::Notify::new());
    let sem = Arc::new(tokio::sync::Semaphore::new(200));
    let t_connect = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..clients + centre {
        let live = i < clients;
        let url = if live {
            format!("ws://127.0.0.1:{port}/ws/matches/{m}")
        } else {
            format!("ws://127.0.0.1:{port}/ws")
        };
        let (stats, stop, sem, m) = (stats.clone(), stop.clone(), sem.clone(), m.clone());
        tasks.push(tokio::spawn(async move {
            let permit = sem.acquire_owned().await.unwrap();
            let Ok((mut ws, _)) = tokio_tungstenite::connect_async(&url).await else {
                stats.errors.fetch_add(1, Ordering::Relaxed);
                return;
            };
            if !live {
                let sub = json!({"type": "subscribe", "matchId": m}).to_string();
                if futures_util::SinkExt::send(&mut ws, Message::Text(sub.into()))
                    .await
                    .is_err()
                {
                    stats.errors.fetch_add(1, Ordering::Relaxed);
                    return;
                }
            }
            drop(permit);
            stats.connected.fetch_add(1, Ordering::Relaxed);
            let mut lat = Vec::new();
            loop {
                let msg = tokio::select! {
                    () = stop.notified() => break,
                    msg = ws.next() => msg,
                };
                match msg {
                    Some(Ok(Message::Text(t))) => {
                        let v: Value = match serde_json::from_str(t.as_str()) {
                            Ok(v) => v,
                            Err(_) => continue,
                        };
                        let sent = match v["type"].as_str() {
                            Some("frame") => v["ts"].as_f64(),
                            Some("commentary") => v["data"]["metadata"]["sentAt"].as_f64(),
                            _ => None,
                        };
                        if let Some(sent) = sent {
                            lat.push((sportz_contract::unix_now() - sent) * 1000.0);
                            stats.deliveries.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    Some(Ok(_)) => {}
                    Some(Err(_)) | None => {
                        stats.errors.fetch_add(1, Ordering::Relaxed);
                        break;
                    }
                }
            }
            if live {
                stats.frame_lat.lock().await
            } else {
                stats.comm_lat.lock().await
            }
            .extend(lat);
        }));
    }
    while (stats.connected.load(Ordering::Relaxed) + stats.errors.load(Ordering::Relaxed))
        < (clients + centre) as u64
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let rss_connected = rss_kb(server.id());
    println!(
        "connected {} in {:.1} s ({} errors); server rss {} MiB",
        stats.connected.load(Ordering::Relaxed),
        t_connect.elapsed().as_secs_f64(),
        stats.errors.load(Ordering::Relaxed),
        rss_connected / 1024
    );
    tokio::time::sleep(Duration::from_millis(500)).await;

    // drivers: frames at 25/s on the bus, commentary at 10/s over REST
    let bus =
        ContractBus::new(Arc::new(RedisBus::connect(&redis.url()).await.unwrap()) as Arc<dyn Bus>);
    let fixture = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../sportz-contract/tests/fixtures/frame.json"
    ))
    .unwrap();
    let mut frame = Envelope::from_json(&fixture).unwrap();
    frame.match_id = m.parse().unwrap();
    let before = stats.deliveries.load(Ordering::Relaxed);
    let t0 = Instant::now();
    let frames = tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_millis(40));
        let mut n = 0u64;
        while t0.elapsed() < Duration::from_secs(seconds) {
            tick.tick().await;
            frame.seq = n;
            frame.ts = sportz_contract::unix_now();
            bus.publish(&frame).await.unwrap();
            n += 1;
        }
        n
    });
    let (http2, base2, m2) = (http.clone(), base.clone(), m.clone());
    let comments = tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_millis(100));
        let mut n = 0u32;
        while t0.elapsed() < Duration::from_secs(seconds) {
            tick.tick().await;
            n += 1;
            let body = json!({"sequence": n, "eventType": "load", "message": "load test", "metadata": {"sentAt": sportz_contract::unix_now()}});
            let _ = http2
                .post(format!("{base2}/matches/{m2}/commentary"))
                .bearer_auth(TOKEN)
                .json(&body)
                .send()
                .await;
        }
        n
    });
    let mut rss_peak = 0;
    while t0.elapsed() < Duration::from_secs(seconds) {
        rss_peak = rss_peak.max(rss_kb(server.id()));
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let (sent_frames, sent_comments) = (frames.await.unwrap(), comments.await.unwrap());
    tokio::time::sleep(Duration::from_secs(1)).await;
    let elapsed = t0.elapsed().as_secs_f64();
    let delivered = stats.deliveries.load(Ordering::Relaxed) - before;
    stop.notify_waiters();
    for t in tasks {
        let _ = tokio::time::timeout(Duration::from_secs(5), t).await;
    }
    let mut fl = stats.frame_lat.lock().await.clone();
    let mut cl = stats.comm_lat.lock().await.clone();
    fl.sort_by(f64::total_cmp);
    cl.sort_by(f64::total_cmp);
    let expected = sent_frames * clients as u64 + u64::from(sent_comments) * centre as u64;
    println!(
        "sent {sent_frames} frames (25/s) and {sent_comments} commentary (10/s) over {elapsed:.1} s"
    );
    println!(
        "deliveries {delivered} of {expected} expected ({:.1}%), {:.0}/s",
        100.0 * delivered as f64 / expected.max(1) as f64,
        delivered as f64 / elapsed
    );
    println!(
        "frame latency ms: p50 {:.1} p99 {:.1} p999 {:.1} (n {})",
        pct(&fl, 0.5),
        pct(&fl, 0.99),
        pct(&fl, 0.999),
        fl.len()
    );
    println!(
        "commentary latency ms: p50 {:.1} p99 {:.1} p999 {:.1} (n {})",
        pct(&cl, 0.5),
        pct(&cl, 0.99),
        pct(&cl, 0.999),
        cl.len()
    );
    let conns = (clients + centre) as f64;
    println!(
        "server rss: idle {} MiB, connected {} MiB, peak under load {} MiB; {:.1} KiB per connection",
        rss_idle / 1024,
        rss_connected / 1024,
        rss_peak / 1024,
        (rss_connected.saturating_sub(rss_idle)) as f64 / conns
    );
    println!("errors: {}", stats.errors.load(Ordering::Relaxed));
    let _ = server.kill();
    let _ = server.wait();
}
