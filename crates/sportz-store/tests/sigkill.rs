//! Durability of the embedded store: a process killed with SIGKILL right after a committed write
//! loses nothing.
//!
//! This test binary runs itself again as a child (selected by an environment variable) that opens
//! a SQLite file, commits writes and prints `committed …` after each; the parent reads those lines,
//! kills the child with SIGKILL, reopens the file and checks that every write the child reported is
//! there and that the database is intact. Two scenarios: the child idles after its writes, and the
//! child is killed while it keeps writing. (`harness = false`: the child mode is not a test.)

use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use sportz_contract::{EventData, EventId, EventKind, MatchId};
use sportz_store::{
    EventFilter, NewCommentary, NewEvent, NewMatch, PageRequest, SqliteStore, Store,
};

const CHILD_ENV: &str = "SPORTZ_STORE_SIGKILL_CHILD";

fn event(frame: u64) -> EventData {
    EventData {
        event_id: EventId::generate(),
        kind: EventKind::Pass,
        video_timestamp: frame as f64 / 25.0,
        timestamp: 1_780_000_000.0,
        frame_number: frame,
        pitch: None,
        team: None,
        player_track_id: None,
        confidence: 0.5,
        details: serde_json::Map::new(),
    }
}

/// The child: commits, reports, and (in `idle` mode) waits to be killed.
fn child(mode: &str, path: &str) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let store = SqliteStore::open(path).await.expect("open");
        let m = store
            .create_match(NewMatch::new("Crash test", "Home", "Away"))
            .await
            .expect("create match");
        println!("committed match {}", m.id);
        store.update_score(m.id, 3, 2).await.expect("score");
        println!("committed score 3 2");
        let c = store
            .add_commentary(NewCommentary::new(m.id, 1, "goal", "just before the crash"))
            .await
            .expect("commentary");
        println!("committed commentary {}", c.id);
        for frame in 0.. {
            let data = event(frame);
            let id = data.event_id;
            store
                .insert_event(NewEvent {
                    match_id: m.id,
                    session_id: None,
                    data,
                })
                .await
                .expect("event");
            println!("committed event {id}");
            if mode == "idle" {
                println!("idle");
                break;
            }
        }
        // wait for the SIGKILL; give up after a minute so an orphan never lingers
        tokio::time::sleep(Duration::from_secs(60)).await;
    });
}

struct Reported {
    match_id: MatchId,
    commentary: i64,
    events: Vec<EventId>,
}

/// Runs a child, reads its reports until `stop_after` events (or `idle`), kills it with SIGKILL.
fn run_and_kill(mode: &str, path: &Path, stop_after: usize) -> Reported {
    let mut child = Command::new(std::env::current_exe().expect("own path"))
        .env(CHILD_ENV, format!("{mode}:{}", path.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn the child");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut lines = BufReader::new(stdout).lines();
    let mut next = || {
        lines
            .next()
            .expect("the child ended before reporting (see its stderr above)")
            .expect("read the child's output")
    };
    let match_id = next()
        .strip_prefix("committed match ")
        .expect("a match report")
        .parse()
        .expect("a match id");
    assert_eq!(next(), "committed score 3 2");
    let commentary = next()
        .strip_prefix("committed commentary ")
        .expect("a commentary report")
        .parse()
        .expect("a commentary id");
    let mut events = Vec::new();
    loop {
        let line = next();
        if line == "idle" {
            break;
        }
        let id = line
            .strip_prefix("committed event ")
            .unwrap_or_else(|| panic!("unexpected child output `{line}`"));
        events.push(id.parse().expect("an event id"));
        if events.len() >= stop_after {
            break;
        }
    }
    child.kill().expect("SIGKILL the child"); // std sends SIGKILL on Unix
    let status = child.wait().expect("reap the child");
    assert_eq!(
        status.signal(),
        Some(9),
        "the child died of SIGKILL: {status:?}"
    );
    Reported {
        match_id,
        commentary,
        events,
    }
}

/// Reopens the file and checks every reported write survived.
fn check(path: &Path, r: &Reported) {
    let conn = rusqlite::Connection::open(path).expect("reopen with rusqlite");
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .expect("integrity check");
    assert_eq!(integrity, "ok");
    drop(conn);
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let store = SqliteStore::open(path).await.expect("reopen the store");
        let m = store
            .get_match(r.match_id)
            .await
            .expect("the match survived");
        assert_eq!((m.home_score, m.away_score), (3, 2), "the score survived");
        let c = store
            .list_commentary(r.match_id, PageRequest::default())
            .await
            .expect("commentary");
        assert_eq!(c.items.len(), 1);
        assert_eq!(c.items[0].id, r.commentary, "the commentary survived");
        let mut stored = Vec::new();
        let mut page = PageRequest::first(500);
        loop {
            let p = store
                .list_events(EventFilter {
                    page,
                    ..EventFilter::of_match(r.match_id, 500)
                })
                .await
                .expect("events");
            stored.extend(p.items.into_iter().map(|e| e.event_id()));
            match p.next_cursor {
                Some(c) => page = PageRequest::after(c, 500),
                None => break,
            }
        }
        for id in &r.events {
            assert!(stored.contains(id), "reported event {id} was lost");
        }
        // the child may have committed one more than it got to report, never fewer
        assert!(stored.len() >= r.events.len());
        assert_eq!(
            m.event_count,
            stored.len() as u64,
            "the count matches the rows"
        );
    });
}

fn main() {
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        let (mode, path) = spec.split_once(':').expect("mode:path");
        child(mode, path);
        return;
    }
    // honour `cargo test <filter>` and `--list` like the default harness does
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let scenarios = [
        ("sigkill_right_after_a_commit_loses_nothing", "idle", 1),
        (
            "sigkill_while_writing_loses_no_reported_commit",
            "stream",
            200,
        ),
    ];
    let chosen: Vec<_> = scenarios
        .into_iter()
        .filter(|(name, ..)| {
            filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()))
        })
        .collect();
    if args.iter().any(|a| a == "--list") {
        for (name, ..) in &chosen {
            println!("{name}: test");
        }
        return;
    }
    for &(name, mode, stop_after) in &chosen {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("crash.db");
        let reported = run_and_kill(mode, &path, stop_after);
        check(&path, &reported);
        println!("test {name} ... ok ({} events)", reported.events.len());
    }
    println!("\ntest result: ok. {} passed", chosen.len());
}
