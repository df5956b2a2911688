//! Sessions, messages, parts and their events in SQLite (`<data_dir>/strata.db`).
//!
//! Every state change is committed in ONE transaction together with the event that describes
//! it, numbered per session without gaps (`max(seq) + 1` inside a `BEGIN IMMEDIATE`
//! transaction, so writers on other connections or processes wait their turn). A client that
//! missed a live notification replays with [`Store::events_since`]; live events of this handle
//! come from [`Store::subscribe`] after each commit, with the streamed text between them.
//!
//! The methods are synchronous and short; async callers may use them directly or through
//! `spawn_blocking`. A [`Store`] is a cheap-to-clone handle around one connection.
//!
//! Events written by the store: `session.created` and `session.updated` (`{"session": …}`),
//! `message.updated` (`{"message": …}`), `message.part.updated` (`{"part": …}`),
//! `todo.updated` (`{"sessionID", "todos"}`); callers add their own kinds with
//! [`Store::record_event`].

mod ids;
mod live;
mod page;
mod queue;
mod read;
mod revert;
mod rows;
mod runs;
mod schema;
mod server;
mod todos;
mod types;
mod write;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rusqlite::{Connection, Transaction, TransactionBehavior, params};
use serde_json::Value;
use tokio::sync::broadcast;

pub use ids::{IdKind, new_id, now_ms};
pub use live::{Live, TextDelta};
pub use page::{Entry, MessageText, Page, PartText};
pub use queue::QueuedPrompt;
pub use revert::Revert;
pub use runs::{GroupRecord, RunRecord};
pub use schema::{BUSY_TIMEOUT, SCHEMA_VERSION};
pub use server::{GlobalEvent, SESSION_DELETED};
pub use types::{Event, Message, Part, Role, Session, StoreError, kinds};

/// The database file name inside the data directory.
pub const DB_FILE: &str = "strata.db";

/// Live items buffered per subscriber before it lags (and should replay from the table);
/// room for a burst of commits and text deltas from many sessions at once.
pub const SUBSCRIBER_BUFFER: usize = 4096;

/// A handle to the session database.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    conn: Mutex<Connection>,
    live: broadcast::Sender<Live>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.inner.path)
            .finish()
    }
}

impl strata_graph::Service for Store {
    const KEY: &'static str = "Store";
}

impl Store {
    /// Opens (creating if needed, with its folder) the database at `path` and migrates it.
    pub fn open(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let path = path.as_ref().to_path_buf();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        let conn = schema::open(&path)?;
        let (live, _) = broadcast::channel(SUBSCRIBER_BUFFER);
        Ok(Store {
            inner: Arc::new(Inner {
                path,
                conn: Mutex::new(conn),
                live,
            }),
        })
    }

    /// Opens `<data_dir>/strata.db`.
    pub fn open_in(data_dir: &Path) -> Result<Store, StoreError> {
        Self::open(data_dir.join(DB_FILE))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Events committed through this handle from now on, and the text streamed between them
    /// ([`stream_text`](Self::stream_text)), in that order. A lagging receiver gets
    /// `RecvError::Lagged` and should catch up with [`events_since`](Self::events_since) (the
    /// deltas it missed are gone).
    pub fn subscribe(&self) -> broadcast::Receiver<Live> {
        self.inner.live.subscribe()
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave a transaction open (Transaction rolls
        // back on drop), so the connection is still usable.
        self.inner
            .conn
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `apply` and appends an event of `kind` for `session_id` in one transaction.
    fn change<T>(
        &self,
        session_id: &str,
        kind: &str,
        apply: impl FnOnce(&Transaction<'_>, i64, &Path) -> Result<T, StoreError>,
        event_data: impl FnOnce(&T) -> Value,
    ) -> Result<(T, Event), StoreError> {
        let path = self.path();
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .op(path, "starting a write")?;
        let now = now_ms();
        let value = apply(&tx, now, path)?;
        let data = event_data(&value);
        let seq: i64 = tx
            .query_row(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id = ?1",
                [session_id],
                |r| r.get(0),
            )
            .op(path, "numbering an event")?;
        tx.execute(
            "INSERT INTO events (session_id, seq, kind, data, created_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![session_id, seq, kind, data.to_string(), now],
        )
        .op(path, "recording an event")?;
        let gseq = live::inserted_gseq(&tx, session_id, seq).op(path, "numbering an event")?;
        tx.commit().op(path, "committing a change")?;
        let event = Event {
            session_id: session_id.to_string(),
            seq,
            kind: kind.to_string(),
            data,
            created_ms: now,
        };
        // Sent while the connection is still held: the channel keeps the commit order. No
        // subscribers is fine: the event is in the table for whoever comes later.
        let _ = self.inner.live.send(Live::Stored(Box::new(GlobalEvent {
            gseq,
            event: event.clone(),
        })));
        drop(conn);
        Ok((value, event))
    }
}

/// Attaches the database path and the operation to rusqlite errors.
pub(crate) trait SqlResult<T> {
    fn op(self, path: &Path, op: &'static str) -> Result<T, StoreError>;
}

impl<T> SqlResult<T> for rusqlite::Result<T> {
    fn op(self, path: &Path, op: &'static str) -> Result<T, StoreError> {
        self.map_err(|source| StoreError::Sqlite {
            path: path.to_path_buf(),
            op,
            source,
        })
    }
}
