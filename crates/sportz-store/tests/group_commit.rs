//! Group commit on SQLite: concurrent writes share commits, a failing write is rolled back
//! alone, and every write is durable once answered.

use std::sync::Arc;

use sportz_store::{NewCommentary, NewMatch, SqliteStore, Store, StoreError};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writes_share_commits_and_a_failure_stays_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("group.db");
    let store = Arc::new(SqliteStore::open(&path).await.unwrap());
    let m = store
        .create_match(NewMatch::new("Group commit", "Home", "Away"))
        .await
        .unwrap();
    let before = store.commits();
    // 64 writers at once; sequence 40 is written twice, so one of those two must fail
    let mut tasks = Vec::new();
    for i in 1..=64u32 {
        let (store, id) = (store.clone(), m.id);
        let seq = if i == 41 { 40 } else { i };
        tasks.push(tokio::spawn(async move {
            store
                .add_commentary(NewCommentary::new(id, seq, "note", "concurrent"))
                .await
        }));
    }
    let mut ok = 0;
    let mut conflicts = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(_) => ok += 1,
            Err(StoreError::Conflict { .. }) => conflicts += 1,
            Err(e) => panic!("unexpected error: {e}"),
        }
    }
    assert_eq!((ok, conflicts), (63, 1));
    let commits = store.commits() - before;
    assert!(
        commits < 64,
        "64 concurrent writes took {commits} commits: none were grouped"
    );
    // durable: a fresh store on the same file sees the 63 rows and not the failed one
    drop(store);
    let again = SqliteStore::open(&path).await.unwrap();
    let page = again
        .list_commentary(m.id, sportz_store::PageRequest::first(500))
        .await
        .unwrap();
    assert_eq!(page.items.len(), 63);
    let sequences: std::collections::HashSet<u32> = page.items.iter().map(|c| c.sequence).collect();
    assert_eq!(sequences.len(), 63, "no sequence twice");
}
