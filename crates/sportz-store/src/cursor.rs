//! Opaque page cursors: base64url of `<list>:<sort key>:<id>`. The list name makes a cursor from
//! one listing useless in another; callers only ever pass back what a page returned.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::error::{Result, StoreError};

/// Which listing a cursor belongs to (each has its own sort key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Listing {
    /// `(created_at µs, match id)`, newest first.
    Matches,
    /// `(created_at µs, row id)`, newest first.
    Commentary,
    /// `(frame_number, row id)`, in frame order.
    Events,
}

impl Listing {
    const fn name(self) -> &'static str {
        match self {
            Self::Matches => "matches",
            Self::Commentary => "commentary",
            Self::Events => "events",
        }
    }
}

/// The position after the last row of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cursor {
    pub key: i64,
    pub id: String,
}

pub(crate) fn encode(listing: Listing, key: i64, id: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{}:{key}:{id}", listing.name()))
}

pub(crate) fn decode(listing: Listing, cursor: &str) -> Result<Cursor> {
    let bad = |why: &str| {
        StoreError::Invalid(format!(
            "malformed cursor `{cursor}` ({why}); expected the nextCursor of a previous {} page",
            listing.name()
        ))
    };
    let bytes = URL_SAFE_NO_PAD
        .decode(cursor)
        .map_err(|_| bad("not base64url"))?;
    let text = String::from_utf8(bytes).map_err(|_| bad("not text"))?;
    let mut parts = text.splitn(3, ':');
    let (Some(name), Some(key), Some(id)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad("missing parts"));
    };
    if name != listing.name() {
        return Err(bad(&format!("it belongs to {name}")));
    }
    let key = key.parse().map_err(|_| bad("bad sort key"))?;
    if id.is_empty() {
        return Err(bad("empty id"));
    }
    Ok(Cursor {
        key,
        id: id.to_owned(),
    })
}

/// The row id of a cursor whose tie-breaker is a numeric row id.
pub(crate) fn row_id(listing: Listing, c: &Cursor) -> Result<i64> {
    c.id.parse().map_err(|_| {
        StoreError::Invalid(format!(
            "malformed cursor (bad row id); expected the nextCursor of a previous {} page",
            listing.name()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip() {
        let cases = [
            (
                Listing::Matches,
                1_700_000_000_000_000,
                "match_01JC0000000000000000000000",
            ),
            (Listing::Commentary, -5, "42"),
            (Listing::Events, 0, "7"),
        ];
        for (listing, key, id) in cases {
            let c = encode(listing, key, id);
            assert!(
                c.chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_'),
                "{c} is not URL-safe"
            );
            assert_eq!(decode(listing, &c).unwrap(), Cursor { key, id: id.into() });
        }
    }

    fn check_bad(listing: Listing, cursor: &str, why: &str) {
        let err = decode(listing, cursor).unwrap_err().to_string();
        assert!(err.contains(why), "`{cursor}` → `{err}`, expected `{why}`");
        assert!(err.contains("expected the nextCursor"), "{err}");
    }

    #[test]
    fn malformed_cursors_are_invalid_input() {
        check_bad(Listing::Matches, "%%%", "not base64url");
        check_bad(
            Listing::Matches,
            &URL_SAFE_NO_PAD.encode("matches:1"),
            "missing parts",
        );
        check_bad(
            Listing::Matches,
            &URL_SAFE_NO_PAD.encode("matches:x:y"),
            "bad sort key",
        );
        check_bad(
            Listing::Matches,
            &URL_SAFE_NO_PAD.encode("matches:1:"),
            "empty id",
        );
        check_bad(
            Listing::Events,
            &encode(Listing::Commentary, 1, "2"),
            "it belongs to commentary",
        );
        let c = decode(Listing::Events, &encode(Listing::Events, 1, "x")).unwrap();
        assert!(row_id(Listing::Events, &c).is_err());
    }
}
