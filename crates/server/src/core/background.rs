//! A session's background shells through the core (spec §7.6): list them, kill one. They
//! live in the instance of the session's directory; before it is built there are none.

use std::path::Path;

use serde::Serialize;
use strata_services::background::{BackgroundError, BackgroundShells, ShellInfo};

use super::{CoreError, ServerCore};

/// One background shell, as `GET /session/:id/background` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct BackgroundShell {
    /// The id the model uses (`bg_1`).
    pub id: String,
    #[serde(rename = "sessionID")]
    pub session_id: String,
    pub command: String,
    /// `running`, `exited` or `killed`.
    pub status: String,
    /// The exit code once it exited with one; `null` while running, when killed, or when a
    /// signal ended it.
    #[serde(rename = "exitCode")]
    pub exit_code: Option<i32>,
    /// When it started, in ms since the epoch.
    pub started: i64,
}

impl From<ShellInfo> for BackgroundShell {
    fn from(s: ShellInfo) -> Self {
        Self {
            id: s.id,
            session_id: s.session_id,
            command: s.command,
            status: s.status.name().to_string(),
            exit_code: s.status.exit_code(),
            started: s.started_ms,
        }
    }
}

impl ServerCore {
    /// The shells of the instance for `dir`, if it is built.
    async fn shells_of(&self, dir: &Path) -> Option<BackgroundShells> {
        let entries = self.inner.instances.all().await;
        let entry = entries.iter().find(|e| Path::new(&e.directory) == dir)?;
        entry.instance.get::<BackgroundShells>().ok()
    }

    /// Session `id`'s background shells, in the order they started.
    pub async fn background(&self, id: &str) -> Result<Vec<BackgroundShell>, CoreError> {
        let row = self.session_row(id)?;
        Ok(match self.shells_of(&row.directory).await {
            Some(shells) => shells.list(id).into_iter().map(Into::into).collect(),
            None => Vec::new(),
        })
    }

    /// Ends shell `shell` of session `id` and its process group; answers how it ended.
    pub async fn kill_background(
        &self,
        id: &str,
        shell: &str,
    ) -> Result<BackgroundShell, CoreError> {
        let row = self.session_row(id)?;
        let missing = || CoreError::not_found("background shell", shell);
        let shells = self.shells_of(&row.directory).await.ok_or_else(missing)?;
        match shells.kill(id, shell).await {
            Ok(info) => Ok(info.into()),
            Err(BackgroundError::Unknown { .. }) => Err(missing()),
            Err(e) => Err(CoreError::Internal(e.to_string())),
        }
    }

    /// Ends session `id`'s background shells, when its instance is built.
    pub(crate) async fn end_background(&self, id: &str, dir: &Path) {
        if let Some(shells) = self.shells_of(dir).await {
            shells.end_session(id).await;
        }
    }
}
