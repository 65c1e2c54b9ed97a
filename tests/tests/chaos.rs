//! The chaos suite: `sportz api` on PostgreSQL and two `sportz worker`s on one Redis (run with
//! an append-only file, as in production), a synthetic match analysed by the built-in detector,
//! and faults at random moments of it — SIGKILL of the worker holding the match (restarted on
//! its data dir after a moment), SIGKILL of the API (restarted), SIGKILL of redis-server
//! (restarted on its files), an immediate stop of PostgreSQL (started again), and Redis killed
//! with the worker holding the match killed during the outage (its events in the spool). After the match
//! the events in the database are compared with the workers' own records of what they
//! published (each session's ledger in its worker's data dir): nothing published may be missing.
//!
//! `SPORTZ_CHAOS_ROUNDS` matches (default 1: the quick check of `scripts/test`),
//! `SPORTZ_CHAOS_FAULTS` faults each (default 3), `SPORTZ_CHAOS_SEED` the seed of the moments
//! and kinds (default: the clock; printed, so a run can be repeated). `scripts/fault-suite`
//! runs more rounds; figures in RELIABILITY.md.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sportz_bus::ContractBus;
use sportz_contract::{EventId, MatchId, SessionId};
use sportz_e2e::{Api, sportz_bin};
use sportz_worker::session::ledger;

const TOKEN: &str = "chaos-test-operator-token";

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The moments and kinds of the faults, reproducible from the printed seed.
struct Rng(sportz_testkit::Rng);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0.next()
    }

    /// Uniform in `[lo, hi)` seconds.
    fn secs(&mut self, lo: f64, hi: f64) -> Duration {
        Duration::from_secs_f64(lo + self.0.unit() * (hi - lo))
    }
}

/// A `sportz` process that can be killed and started again with the same arguments; its
/// output goes to a log file (printed when the test fails).
struct Proc {
    args: Vec<String>,
    log: PathBuf,
    child: Option<Child>,
}

impl Proc {
    fn start(args: &[&str], log: PathBuf) -> Self {
        let mut p = Self {
            args: args.iter().map(|&a| a.to_owned()).collect(),
            log,
            child: None,
        };
        p.spawn();
        p
    }

    fn spawn(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .expect("log file");
        self.child = Some(
            Command::new(sportz_bin())
                .args(&self.args)
                .env("SPORTZ_LOG", "info")
                .env("SPORTZ_OPERATOR_TOKEN", TOKEN)
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .expect("sportz starts"),
        );
    }

    /// SIGKILL.
    fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    fn tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(25)..].join("\n")
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A stored event, as far as the comparison needs it.
#[derive(Debug, Clone)]
struct Stored {
    session: Option<SessionId>,
    kind: String,
    frame: u64,
}

#[derive(Debug, Clone, Copy)]
enum Fault {
    KillWorker,
    KillApi,
    KillRedis,
    StopPostgres,
    /// Redis killed, then the worker holding the match while its events wait in the spool;
    /// Redis back, then the worker (its spool replayed at start).
    KillWorkerInOutage,
}

impl Fault {
    const ALL: [Self; 5] = [
        Self::KillWorker,
        Self::KillApi,
        Self::KillRedis,
        Self::StopPostgres,
        Self::KillWorkerInOutage,
    ];
}

struct Rig {
    redis: sportz_testkit::RedisServer,
    pg: sportz_testkit::PgServer,
    api: Proc,
    /// By worker id.
    workers: BTreeMap<String, Proc>,
    data_dirs: Vec<PathBuf>,
    rest: Api,
    bus: ContractBus,
}

impl Rig {
    fn logs(&self) -> String {
        let mut out = format!("--- api log\n{}\n", self.api.tail());
        for (id, w) in &self.workers {
            out.push_str(&format!("--- worker {id} log\n{}\n", w.tail()));
        }
        out
    }

    /// `GET path` → the body's `data`, `None` while the API does not answer.
    async fn data(&self, path: &str) -> Option<Value> {
        let r = self
            .rest
            .http
            .get(format!("{}{path}", self.rest.base))
            .bearer_auth(TOKEN)
            .timeout(Duration::from_secs(5))
            .send()
            .await
            .ok()?;
        if !r.status().is_success() {
            return None;
        }
        r.json::<Value>().await.ok().map(|v| v["data"].clone())
    }

    /// Waits until the match is `processing` (or done), the API answering; with `lost`, in
    /// another session than that one (the takeover).
    async fn until_running(&self, m: MatchId, lost: Option<SessionId>, secs: u64) -> Value {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            if let Some(v) = self.data(&format!("/matches/{m}")).await {
                let status = v["status"].as_str().unwrap_or("");
                let moved_on = lost.is_none_or(|s| v["currentSessionId"] != s.to_string().as_str());
                if ["completed", "failed"].contains(&status) || (status == "processing" && moved_on)
                {
                    return v;
                }
            }
            assert!(
                Instant::now() < deadline,
                "the match did not run again within {secs} s\n{}",
                self.logs()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Every stored event of the match (id → session), paged through REST.
    async fn stored(&self, m: MatchId) -> Result<HashMap<EventId, Stored>, String> {
        let mut out = HashMap::new();
        let mut cursor: Option<String> = None;
        loop {
            let path = format!(
                "/matches/{m}/events?limit=100{}",
                cursor
                    .as_ref()
                    .map(|c| format!("&cursor={c}"))
                    .unwrap_or_default()
            );
            let r: Value = self
                .rest
                .http
                .get(format!("{}{path}", self.rest.base))
                .bearer_auth(TOKEN)
                .send()
                .await
                .map_err(|e| e.to_string())?
                .json()
                .await
                .map_err(|e| e.to_string())?;
            let items = r["data"].as_array().ok_or_else(|| format!("{path}: {r}"))?;
            for e in items {
                let id: EventId = e["event"]["event_id"]
                    .as_str()
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| format!("no event id in {e}"))?;
                out.insert(
                    id,
                    Stored {
                        session: e["sessionId"].as_str().and_then(|s| s.parse().ok()),
                        kind: e["event"]["kind"].as_str().unwrap_or("").to_owned(),
                        frame: e["event"]["frame_number"].as_u64().unwrap_or(0),
                    },
                );
            }
            match r["nextCursor"].as_str() {
                Some(c) => cursor = Some(c.to_owned()),
                None => return Ok(out),
            }
        }
    }

    /// What both workers' ledgers say this match's sessions published.
    fn published(&self, m: MatchId) -> BTreeMap<SessionId, Vec<EventId>> {
        let mut out = BTreeMap::new();
        for d in &self.data_dirs {
            for e in ledger::entries(&d.join("ledger")).expect("ledger readable") {
                if e.match_id == m {
                    out.entry(e.session_id)
                        .or_insert_with(Vec::new)
                        .extend(e.published);
                }
            }
        }
        out
    }

    /// The match's lease, reconnecting to Redis when it was restarted under the test's client.
    async fn lease(&mut self, m: MatchId) -> Option<sportz_contract::Lease> {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            match self.bus.lease(&m).await {
                Ok(Some(l)) => return Some(l),
                Ok(None) => {}
                Err(e) => {
                    println!("  (the test's Redis client: {e}; reconnecting)");
                    if let Ok(b) = sportz_bus::RedisBus::connect(&self.redis.url()).await {
                        self.bus = ContractBus::new(Arc::new(b));
                    }
                }
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        None
    }

    /// Applies one fault; returns what it did (for the report) and the session it killed.
    async fn fault(&mut self, f: Fault, m: MatchId, rng: &mut Rng) -> (String, Option<SessionId>) {
        match f {
            Fault::KillWorker => {
                let Some(lease) = self.lease(m).await else {
                    return ("no lease to kill".into(), None);
                };
                let w = self
                    .workers
                    .get_mut(&lease.worker_id)
                    .expect("the lease is one of ours");
                w.kill();
                let pause = rng.secs(0.5, 3.0);
                tokio::time::sleep(pause).await;
                w.spawn();
                (
                    format!(
                        "SIGKILL worker {} (back after {:.1} s)",
                        lease.worker_id,
                        pause.as_secs_f64()
                    ),
                    Some(lease.session_id),
                )
            }
            Fault::KillApi => {
                self.api.kill();
                let pause = rng.secs(0.5, 2.0);
                tokio::time::sleep(pause).await;
                self.api.spawn();
                self.rest.wait_healthy(60).await;
                (
                    format!("SIGKILL api (back after {:.1} s)", pause.as_secs_f64()),
                    None,
                )
            }
            Fault::KillRedis => {
                self.redis.kill();
                let pause = rng.secs(0.5, 3.0);
                tokio::time::sleep(pause).await;
                self.redis.restart();
                (
                    format!(
                        "SIGKILL redis-server (back after {:.1} s)",
                        pause.as_secs_f64()
                    ),
                    None,
                )
            }
            Fault::KillWorkerInOutage => {
                let Some(lease) = self.lease(m).await else {
                    return ("no lease to kill".into(), None);
                };
                self.redis.kill();
                let outage = rng.secs(1.0, 3.0);
                tokio::time::sleep(outage).await;
                let w = self
                    .workers
                    .get_mut(&lease.worker_id)
                    .expect("the lease is one of ours");
                w.kill();
                self.redis.restart();
                let pause = rng.secs(0.5, 2.0);
                tokio::time::sleep(pause).await;
                w.spawn();
                (
                    format!(
                        "SIGKILL redis-server, {:.1} s later SIGKILL worker {} (Redis back at once, the worker {:.1} s later)",
                        outage.as_secs_f64(),
                        lease.worker_id,
                        pause.as_secs_f64()
                    ),
                    Some(lease.session_id),
                )
            }
            Fault::StopPostgres => {
                self.pg.stop();
                let pause = rng.secs(1.0, 4.0);
                tokio::time::sleep(pause).await;
                self.pg.restart();
                (
                    format!(
                        "PostgreSQL stopped (immediate), back after {:.1} s",
                        pause.as_secs_f64()
                    ),
                    None,
                )
            }
        }
    }
}

fn synth_clip(dir: &Path) -> (PathBuf, Value) {
    let out = dir.join("synth");
    let o = Command::new(sportz_bin())
        .args([
            "synth",
            "--seed",
            "4242",
            "--seconds",
            "30",
            "--size",
            "640x360",
            "--out",
        ])
        .arg(&out)
        .output()
        .expect("sportz synth runs");
    assert!(o.status.success(), "synth failed: {o:?}");
    let pairs: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("calibration.json")).unwrap())
            .unwrap();
    (out.join("match.mp4"), pairs)
}

#[tokio::test]
async fn random_kills_lose_no_published_event() {
    let rounds: u32 = env_or("SPORTZ_CHAOS_ROUNDS", 1);
    let faults: u32 = env_or("SPORTZ_CHAOS_FAULTS", 3);
    let seed: u64 = env_or(
        "SPORTZ_CHAOS_SEED",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_secs()),
    );
    println!(
        "chaos: seed {seed} (SPORTZ_CHAOS_SEED={seed} repeats it), {rounds} round(s) of {faults} faults"
    );
    let mut rng = Rng(sportz_testkit::Rng::new(seed));
    let dir = tempfile::tempdir().unwrap();
    let (clip, pairs) = synth_clip(dir.path());
    let redis = sportz_testkit::RedisServer::start_persistent();
    let pg = sportz_testkit::PgServer::start();
    let port = sportz_testkit::free_port();
    let (redis_url, pg_url, bind) = (redis.url(), pg.url(), format!("127.0.0.1:{port}"));
    let api = Proc::start(
        &[
            "api",
            "--redis",
            &redis_url,
            "--database",
            &pg_url,
            "--bind",
            &bind,
            "--no-rate-limit",
        ],
        dir.path().join("api.log"),
    );
    let mut workers = BTreeMap::new();
    let mut data_dirs = Vec::new();
    for id in ["w-a", "w-b"] {
        let d = dir.path().join(id);
        workers.insert(
            id.to_owned(),
            Proc::start(
                &[
                    "worker",
                    "--redis",
                    &redis_url,
                    "--worker-id",
                    id,
                    "--data-dir",
                    d.to_str().unwrap(),
                ],
                dir.path().join(format!("{id}.log")),
            ),
        );
        data_dirs.push(d);
    }
    let bus = ContractBus::new(Arc::new(
        sportz_bus::RedisBus::connect(&redis_url).await.unwrap(),
    ));
    let mut rig = Rig {
        redis,
        pg,
        api,
        workers,
        data_dirs,
        rest: Api::new(port, TOKEN),
        bus,
    };
    rig.rest.wait_healthy(60).await;
    let deadline = Instant::now() + Duration::from_secs(90);
    while rig.bus.heartbeats().await.map_or(0, |h| h.len()) < 2 {
        assert!(
            Instant::now() < deadline,
            "the workers never beat\n{}",
            rig.logs()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    for round in 1..=rounds {
        let (code, created) = rig
            .rest
            .post(
                "/matches",
                Some(&json!({"homeTeam": "A", "awayTeam": "B",
                    "videoSource": {"type": "file", "value": clip.display().to_string()}})),
            )
            .await;
        assert_eq!(code, 201, "{created}");
        let m: MatchId = created["data"]["id"].as_str().unwrap().parse().unwrap();
        let (code, v) = rig
            .rest
            .send(
                reqwest::Method::PUT,
                &format!("/matches/{m}/calibration"),
                Some(&json!({ "pairs": pairs })),
            )
            .await;
        assert_eq!(code, 200, "{v}");
        let (code, v) = rig.rest.post(&format!("/matches/{m}/start"), None).await;
        assert_eq!(code, 200, "{v}");
        rig.until_running(m, None, 90).await;

        let mut done = Vec::new();
        let mut killed: BTreeSet<SessionId> = BTreeSet::new();
        for _ in 0..faults {
            tokio::time::sleep(rng.secs(1.0, 6.0)).await;
            let v = rig.until_running(m, None, 60).await;
            if v["status"] != "processing" {
                break; // the match ended before the fault
            }
            let f = Fault::ALL[(rng.next() % Fault::ALL.len() as u64) as usize];
            let started = Instant::now();
            let (what, session) = rig.fault(f, m, &mut rng).await;
            killed.extend(session);
            let v = rig.until_running(m, session, 60).await;
            done.push(format!(
                "{what}; {} again {:.1} s after the fault began",
                v["status"].as_str().unwrap_or("?"),
                started.elapsed().as_secs_f64()
            ));
        }

        // to the end of the match
        let deadline = Instant::now() + Duration::from_secs(300);
        let end = loop {
            if let Some(v) = rig.data(&format!("/matches/{m}")).await
                && ["completed", "failed", "stopped"].contains(&v["status"].as_str().unwrap_or(""))
            {
                break v;
            }
            assert!(
                Instant::now() < deadline,
                "the match never ended\n{}",
                rig.logs()
            );
            tokio::time::sleep(Duration::from_millis(500)).await;
        };
        assert_eq!(
            end["status"],
            "completed",
            "round {round}: the match did not complete after {done:?}: {end}\n{}",
            rig.logs()
        );

        // the store catches up with what was published (the API may still be reading)
        let published = rig.published(m);
        let all_published: BTreeSet<EventId> = published.values().flatten().copied().collect();
        let deadline = Instant::now() + Duration::from_secs(40);
        let stored = loop {
            let s = rig.stored(m).await;
            match &s {
                Ok(s) if all_published.iter().all(|id| s.contains_key(id)) => break s.clone(),
                _ if Instant::now() > deadline => break s.expect("the events can be listed"),
                _ => {}
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        };
        let lost: Vec<&EventId> = all_published
            .iter()
            .filter(|id| !stored.contains_key(id))
            .collect();
        // stored without a ledger line: published in the moment between the bus taking the
        // event and the ledger's append when that worker was killed
        let unrecorded: Vec<(&EventId, &Stored)> = stored
            .iter()
            .filter(|(id, _)| !all_published.contains(id))
            .collect();
        let twice = published.values().map(Vec::len).sum::<usize>() - all_published.len();
        // the same kind at the same frame stored from two sessions: one event detected again
        // under a new id by the session that took the match over
        let mut seen: HashMap<(&str, u64), BTreeSet<Option<SessionId>>> = HashMap::new();
        for e in stored.values() {
            seen.entry((&e.kind, e.frame))
                .or_default()
                .insert(e.session);
        }
        let redetected = seen.values().filter(|s| s.len() > 1).count();
        let sessions = rig
            .data(&format!("/matches/{m}/sessions"))
            .await
            .unwrap_or_default();
        println!(
            "chaos round {round}: {} session(s), {} events published (workers' ledgers), {} stored, {} lost, {} stored without a ledger line, {} published twice (stored once), {} detected again by a later session (same kind and frame)",
            sessions.as_array().map_or(0, Vec::len),
            all_published.len(),
            stored.len(),
            lost.len(),
            unrecorded.len(),
            twice,
            redetected,
        );
        for d in &done {
            println!("  fault: {d}");
        }
        for (s, ids) in &published {
            let in_store = stored.values().filter(|x| x.session == Some(*s)).count();
            println!(
                "  session {s}: {} published, {in_store} stored under it",
                ids.len()
            );
        }
        assert!(
            lost.is_empty(),
            "round {round}: published events missing from the database: {lost:?} after {done:?}\n{}",
            rig.logs()
        );
        assert!(
            unrecorded
                .iter()
                .all(|(_, e)| e.session.is_some_and(|s| killed.contains(&s))),
            "round {round}: stored events no worker recorded publishing, not from a killed session: {unrecorded:?}"
        );
        assert!(!all_published.is_empty(), "round {round}: no events at all");
    }
}
