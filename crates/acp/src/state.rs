//! What the adapter remembers per connection: the editor's capabilities, and for each session
//! it opened, the mode its turns run in and the prompt in flight (to cancel its asks).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use agent_client_protocol::ErrorCode;
use agent_client_protocol::v1::schema::ClientCapabilities;
use strata_server::{CoreError, ServerCore};
use tokio_util::sync::CancellationToken;

use crate::editor_fs::Switch;
use crate::modes::DEFAULT_MODE;

/// The adapter's state; cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct Acp {
    pub(crate) core: ServerCore,
    /// Unique to this connection in the process (instance overlays are keyed by it).
    pub(crate) conn: u64,
    inner: Arc<Mutex<Inner>>,
}

#[derive(Debug, Default)]
struct Inner {
    client: ClientCapabilities,
    sessions: HashMap<String, Session>,
}

#[derive(Debug, Clone)]
pub(crate) struct Session {
    /// The agent the session's turns run as.
    pub(crate) mode: String,
    /// The model the editor chose (`provider/model`); `None`: the config's.
    pub(crate) model: Option<String>,
    /// Fires when the editor cancels the prompt in flight.
    pub(crate) cancel: Option<CancellationToken>,
    /// Turns on the editor's file access of the session's instance, when it has one.
    pub(crate) editor_fs: Option<Switch>,
}

fn lock(m: &Mutex<Inner>) -> MutexGuard<'_, Inner> {
    // Every critical section is a single insert, read or field write: nothing is left half done.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Acp {
    pub(crate) fn new(core: ServerCore) -> Acp {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Acp {
            core,
            conn: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            inner: Arc::default(),
        }
    }

    pub(crate) fn set_client(&self, caps: ClientCapabilities) {
        lock(&self.inner).client = caps;
    }

    /// Whether the editor offers both `fs/read_text_file` and `fs/write_text_file`.
    pub(crate) fn editor_files(&self) -> bool {
        let fs = &lock(&self.inner).client.fs;
        fs.read_text_file && fs.write_text_file
    }

    pub(crate) fn set_editor_fs(&self, id: &str, switch: Switch) {
        if let Some(s) = lock(&self.inner).sessions.get_mut(id) {
            s.editor_fs = Some(switch);
        }
    }

    /// The editor knows session `id` now: its file access may go through the editor.
    pub(crate) fn editor_knows(&self, id: &str) {
        let switch = lock(&self.inner)
            .sessions
            .get(id)
            .and_then(|s| s.editor_fs.clone());
        if let Some(s) = switch {
            s.on();
        }
    }

    /// Starts following session `id` in `mode` (or keeps the mode it has).
    pub(crate) fn open(&self, id: &str, mode: Option<&str>) {
        let mut inner = lock(&self.inner);
        let session = inner.sessions.entry(id.to_string()).or_insert(Session {
            mode: DEFAULT_MODE.into(),
            model: None,
            cancel: None,
            editor_fs: None,
        });
        if let Some(m) = mode {
            session.mode = m.to_string();
        }
    }

    /// The session as this connection knows it.
    pub(crate) fn session(&self, id: &str) -> Result<Session, agent_client_protocol::Error> {
        lock(&self.inner).sessions.get(id).cloned().ok_or_else(|| {
            agent_client_protocol::Error::new(
                ErrorCode::RESOURCE_NOT_FOUND,
                format!(
                    "session `{id}` is not open on this connection; open it with session/new or \
                     session/load first"
                ),
            )
        })
    }

    pub(crate) fn set_mode(&self, id: &str, mode: &str) {
        if let Some(s) = lock(&self.inner).sessions.get_mut(id) {
            s.mode = mode.to_string();
        }
    }

    pub(crate) fn set_model(&self, id: &str, model: &str) {
        if let Some(s) = lock(&self.inner).sessions.get_mut(id) {
            s.model = Some(model.to_string());
        }
    }

    /// Records the prompt in flight; `None` when it ends.
    pub(crate) fn set_cancel(&self, id: &str, cancel: Option<CancellationToken>) {
        if let Some(s) = lock(&self.inner).sessions.get_mut(id) {
            s.cancel = cancel;
        }
    }

    /// Cancels the session's turn and the asks of its prompt in flight.
    pub(crate) fn cancel(&self, id: &str) {
        let token = lock(&self.inner)
            .sessions
            .get(id)
            .and_then(|s| s.cancel.clone());
        if let Some(t) = token {
            t.cancel();
        }
        self.core.abort(id);
    }
}

/// A core error as the JSON-RPC error the editor gets.
pub(crate) fn rpc_error(e: CoreError) -> agent_client_protocol::Error {
    let code = match &e {
        CoreError::NotFound { .. } => ErrorCode::RESOURCE_NOT_FOUND,
        CoreError::BadRequest(_) => ErrorCode::INVALID_PARAMS,
        _ => ErrorCode::INTERNAL_ERROR,
    };
    agent_client_protocol::Error::new(code, e.to_string())
}
