//! Sessions and messages through the core: create (with permission rules), list, get,
//! update, delete, children, fork; messages with their parts; todos.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use strata_agent::store::{Session, StoreError};
use strata_protocol::wire::{PermissionRule, SessionCreateBody, SessionInfo, Todo};

use strata_services::config::Config;
use strata_services::flags::RuntimeFlags;
use strata_services::instance::{InstanceInfo, InstanceSeed};
use strata_services::process::sandbox::{Sandbox, Support};

use super::convert::session_view;
use super::instances::InstanceEntry;
use super::{CoreError, ServerCore};

/// A message with its parts (the wire type, shared with the clients).
pub use strata_protocol::wire::MessageEntry;

/// `PATCH /session/:id`: what may change.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionUpdate {
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub permission: Option<Vec<PermissionRule>>,
}

/// Adds `sandbox`: the effective sandbox mode of the project's instance (`workspace-write`,
/// `read-only` or `off`); before that instance is built, the mode it would get from the
/// project's config, the server's `--sandbox` and the kernel.
fn add_sandbox(
    info: &mut SessionInfo,
    entry: Option<&InstanceEntry>,
    flags: Option<&RuntimeFlags>,
) {
    let built = entry.and_then(|e| e.instance.get::<Sandbox>().ok());
    let mode = match (built, flags) {
        (Some(sandbox), _) => Some(sandbox.mode()),
        (None, Some(flags)) => expected_mode(&info.directory, flags),
        (None, None) => None,
    };
    if let Some(mode) = mode {
        info.extra
            .insert("sandbox".into(), Value::from(mode.as_str()));
    }
}

/// The sandbox mode an instance for `dir` would get; `None` when the directory or its
/// config cannot be read (the instance could not be built either).
fn expected_mode(dir: &str, flags: &RuntimeFlags) -> Option<strata_services::config::SandboxMode> {
    let seed = InstanceSeed {
        directory: dir.into(),
    };
    let info = InstanceInfo::detect(&seed, flags).ok()?;
    let config = Config::load(&info, flags).ok()?;
    let flag = flags.sandbox_mode.as_deref();
    Some(Sandbox::expected_mode(
        &config.sandbox,
        flag,
        &Support::probe(),
    ))
}

fn not_found(e: StoreError, what: &'static str, id: &str) -> CoreError {
    match e {
        StoreError::NotFound { .. } => CoreError::not_found(what, id),
        other => CoreError::Store(other),
    }
}

impl ServerCore {
    pub(crate) fn session_row(&self, id: &str) -> Result<Session, CoreError> {
        self.store()
            .session(id)
            .map_err(|e| not_found(e, "session", id))
    }

    /// The API view of session `id`.
    pub fn session(&self, id: &str) -> Result<SessionInfo, CoreError> {
        let row = self.session_row(id)?;
        let mut info = session_view(self.store(), &row);
        if let Some(revert) = self.store().revert_of(id)? {
            info.extra.insert("revert".into(), revert.to_json());
        }
        let entry = self.inner.instances.built(&row.directory);
        add_sandbox(&mut info, entry.as_deref(), self.flags().as_ref());
        Ok(info)
    }

    /// Creates a session in `dir` (the instance is built if needed) with the body's parent,
    /// title and permission rules.
    pub async fn create_session(
        &self,
        dir: &Path,
        body: SessionCreateBody,
    ) -> Result<SessionInfo, CoreError> {
        let entry = self.instance(dir).await?;
        if let Some(parent) = &body.parent_id {
            self.session_row(parent)?;
        }
        let rules = check_rules(&body.permission)?;
        let store = self.store();
        let session =
            store.create_session(Path::new(&entry.directory), body.parent_id.as_deref())?;
        if !body.permission.is_empty() {
            store.set_session_rules(&session.id, &rules)?;
        }
        if let Some(title) = body.title.as_deref().filter(|t| !t.is_empty()) {
            store.update_session_title(&session.id, title)?;
        }
        self.session(&session.id)
    }

    /// Sessions of `dir` (children included), most recently changed first.
    pub async fn list_sessions(&self, dir: &Path) -> Result<Vec<SessionInfo>, CoreError> {
        let entry = self.instance(dir).await?;
        let rows = self
            .store()
            .list_sessions(Some(Path::new(&entry.directory)))?;
        let view = |s: &Session| {
            let mut info = session_view(self.store(), s);
            add_sandbox(&mut info, Some(&entry), None);
            info
        };
        Ok(rows.iter().map(view).collect())
    }

    /// The sessions whose parent is `id`.
    pub fn children(&self, id: &str) -> Result<Vec<SessionInfo>, CoreError> {
        let parent = self.session_row(id)?;
        let rows = self.store().list_sessions(Some(&parent.directory))?;
        let entry = self.inner.instances.built(&parent.directory);
        let flags = self.flags();
        let view = |s: &Session| {
            let mut info = session_view(self.store(), s);
            add_sandbox(&mut info, entry.as_deref(), flags.as_ref());
            info
        };
        Ok(rows
            .iter()
            .filter(|s| s.parent_id.as_deref() == Some(id))
            .map(view)
            .collect())
    }

    /// Changes the title and/or the permission rules.
    pub fn update_session(
        &self,
        id: &str,
        update: SessionUpdate,
    ) -> Result<SessionInfo, CoreError> {
        self.session_row(id)?;
        if let Some(rules) = &update.permission {
            let rules = check_rules(rules)?;
            self.store().set_session_rules(id, &rules)?;
        }
        match update.title {
            Some(title) => {
                self.store().update_session_title(id, &title)?;
            }
            // The rules changed without any other change: say so with the same event.
            None if update.permission.is_some() => {
                let title = self.session_row(id)?.title;
                self.store().update_session_title(id, &title)?;
            }
            None => {}
        }
        self.session(id)
    }

    /// Deletes the session (and its children); refused while a turn runs or waits in it.
    /// A session prompted here ends first (`SessionEnd`, `reason: "other"`). The sandbox's
    /// temp directory of the session goes with it.
    pub async fn delete_session(&self, id: &str) -> Result<(), CoreError> {
        let row = self.session_row(id)?;
        self.ensure_idle(id).await?;
        self.end_session(id, "other").await;
        self.store()
            .delete_session(id)
            .map_err(|e| not_found(e, "session", id))?;
        self.end_background(id, &row.directory).await;
        let entry = self.inner.instances.built(&row.directory);
        if let Some(sandbox) = entry.and_then(|e| e.instance.get::<Sandbox>().ok()) {
            sandbox.remove_session_temp(id);
        }
        Ok(())
    }

    /// The server's runtime flags (`--sandbox` among them).
    fn flags(&self) -> Option<RuntimeFlags> {
        self.inner.runtime.global().get::<RuntimeFlags>().ok()
    }

    /// A new session with a copy of this one's messages, up to and excluding `message_id`
    /// when given (all of them otherwise).
    pub fn fork(&self, id: &str, message_id: Option<&str>) -> Result<SessionInfo, CoreError> {
        let source = self.session_row(id)?;
        let messages = self.store().messages(id)?;
        if let Some(m) = message_id
            && !messages.iter().any(|(msg, _)| msg.id == m)
        {
            return Err(CoreError::not_found("message", m));
        }
        let store = self.store();
        let fork = store.create_session(&source.directory, source.parent_id.as_deref())?;
        let title = if source.title.is_empty() {
            String::new()
        } else {
            format!("{} (fork)", source.title)
        };
        if !title.is_empty() {
            store.update_session_title(&fork.id, &title)?;
        }
        if let Some(rules) = store.session_rules(id)? {
            store.set_session_rules(&fork.id, &rules)?;
        }
        for (message, parts) in messages {
            if Some(message.id.as_str()) == message_id {
                break;
            }
            let copy = store.append_message(&fork.id, message.role, message.data.clone())?;
            for part in parts {
                store.upsert_part(&fork.id, &copy.id, None, &part.kind, part.data.clone())?;
            }
        }
        self.session(&fork.id)
    }

    /// The session's todo list.
    pub fn todos(&self, id: &str) -> Result<Vec<Todo>, CoreError> {
        self.session_row(id)?;
        Ok(self.store().todos(id)?)
    }
}

/// The rules as the store keeps them; each action must be `allow`, `ask` or `deny`.
fn check_rules(rules: &[PermissionRule]) -> Result<Value, CoreError> {
    for (i, rule) in rules.iter().enumerate() {
        if !matches!(rule.action.as_str(), "allow" | "ask" | "deny") {
            return Err(CoreError::BadRequest(format!(
                "permission[{i}].action: `{}` is not one of allow, ask, deny",
                rule.action
            )));
        }
    }
    serde_json::to_value(rules).map_err(|e| CoreError::Internal(e.to_string()))
}
