//! Versioned schema migrations, embedded in the binary from `migrations/<engine>/NNNN_name.sql`
//! and applied at open. Each applied file is recorded with its SHA-256, so a released file that
//! was edited afterwards is refused instead of silently diverging.

use crate::error::{Result, StoreError};
use crate::token::sha256_hex;

/// One migration file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Migration {
    pub version: i64,
    pub name: &'static str,
    pub sql: &'static str,
}

impl Migration {
    /// The checksum recorded when it is applied.
    #[must_use]
    pub fn checksum(&self) -> String {
        sha256_hex(self.sql)
    }
}

/// The SQLite migrations, in order.
pub const SQLITE: &[Migration] = &[
    Migration {
        version: 1,
        name: "init",
        sql: include_str!("../../../migrations/sqlite/0001_init.sql"),
    },
    Migration {
        version: 2,
        name: "status_seq",
        sql: include_str!("../../../migrations/sqlite/0002_status_seq.sql"),
    },
];

/// The Postgres migrations, in order.
pub const POSTGRES: &[Migration] = &[
    Migration {
        version: 1,
        name: "init",
        sql: include_str!("../../../migrations/postgres/0001_init.sql"),
    },
    Migration {
        version: 2,
        name: "status_seq",
        sql: include_str!("../../../migrations/postgres/0002_status_seq.sql"),
    },
];

/// The table that records applied migrations (same DDL on both engines).
pub(crate) const HISTORY_DDL: &str = "CREATE TABLE IF NOT EXISTS schema_migrations (
    version    BIGINT NOT NULL PRIMARY KEY,
    name       TEXT   NOT NULL,
    checksum   TEXT   NOT NULL,
    applied_at TEXT   NOT NULL
)";

/// The migrations still to apply, given the `(version, checksum)` rows already recorded.
///
/// # Errors
/// When the database has a version this build does not know (it is newer), or an applied file's
/// checksum differs (it was edited after release).
pub(crate) fn pending<'a>(
    known: &'a [Migration],
    applied: &[(i64, String)],
) -> Result<Vec<&'a Migration>> {
    let latest = known.last().map_or(0, |m| m.version);
    for (version, checksum) in applied {
        let Some(m) = known.iter().find(|m| m.version == *version) else {
            return Err(StoreError::Unavailable(format!(
                "the database has schema version {version}, newer than this build (up to {latest}); \
                 upgrade sportz"
            )));
        };
        if m.checksum() != *checksum {
            return Err(StoreError::Internal(format!(
                "migration {:04}_{} differs from the one applied to this database; released \
                 migrations must not be edited, add a new file instead",
                m.version, m.name
            )));
        }
    }
    Ok(known
        .iter()
        .filter(|m| !applied.iter().any(|(v, _)| *v == m.version))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(engine: &str) -> Vec<String> {
        let dir = format!("{}/../../migrations/{engine}", env!("CARGO_MANIFEST_DIR"));
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".sql"))
            .collect();
        names.sort();
        names
    }

    #[test]
    fn every_migration_file_is_embedded_in_order() {
        for (engine, list) in [("sqlite", SQLITE), ("postgres", POSTGRES)] {
            let embedded: Vec<String> = list
                .iter()
                .map(|m| format!("{:04}_{}.sql", m.version, m.name))
                .collect();
            assert_eq!(files(engine), embedded, "{engine}");
            for (i, m) in list.iter().enumerate() {
                assert_eq!(m.version, i64::try_from(i).unwrap() + 1, "{engine}: gap");
            }
        }
    }

    #[test]
    fn pending_skips_applied_and_refuses_edits_and_newer_schemas() {
        let known = SQLITE;
        let v1 = (1, known[0].checksum());
        assert_eq!(pending(known, &[]).unwrap().len(), known.len());
        assert_eq!(pending(known, &[v1]).unwrap().len(), known.len() - 1);
        let edited = pending(known, &[(1, "0".repeat(64))]).unwrap_err();
        assert!(
            edited.to_string().contains("must not be edited"),
            "{edited}"
        );
        let newer = pending(known, &[(999, String::new())]).unwrap_err();
        assert!(newer.to_string().contains("schema version 999"), "{newer}");
    }
}
