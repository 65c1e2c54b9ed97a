//! Paging, shared by both engines: a listing reads where its page starts ([`PageStart`]: the
//! page size checked and capped, the cursor decoded), fetches one row more than the page in its
//! stable order, and cuts the rows into a [`Page`] with the cursor of the next.
//!
//! Cursors are opaque: base64url of `<list>:<sort key>:<id>`. The list name makes a cursor from
//! one listing useless in another; callers only ever pass back what a page returned.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::error::{Result, StoreError};
use crate::model::{
    Commentary, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, Match, Page, PageRequest, StoredEvent,
};
use crate::rows::to_us;

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

impl PageRequest {
    /// The page size: [`DEFAULT_PAGE_SIZE`] when unset, capped at [`MAX_PAGE_SIZE`].
    pub(crate) fn limit(&self) -> Result<u32> {
        match self.limit {
            None => Ok(DEFAULT_PAGE_SIZE),
            Some(0) => Err(StoreError::Invalid("limit must be at least 1".to_owned())),
            Some(n) => Ok(n.min(MAX_PAGE_SIZE)),
        }
    }
}

/// Where one page of a listing starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PageStart {
    listing: Listing,
    /// Rows in the page (checked and capped).
    pub limit: u32,
    /// The position after the previous page; `None` for the first page.
    pub after: Option<Cursor>,
}

impl PageStart {
    /// Reads a request: its limit first, then its cursor (a malformed one is invalid input).
    pub(crate) fn of(listing: Listing, req: &PageRequest) -> Result<Self> {
        let limit = req.limit()?;
        let after = req
            .cursor
            .as_deref()
            .map(|c| decode(listing, c))
            .transpose()?;
        Ok(Self {
            listing,
            limit,
            after,
        })
    }

    /// Rows to fetch: one more than the page, which says whether another page follows.
    pub(crate) fn fetch(&self) -> i64 {
        i64::from(self.limit) + 1
    }

    /// The cursor's sort key.
    pub(crate) fn key(&self) -> Option<i64> {
        self.after.as_ref().map(|a| a.key)
    }

    /// The cursor's tie-breaker as text (a match id).
    pub(crate) fn id(&self) -> Option<String> {
        self.after.as_ref().map(|a| a.id.clone())
    }

    /// The cursor's tie-breaker as a numeric row id.
    pub(crate) fn row_id(&self) -> Result<Option<i64>> {
        self.after
            .as_ref()
            .map(|a| row_id(self.listing, a))
            .transpose()
    }

    /// The SQL condition that skips the rows up to the cursor, `(cols) op (key, id)`; without a
    /// cursor one that holds (both placeholders are bound to NULL).
    pub(crate) fn after_clause(&self, cols: &str, op: &str, key: &str, id: &str) -> String {
        if self.after.is_some() {
            format!("({cols}) {op} ({key}, {id})")
        } else {
            format!("{key} IS NULL AND {id} IS NULL")
        }
    }
}

fn cut<T>(
    mut rows: Vec<T>,
    limit: u32,
    listing: Listing,
    key: impl Fn(&T) -> (i64, String),
) -> Page<T> {
    let limit = limit as usize;
    let next_cursor = if rows.len() > limit {
        rows.truncate(limit);
        rows.last().map(|r| {
            let (k, id) = key(r);
            encode(listing, k, &id)
        })
    } else {
        None
    };
    Page {
        items: rows,
        next_cursor,
    }
}

/// A page of matches from up to `limit + 1` rows, newest first.
pub(crate) fn match_page(rows: Vec<Match>, limit: u32) -> Page<Match> {
    cut(rows, limit, Listing::Matches, |m| {
        (to_us(m.created_at), m.id.to_string())
    })
}

/// A page of commentary from up to `limit + 1` rows, newest first.
pub(crate) fn commentary_page(rows: Vec<Commentary>, limit: u32) -> Page<Commentary> {
    cut(rows, limit, Listing::Commentary, |c| {
        (to_us(c.created_at), c.id.to_string())
    })
}

/// A page of events from up to `limit + 1` rows, in frame order.
pub(crate) fn event_page(rows: Vec<StoredEvent>, limit: u32) -> Page<StoredEvent> {
    cut(rows, limit, Listing::Events, |e| {
        (
            i64::try_from(e.data.frame_number).unwrap_or(i64::MAX),
            e.id.to_string(),
        )
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

    #[test]
    fn page_limits_are_checked_and_capped() {
        let cases = [
            (None, Ok(DEFAULT_PAGE_SIZE)),
            (Some(1), Ok(1)),
            (Some(10_000), Ok(MAX_PAGE_SIZE)),
            (
                Some(0),
                Err(StoreError::Invalid("limit must be at least 1".into())),
            ),
        ];
        for (limit, want) in cases {
            let got = PageRequest {
                cursor: None,
                limit,
            }
            .limit();
            assert_eq!(got, want, "{limit:?}");
        }
    }
}
