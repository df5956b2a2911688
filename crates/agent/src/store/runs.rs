//! Run ownership: which process runs a session now (`runs`), and which process groups a
//! process's tools started (`process_groups`). These rows describe processes, not the
//! conversation, so they change without events; what recovery does to the conversation is
//! committed with events like every other change (see [`crate::recover`]).

use rusqlite::params;
use strata_services::process::ProcessIdentity;

use super::ids::now_ms;
use super::{SqlResult, Store, StoreError};

/// A stored run: its row id, its session and the process that owns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRecord {
    pub id: i64,
    pub session_id: String,
    pub owner: ProcessIdentity,
    pub started_ms: i64,
}

/// A process group started by a tool of `owner`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupRecord {
    pub owner: ProcessIdentity,
    pub pgid: u32,
    pub leader_start_ticks: u64,
    pub command: String,
}

pub(super) fn ticks(t: u64) -> i64 {
    i64::try_from(t).unwrap_or(i64::MAX)
}

pub(super) fn identity(pid: i64, start: i64, boot_id: String) -> ProcessIdentity {
    ProcessIdentity {
        pid: u32::try_from(pid).unwrap_or(0),
        start_ticks: u64::try_from(start).unwrap_or(0),
        boot_id,
    }
}

impl Store {
    /// Records that `owner` now runs session `session_id`; returns the run's id.
    pub fn begin_run(&self, session_id: &str, owner: &ProcessIdentity) -> Result<i64, StoreError> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO runs (session_id, pid, start_ticks, boot_id, started_ms)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                session_id,
                owner.pid,
                ticks(owner.start_ticks),
                owner.boot_id,
                now_ms()
            ],
        )
        .op(self.path(), "recording a run")?;
        Ok(conn.last_insert_rowid())
    }

    /// Marks run `id` ended.
    pub fn end_run(&self, id: i64) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "UPDATE runs SET ended_ms = ?2 WHERE id = ?1 AND ended_ms IS NULL",
                params![id, now_ms()],
            )
            .op(self.path(), "ending a run")?;
        Ok(())
    }

    /// Runs not marked ended: those of `session_id`, or of every session.
    pub fn open_runs(&self, session_id: Option<&str>) -> Result<Vec<RunRecord>, StoreError> {
        let conn = self.conn();
        let sql = "SELECT id, session_id, pid, start_ticks, boot_id, started_ms FROM runs
                   WHERE ended_ms IS NULL AND (?1 IS NULL OR session_id = ?1) ORDER BY id";
        conn.prepare(sql)
            .and_then(|mut s| {
                s.query_map([session_id], |r| {
                    Ok(RunRecord {
                        id: r.get(0)?,
                        session_id: r.get(1)?,
                        owner: identity(r.get(2)?, r.get(3)?, r.get(4)?),
                        started_ms: r.get(5)?,
                    })
                })?
                .collect()
            })
            .op(self.path(), "reading open runs")
    }

    /// Records a process group started by a tool of `owner`.
    pub fn record_group(
        &self,
        owner: &ProcessIdentity,
        pgid: u32,
        leader_start_ticks: u64,
        command: &str,
    ) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "INSERT OR REPLACE INTO process_groups
                 (owner_pid, owner_start_ticks, boot_id, pgid, leader_start_ticks, command, started_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    owner.pid,
                    ticks(owner.start_ticks),
                    owner.boot_id,
                    pgid,
                    ticks(leader_start_ticks),
                    command,
                    now_ms()
                ],
            )
            .op(self.path(), "recording a process group")?;
        Ok(())
    }

    /// Forgets a group of `owner` (it finished or was stopped).
    pub fn forget_group(&self, owner: &ProcessIdentity, pgid: u32) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "DELETE FROM process_groups
                 WHERE owner_pid = ?1 AND owner_start_ticks = ?2 AND boot_id = ?3 AND pgid = ?4",
                params![owner.pid, ticks(owner.start_ticks), owner.boot_id, pgid],
            )
            .op(self.path(), "forgetting a process group")?;
        Ok(())
    }

    /// Every recorded group, of all owners.
    pub fn recorded_groups(&self) -> Result<Vec<GroupRecord>, StoreError> {
        let conn = self.conn();
        conn.prepare(
            "SELECT owner_pid, owner_start_ticks, boot_id, pgid, leader_start_ticks, command
             FROM process_groups ORDER BY started_ms",
        )
        .and_then(|mut s| {
            s.query_map([], |r| {
                Ok(GroupRecord {
                    owner: identity(r.get(0)?, r.get(1)?, r.get(2)?),
                    pgid: u32::try_from(r.get::<_, i64>(3)?).unwrap_or(0),
                    leader_start_ticks: u64::try_from(r.get::<_, i64>(4)?).unwrap_or(0),
                    command: r.get(5)?,
                })
            })?
            .collect()
        })
        .op(self.path(), "reading process groups")
    }
}
