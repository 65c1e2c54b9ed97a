//! Bus benchmark: pub/sub latency and throughput for 1 KB frame messages on one match channel
//! with 1 and 100 subscribers, and XADD + XREADGROUP + XACK throughput, on both backends.
//!
//! Run: `cargo bench -p sportz-bus --bench bus` (Redis from `REDIS_URL`, else a private
//! redis-server on a free port).

use std::sync::Arc;
use std::time::{Duration, Instant};

use sportz_bus::{Bus, MemoryBus, ReadFrom, RedisBus, SubEvent, Topic};

const PAYLOAD_BYTES: usize = 1024;

fn payload(start: Instant) -> String {
    let nanos = start.elapsed().as_nanos();
    let mut s = format!("{nanos:020}");
    s.extend(std::iter::repeat_n('x', PAYLOAD_BYTES - s.len()));
    s
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

/// Publishes `n` messages `gap` apart; returns (latencies in µs, delivered, lagged, seconds).
async fn pubsub(
    bus: Arc<dyn Bus>,
    subs: usize,
    n: usize,
    gap: Duration,
) -> (Vec<f64>, u64, u64, f64) {
    let channel = format!("bench:{}:detections", std::process::id());
    let start = Instant::now();
    let mut readers = Vec::new();
    for _ in 0..subs {
        let mut sub = bus
            .subscribe(&[Topic::Channel(channel.clone())], 100_000)
            .await
            .expect("subscribe");
        readers.push(tokio::spawn(async move {
            let mut lat = Vec::with_capacity(n);
            let mut lagged = 0;
            let mut got = 0;
            while got + lagged < n as u64 {
                match tokio::time::timeout(Duration::from_secs(10), sub.next()).await {
                    Ok(Some(SubEvent::Message(m))) => {
                        let sent: u128 = m.payload[..20].parse().expect("timestamp");
                        let now = start.elapsed().as_nanos();
                        lat.push((now - sent) as f64 / 1000.0);
                        got += 1;
                    }
                    Ok(Some(SubEvent::Lagged(k))) => lagged += k,
                    Ok(Some(_)) => {}
                    Ok(None) | Err(_) => break,
                }
            }
            (lat, got, lagged)
        }));
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let t0 = Instant::now();
    for _ in 0..n {
        bus.publish(&channel, &payload(start))
            .await
            .expect("publish");
        if !gap.is_zero() {
            tokio::time::sleep(gap).await;
        }
    }
    let mut all = Vec::new();
    let (mut delivered, mut lagged) = (0, 0);
    for r in readers {
        let (lat, got, lag) = r.await.expect("reader");
        all.extend(lat);
        delivered += got;
        lagged += lag;
    }
    let secs = t0.elapsed().as_secs_f64();
    all.sort_by(f64::total_cmp);
    (all, delivered, lagged, secs)
}

async fn streams(bus: Arc<dyn Bus>, n: usize) -> f64 {
    let stream = format!("bench:{}:stream", std::process::id());
    bus.ensure_group(&stream, "g").await.expect("group");
    let data = payload(Instant::now());
    let t0 = Instant::now();
    for _ in 0..n {
        bus.xadd(&stream, &data, n * 2).await.expect("xadd");
    }
    let mut done = 0;
    while done < n {
        let batch = bus
            .read_group(
                &stream,
                "g",
                "c",
                100,
                ReadFrom::New {
                    block: Duration::from_millis(100),
                },
            )
            .await
            .expect("read");
        let ids: Vec<String> = batch.into_iter().map(|e| e.id).collect();
        done += ids.len();
        bus.ack(&stream, "g", &ids).await.expect("ack");
    }
    n as f64 / t0.elapsed().as_secs_f64()
}

async fn run(name: &str, bus: Arc<dyn Bus>) {
    for subs in [1usize, 100] {
        // latency at a steady 1,000 messages/s (40× a 25 fps match)
        let (lat, delivered, lagged, _) =
            pubsub(bus.clone(), subs, 2_000, Duration::from_millis(1)).await;
        println!(
            "| {name} | {subs} | latency @1k msg/s | p50 {:.0} µs | p99 {:.0} µs | delivered {delivered}, lagged {lagged} |",
            percentile(&lat, 0.5),
            percentile(&lat, 0.99)
        );
        // throughput: back-to-back publishing
        let n = if subs == 1 { 50_000 } else { 5_000 };
        let (lat, delivered, lagged, secs) = pubsub(bus.clone(), subs, n, Duration::ZERO).await;
        println!(
            "| {name} | {subs} | max rate | {:.0} published/s | {:.0} deliveries/s | p50 {:.0} µs, p99 {:.0} µs, lagged {lagged} |",
            n as f64 / secs,
            delivered as f64 / secs,
            percentile(&lat, 0.5),
            percentile(&lat, 0.99)
        );
    }
    let rate = streams(bus.clone(), 20_000).await;
    println!("| {name} | – | XADD + XREADGROUP(100) + XACK | {rate:.0} entries/s | | |");
}

#[tokio::main]
async fn main() {
    println!("command: cargo bench -p sportz-bus --bench bus");
    println!("| backend | subscribers | mode | a | b | c |");
    println!("|---|---|---|---|---|---|");
    run("memory", Arc::new(MemoryBus::new())).await;
    let (url, _guard) = sportz_testkit::redis_url();
    let redis = RedisBus::connect(&url).await.expect("redis");
    run("redis", Arc::new(redis)).await;
}
