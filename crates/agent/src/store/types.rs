//! The rows the store hands out (`Session`, `Message`, `Part`, `Event`, defined in
//! `strata-protocol` because its events carry them) and `StoreError`.

use std::path::PathBuf;

pub use strata_protocol::store::{Event, Message, Part, Role, Session, kinds};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("could not create the folder {} for the session database: {source}; check that the data directory (STRATA_DATA_DIR) is on a writable disk", path.display())]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("could not open the session database {}: {source}; check that the data directory (STRATA_DATA_DIR) is writable", path.display())]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("session database {}: {op} failed: {source}{}", path.display(), hint(source))]
    Sqlite {
        path: PathBuf,
        op: &'static str,
        source: rusqlite::Error,
    },
    #[error(
        "session database {} has schema version {found}, newer than this strata understands ({supported}); upgrade strata or use another data directory",
        path.display()
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    #[error("{what} `{id}` does not exist in the session database {}", path.display())]
    NotFound {
        path: PathBuf,
        what: &'static str,
        id: String,
    },
    #[error("session database {}: {detail}", path.display())]
    Invalid { path: PathBuf, detail: String },
    #[error("session database {} holds unreadable data in table {table}: {detail}", path.display())]
    Corrupt {
        path: PathBuf,
        table: &'static str,
        detail: String,
    },
}

/// What to do about the SQLite failures a machine causes (a full or read-only disk); empty
/// for the rest, whose message says enough.
fn hint(e: &rusqlite::Error) -> &'static str {
    use rusqlite::ffi::ErrorCode;
    match e.sqlite_error_code() {
        Some(ErrorCode::DiskFull) => {
            "; the disk holding it is full: free some space there and try again (nothing \
             already stored was changed)"
        }
        Some(ErrorCode::ReadOnly) => {
            "; the database cannot be written: check that the data directory \
             (STRATA_DATA_DIR) and its disk are writable"
        }
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqlite(code: i32) -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None)
    }

    #[test]
    fn a_full_or_read_only_disk_says_what_to_do_and_other_failures_add_nothing() {
        assert!(hint(&sqlite(rusqlite::ffi::SQLITE_FULL)).contains("free some space"));
        assert!(hint(&sqlite(rusqlite::ffi::SQLITE_READONLY)).contains("STRATA_DATA_DIR"));
        assert_eq!(hint(&sqlite(rusqlite::ffi::SQLITE_BUSY)), "");
        assert_eq!(hint(&rusqlite::Error::QueryReturnedNoRows), "");
    }
}
