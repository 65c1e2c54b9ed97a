//! Fan-out load tool (issue 20): N match-centre clients on `/ws`, all subscribed to one match;
//! commentary POSTed at fixed rates (open loop: a POST starts on schedule whether or not the
//! previous one has answered); latency from the start of each POST to its receipt by each
//! client. The same tool measures sportz and the Node reference (`bench/fanout/node`), so the two
//! are compared with one load generator; `scripts/bench-fanout` runs both in one go.
//!
//! Run against a server that is already up:
//!   cargo run --release -p sportz-api --example fanout_bench -- --url http://127.0.0.1:8080 \
//!     --token T --pid PID --clients 1000 --rates 20,50,100,200 --seconds 10
//!
//! Prints one `result` line per rate (machine-readable `key=value` pairs) and a summary.
//! `--stalled N` adds N clients that subscribe and never read (a stalled browser); they are not
//! counted, and the others' latency shows whether they slow anyone down.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

mod common;
use common::{arg, pct, rss_kb};

/// The `sequence` of a commentary broadcast, without parsing the whole message (the tool must
/// stay cheaper than the servers it measures).
fn sequence_of(text: &str) -> Option<u32> {
    if !text.contains("\"commentary\"") {
        return None;
    }
    let at = text.find("\"sequence\":")? + "\"sequence\":".len();
    let digits: String = text[at..]
        .chars()
        .skip_while(|c| *c == ' ')
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// What every client shares: when each POST started, and the tallies.
struct Shared {
    t0: Instant,
    /// nanoseconds since `t0` at which the POST of sequence `i` started (0: not sent).
    started: Vec<AtomicU64>,
    /// nanoseconds since `t0` at which the first client received sequence `i` (`u64::MAX`: none).
    first: Vec<AtomicU64>,
    /// the first sequence of the rate being measured (earlier ones are not counted).
    window_start: AtomicU64,
    deliveries: AtomicU64,
    last_delivery_ns: AtomicU64,
    errors: AtomicU64,
    connected: AtomicU64,
    stop: AtomicBool,
}

async fn client(
    url: String,
    m: String,
    sh: Arc<Shared>,
    lat: Arc<std::sync::Mutex<Vec<f64>>>,
    permit: tokio::sync::OwnedSemaphorePermit,
) {
    let Ok((mut ws, _)) = tokio_tungstenite::connect_async(&url).await else {
        sh.errors.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let sub = json!({"type": "subscribe", "matchId": m}).to_string();
    if ws.send(Message::Text(sub.into())).await.is_err() {
        sh.errors.fetch_add(1, Ordering::Relaxed);
        return;
    }
    // wait for `subscribed` so a client counts as connected only once it is in the room
    loop {
        match ws.next().await {
            Some(Ok(Message::Text(t))) if t.as_str().contains("\"subscribed\"") => break,
            Some(Ok(_)) => {}
            _ => {
                sh.errors.fetch_add(1, Ordering::Relaxed);
                return;
            }
        }
    }
    drop(permit);
    sh.connected.fetch_add(1, Ordering::Relaxed);
    let mut mine = Vec::new();
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    loop {
        let msg = tokio::select! {
            msg = ws.next() => msg,
            _ = tick.tick() => {
                if sh.stop.load(Ordering::Relaxed) { break; }
                if !mine.is_empty() {
                    lat.lock().unwrap_or_else(std::sync::PoisonError::into_inner).append(&mut mine);
                }
                continue;
            }
        };
        match msg {
            Some(Ok(Message::Text(t))) => {
                let Some(seq) = sequence_of(t.as_str()) else {
                    continue;
                };
                let now = sh.t0.elapsed().as_nanos() as u64;
                let started = sh
                    .started
                    .get(seq as usize)
                    .map_or(0, |s| s.load(Ordering::Relaxed));
                if started == 0 || u64::from(seq) < sh.window_start.load(Ordering::Relaxed) {
                    continue;
                }
                mine.push((now - started) as f64 / 1e6);
                sh.first[seq as usize].fetch_min(now, Ordering::Relaxed);
                sh.deliveries.fetch_add(1, Ordering::Relaxed);
                sh.last_delivery_ns.fetch_max(now, Ordering::Relaxed);
            }
            Some(Ok(_)) => {}
            Some(Err(_)) | None => {
                sh.errors.fetch_add(1, Ordering::Relaxed);
                break;
            }
        }
    }
    lat.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .append(&mut mine);
}

#[tokio::main]
async fn main() {
    let base = arg("--url", "http://127.0.0.1:8080");
    let token = arg("--token", "");
    let pid: u32 = arg("--pid", "0").parse().expect("--pid PID");
    let clients: usize = arg("--clients", "1000").parse().expect("--clients N");
    let seconds: f64 = arg("--seconds", "10").parse().expect("--seconds S");
    let label = arg("--label", "server");
    // clients that subscribe and then never read (a stalled browser): the others must not notice
    let stalled: usize = arg("--stalled", "0").parse().expect("--stalled N");
    let rates: Vec<f64> = arg("--rates", "20,50,100,200")
        .split(',')
        .map(|r| {
            r.trim()
                .parse()
                .expect("--rates R1,R2,… (posts per second)")
        })
        .collect();
    let max_posts = rates
        .iter()
        .map(|r| (r * seconds).ceil() as usize + 2)
        .sum::<usize>()
        + 8;

    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(256)
        .build()
        .expect("http client");
    let auth = |r: reqwest::RequestBuilder| {
        if token.is_empty() {
            r
        } else {
            r.bearer_auth(&token)
        }
    };
    let mut up = false;
    for _ in 0..400 {
        if http
            .get(format!("{base}/health"))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            up = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(up, "{base}/health did not answer within 20 s");
    let created: Value = auth(http.post(format!("{base}/matches")))
        .json(&json!({"homeTeam": "Load", "awayTeam": "Test", "videoSource": {"type": "synthetic", "value": 1}}))
        .send()
        .await
        .expect("POST /matches")
        .json()
        .await
        .expect("POST /matches answers JSON");
    let m = created["data"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("POST /matches answered {created}"))
        .to_owned();

    let sh = Arc::new(Shared {
        t0: Instant::now(),
        started: (0..max_posts).map(|_| AtomicU64::new(0)).collect(),
        first: (0..max_posts).map(|_| AtomicU64::new(u64::MAX)).collect(),
        window_start: AtomicU64::new(0),
        deliveries: AtomicU64::new(0),
        last_delivery_ns: AtomicU64::new(0),
        errors: AtomicU64::new(0),
        connected: AtomicU64::new(0),
        stop: AtomicBool::new(false),
    });
    let lat = Arc::new(std::sync::Mutex::new(Vec::<f64>::new()));
    let rss_idle = rss_kb(pid);
    let ws_url = format!("{}/ws", base.replacen("http", "ws", 1));
    let t_connect = Instant::now();
    let sem = Arc::new(tokio::sync::Semaphore::new(100));
    let mut tasks = Vec::with_capacity(clients);
    for _ in 0..clients {
        let (url, m, sh, lat, sem) = (
            ws_url.clone(),
            m.clone(),
            sh.clone(),
            lat.clone(),
            sem.clone(),
        );
        tasks.push(tokio::spawn(async move {
            // at most 100 handshakes at a time; the permit is released once subscribed
            let permit = sem.acquire_owned().await.expect("semaphore");
            client(url, m, sh, lat, permit).await;
        }));
    }
    while (sh.connected.load(Ordering::Relaxed) + sh.errors.load(Ordering::Relaxed))
        < clients as u64
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut stalled_sockets = Vec::with_capacity(stalled);
    for _ in 0..stalled {
        let (mut ws, _) = tokio_tungstenite::connect_async(&ws_url)
            .await
            .expect("a stalled client connects");
        let sub = json!({"type": "subscribe", "matchId": m}).to_string();
        ws.send(Message::Text(sub.into())).await.expect("subscribe");
        stalled_sockets.push(ws); // never read again
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_connected = rss_kb(pid);
    let connected = sh.connected.load(Ordering::Relaxed);
    let per_conn = rss_connected.saturating_sub(rss_idle) as f64 / connected.max(1) as f64;
    println!(
        "{label}: {connected} clients subscribed in {:.1} s ({} errors); server rss idle {} MiB, connected {} MiB, {per_conn:.1} KiB per idle connection",
        t_connect.elapsed().as_secs_f64(),
        sh.errors.load(Ordering::Relaxed),
        rss_idle / 1024,
        rss_connected / 1024,
    );

    let mut seq: u64 = 1;
    for rate in rates {
        let errors_before = sh.errors.load(Ordering::Relaxed);
        sh.window_start.store(seq, Ordering::Relaxed);
        sh.deliveries.store(0, Ordering::Relaxed);
        lat.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clear();
        let posts = (rate * seconds).round() as u64;
        let interval = Duration::from_secs_f64(1.0 / rate);
        let post_failures = Arc::new(AtomicU64::new(0));
        let start_ns = sh.t0.elapsed().as_nanos() as u64;
        let t_rate = Instant::now();
        let mut posting = Vec::with_capacity(posts as usize);
        for i in 0..posts {
            let due = t_rate + interval.mul_f64(i as f64);
            tokio::time::sleep_until(due.into()).await;
            let n = seq + i;
            sh.started[n as usize].store(sh.t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
            let req = auth(http.post(format!("{base}/matches/{m}/commentary"))).json(
                &json!({"sequence": n, "eventType": "load", "message": "load test commentary, a sentence of ordinary length"}),
            );
            let fails = post_failures.clone();
            posting.push(tokio::spawn(async move {
                match req.send().await {
                    Ok(r) if r.status().as_u16() == 201 => {}
                    _ => {
                        fails.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }));
        }
        for p in posting {
            let _ = p.await;
        }
        let sent_ok = posts - post_failures.load(Ordering::Relaxed);
        let expected = sent_ok * connected;
        // let the queues drain: up to 10 s, or until everything arrived
        let drain = Instant::now();
        while sh.deliveries.load(Ordering::Relaxed) < expected
            && drain.elapsed() < Duration::from_secs(10)
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tokio::time::sleep(Duration::from_millis(600)).await; // clients flush their samples
        let delivered = sh.deliveries.load(Ordering::Relaxed);
        let span_s = (sh
            .last_delivery_ns
            .load(Ordering::Relaxed)
            .saturating_sub(start_ns)) as f64
            / 1e9;
        let mut l = lat
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        l.sort_by(f64::total_cmp);
        // the server's own path (POST → store → bus → the first socket), before the fan-out
        let mut firsts: Vec<f64> = (seq..seq + posts)
            .filter_map(|n| {
                let f = sh.first[n as usize].load(Ordering::Relaxed);
                let s = sh.started[n as usize].load(Ordering::Relaxed);
                (f != u64::MAX).then(|| (f - s) as f64 / 1e6)
            })
            .collect();
        firsts.sort_by(f64::total_cmp);
        println!(
            "result label={label} clients={connected} rate={rate} posts={posts} post_failures={} expected={expected} delivered={delivered} lost={} deliveries_per_s={:.0} p50_ms={:.1} p99_ms={:.1} p999_ms={:.1} max_ms={:.1} first_p50_ms={:.1} first_p99_ms={:.1} ws_errors={}",
            posts - sent_ok,
            expected.saturating_sub(delivered),
            delivered as f64 / span_s.max(seconds),
            pct(&l, 0.5),
            pct(&l, 0.99),
            pct(&l, 0.999),
            l.last().copied().unwrap_or(f64::NAN),
            pct(&firsts, 0.5),
            pct(&firsts, 0.99),
            sh.errors.load(Ordering::Relaxed) - errors_before,
        );
        seq += posts;
    }
    drop(stalled_sockets);
    sh.stop.store(true, Ordering::Relaxed);
    for t in tasks {
        t.abort();
    }
}
