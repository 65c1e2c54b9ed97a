//! SQLite on a full filesystem (a 512 KiB tmpfs): a write that does not fit fails with a clear
//! `Unavailable` error, everything committed before is still there and the file is intact, and
//! writes work again once there is space. Needs root to mount the tmpfs; without it the test says
//! it was skipped.

use sportz_store::{NewCommentary, NewMatch, PageRequest, SqliteStore, Store, StoreError};

async fn count(store: &SqliteStore, m: sportz_contract::MatchId) -> usize {
    let mut n = 0;
    let mut page = PageRequest::first(500);
    loop {
        let p = store.list_commentary(m, page).await.unwrap();
        n += p.items.len();
        match p.next_cursor {
            Some(c) => page = PageRequest::after(c, 500),
            None => return n,
        }
    }
}

#[tokio::test]
async fn a_full_filesystem_is_a_clear_error_and_loses_nothing_committed() {
    let dir = tempfile::tempdir().unwrap();
    let fs = match sportz_testkit::Tmpfs::mount(&dir.path().join("small"), "512k") {
        Ok(fs) => fs,
        Err(why) => {
            sportz_testkit::skipped(
                "a_full_filesystem_is_a_clear_error_and_loses_nothing_committed",
                &format!("cannot mount a tmpfs ({why}); run as root"),
            );
            return;
        }
    };
    let path = fs.path().join("sportz.sqlite3");
    let store = SqliteStore::open(&path).await.unwrap();
    let m = store
        .create_match(NewMatch::new("Full disk", "A", "B"))
        .await
        .unwrap();
    let message = "x".repeat(2_000);
    let mut committed = 0;
    let err = loop {
        let seq = committed + 1;
        match store
            .add_commentary(NewCommentary::new(m.id, seq, "note", &message))
            .await
        {
            Ok(_) => committed += 1,
            Err(e) => break e,
        }
        assert!(committed < 10_000, "512 KiB never filled up");
    };
    assert!(committed >= 3, "only {committed} rows fit");
    assert!(
        matches!(&err, StoreError::Unavailable(msg) if msg.contains("full")),
        "a clear error: {err}"
    );
    println!("full after {committed} rows: {err}");
    // reads still work and every committed row is there
    assert_eq!(count(&store, m.id).await, committed as usize);

    // space comes back: writes work again
    fs.resize("8m");
    store
        .add_commentary(NewCommentary::new(
            m.id,
            committed + 1,
            "note",
            "space again",
        ))
        .await
        .expect("a write once there is space");
    drop(store);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    drop(conn);
    let again = SqliteStore::open(&path).await.unwrap();
    assert_eq!(count(&again, m.id).await, committed as usize + 1);
}
