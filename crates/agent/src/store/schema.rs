//! Connection setup and schema migrations, tracked in SQLite's `user_version`.
//!
//! Migration N (1-based) moves the schema from version N-1 to N. Each runs in its own
//! `BEGIN IMMEDIATE` transaction that re-reads the version first, so two processes opening a
//! fresh database at once apply it exactly once. Append new migrations; never edit old ones.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};

use super::{SqlResult, StoreError};

/// How long a writer waits for another connection's write lock before failing.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

const MIGRATIONS: &[&str] = &[
    // 1: sessions, messages, parts and the per-session event log.
    "
    CREATE TABLE sessions (
        id         TEXT PRIMARY KEY,
        directory  TEXT NOT NULL,
        title      TEXT NOT NULL DEFAULT '',
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL,
        parent_id  TEXT REFERENCES sessions(id)
    );
    CREATE INDEX sessions_by_directory ON sessions(directory, updated_ms);
    CREATE INDEX sessions_by_updated ON sessions(updated_ms);

    CREATE TABLE messages (
        id         TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id),
        role       TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        data       TEXT NOT NULL
    );
    CREATE INDEX messages_by_session ON messages(session_id, created_ms, id);

    CREATE TABLE parts (
        id         TEXT PRIMARY KEY,
        message_id TEXT NOT NULL REFERENCES messages(id),
        session_id TEXT NOT NULL REFERENCES sessions(id),
        seq        INTEGER NOT NULL,
        kind       TEXT NOT NULL,
        data       TEXT NOT NULL,
        updated_ms INTEGER NOT NULL
    );
    CREATE INDEX parts_by_message ON parts(message_id, seq);
    CREATE INDEX parts_by_session ON parts(session_id);

    CREATE TABLE events (
        session_id TEXT NOT NULL,
        seq        INTEGER NOT NULL,
        kind       TEXT NOT NULL,
        data       TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID;
    ",
    // 2: each session's todo list, in order.
    "
    CREATE TABLE todos (
        session_id TEXT NOT NULL REFERENCES sessions(id),
        position   INTEGER NOT NULL,
        content    TEXT NOT NULL,
        status     TEXT NOT NULL,
        priority   TEXT NOT NULL,
        PRIMARY KEY (session_id, position)
    ) WITHOUT ROWID;
    ",
    // 3: undo. A session's active revert (the message it went back to, and the snapshot of
    // the files before it, for unrevert); messages a later prompt dropped for good.
    "
    CREATE TABLE reverts (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id),
        message_id TEXT NOT NULL,
        snapshot   TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE hidden_messages (
        message_id TEXT PRIMARY KEY REFERENCES messages(id),
        session_id TEXT NOT NULL REFERENCES sessions(id)
    ) WITHOUT ROWID;
    ",
    // 4: which process owns each run, and the process groups a process's tools started, so
    // the parts and processes left behind by a killed run can be found and ended.
    "
    CREATE TABLE runs (
        id          INTEGER PRIMARY KEY,
        session_id  TEXT NOT NULL REFERENCES sessions(id),
        pid         INTEGER NOT NULL,
        start_ticks INTEGER NOT NULL,
        boot_id     TEXT NOT NULL,
        started_ms  INTEGER NOT NULL,
        ended_ms    INTEGER
    );
    CREATE INDEX runs_open ON runs(session_id) WHERE ended_ms IS NULL;

    CREATE TABLE process_groups (
        owner_pid          INTEGER NOT NULL,
        owner_start_ticks  INTEGER NOT NULL,
        boot_id            TEXT NOT NULL,
        pgid               INTEGER NOT NULL,
        leader_start_ticks INTEGER NOT NULL,
        command            TEXT NOT NULL,
        started_ms         INTEGER NOT NULL,
        PRIMARY KEY (owner_pid, owner_start_ticks, boot_id, pgid)
    ) WITHOUT ROWID;
    ",
    // 5: a global order over all sessions' events (the server's `/global/event` cursor), filled
    // by a trigger so writers need not know about it; and per-session permission rules set by
    // the server's clients.
    "
    ALTER TABLE events ADD COLUMN gseq INTEGER;
    UPDATE events SET gseq = (
        SELECT n FROM (
            SELECT session_id AS s, seq AS q,
                   ROW_NUMBER() OVER (ORDER BY created_ms, session_id, seq) AS n
            FROM events
        ) WHERE s = events.session_id AND q = events.seq
    );
    CREATE UNIQUE INDEX events_by_gseq ON events(gseq);
    CREATE TRIGGER events_gseq AFTER INSERT ON events WHEN NEW.gseq IS NULL
    BEGIN
        UPDATE events SET gseq = (SELECT COALESCE(MAX(gseq), 0) + 1 FROM events)
        WHERE session_id = NEW.session_id AND seq = NEW.seq;
    END;
    CREATE TABLE session_rules (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id),
        rules      TEXT NOT NULL
    ) WITHOUT ROWID;
    ",
    // 6: prompts a server accepted but has not started yet, with the process that holds them,
    // so a server that dies with prompts in its queue leaves a trace its successor reports.
    "
    CREATE TABLE queued_prompts (
        id          TEXT PRIMARY KEY,
        session_id  TEXT NOT NULL,
        text        TEXT NOT NULL,
        body        TEXT NOT NULL,
        pid         INTEGER NOT NULL,
        start_ticks INTEGER NOT NULL,
        boot_id     TEXT NOT NULL,
        queued_ms   INTEGER NOT NULL
    ) WITHOUT ROWID;
    ",
    // 7: the few parts a long session's next request looks for, found without reading every
    // part: compactions (where its history starts) and tool results that loaded tools
    // (`metadata.loadedTools`, see `Store::parts_loading_tools`).
    "
    CREATE INDEX parts_compactions ON parts(session_id, message_id) WHERE kind = 'compaction';
    CREATE INDEX parts_loading_tools ON parts(session_id, message_id)
        WHERE kind = 'tool' AND instr(data, '\"loadedTools\"') > 0;
    ",
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Opens `path` with WAL, a busy timeout and foreign keys, and brings the schema up to date.
pub(crate) fn open(path: &Path) -> Result<Connection, StoreError> {
    let open_err = |source| StoreError::Open {
        path: path.to_path_buf(),
        source,
    };
    let mut conn = Connection::open(path).map_err(open_err)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(open_err)?;
    // Switching to WAL needs the write lock, so the busy timeout is set first.
    let mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .map_err(open_err)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Invalid {
            path: path.to_path_buf(),
            detail: format!(
                "could not switch to WAL journaling (got `{mode}`); is the file on a filesystem without shared-memory support?"
            ),
        });
    }
    conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")
        .map_err(open_err)?;
    migrate(&mut conn, path)?;
    Ok(conn)
}

fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    for (index, sql) in MIGRATIONS.iter().enumerate() {
        let target = index as i64 + 1;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .op(path, "starting a migration")?;
        let found: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .op(path, "reading the schema version")?;
        if found > SCHEMA_VERSION {
            return Err(StoreError::TooNew {
                path: path.to_path_buf(),
                found,
                supported: SCHEMA_VERSION,
            });
        }
        if found >= target {
            continue;
        }
        tx.execute_batch(sql)
            .op(path, "applying a schema migration")?;
        tx.pragma_update(None, "user_version", target)
            .op(path, "recording the schema version")?;
        tx.commit().op(path, "committing a schema migration")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_newer_schema_is_refused_with_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("strata.db");
        drop(open(&path).unwrap());
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 5)
            .unwrap();
        drop(conn);
        let err = open(&path).unwrap_err();
        assert!(matches!(err, StoreError::TooNew { found, .. } if found == SCHEMA_VERSION + 5));
        assert!(err.to_string().contains("strata.db"), "{err}");
    }

    #[test]
    fn opening_twice_migrates_once_and_uses_wal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("strata.db");
        drop(open(&path).unwrap());
        let conn = open(&path).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let fk: i64 = conn
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .unwrap();
        assert_eq!(fk, 1);
    }
}
