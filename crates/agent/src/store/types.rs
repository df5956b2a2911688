//! The rows the store hands out (`Session`, `Message`, `Part`, `Event`, defined in
//! `strata-protocol` because its events carry them) and `StoreError`.

use std::path::PathBuf;

pub use strata_protocol::store::{Event, Message, Part, Role, Session, kinds};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("could not create the folder {} for the session database: {source}", path.display())]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("could not open the session database {}: {source}; check that the data directory is writable", path.display())]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("session database {}: {op} failed: {source}", path.display())]
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
