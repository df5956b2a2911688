//! `ToolCx`: what one call knows about where it runs, and the two things it may do beyond its
//! own services: stream running metadata, and ask permission.

use std::sync::Arc;

use serde_json::{Map, Value};
use strata_services::hooks::HookRun;
use strata_services::permission::{
    Action, AskRequest, Fingerprint, Granted, Permission, Ruleset, ToolRef,
};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use super::error::ToolError;

/// A running-state update of one call, for front-ends.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataUpdate {
    pub call_id: String,
    pub title: Option<String>,
    pub metadata: Map<String, Value>,
}

/// One permission question a tool asks (spec §0.5).
#[derive(Debug, Clone, Default)]
pub struct Ask {
    pub permission: String,
    pub patterns: Vec<String>,
    pub always: Vec<String>,
    pub metadata: Value,
    /// The call runs in an enforced sandbox whose `auto_allow` is on (see
    /// [`strata_services::permission::decide`]).
    pub sandbox_auto_allow: bool,
    /// The hashes of the input and files this ask shows, kept on the pending request.
    pub shown: Option<Fingerprint>,
}

impl Ask {
    pub fn new(permission: &str, patterns: Vec<String>, always: Vec<String>) -> Self {
        Self {
            permission: permission.to_string(),
            patterns,
            always,
            metadata: Value::Object(Map::new()),
            sandbox_auto_allow: false,
            shown: None,
        }
    }

    /// Marks the ask as held by the sandbox, so an `ask` rule lets it through.
    pub fn sandboxed(mut self, auto_allow: bool) -> Self {
        self.sandbox_auto_allow = auto_allow;
        self
    }

    pub fn metadata(mut self, metadata: Value) -> Self {
        self.metadata = metadata;
        self
    }

    /// Keeps `fingerprint` on the request, so the approval says what it approved.
    pub fn shown(mut self, fingerprint: Fingerprint) -> Self {
        self.shown = Some(fingerprint);
        self
    }
}

#[derive(Clone)]
struct PermissionBinding {
    service: Permission,
    ruleset: Arc<Ruleset>,
}

/// The context of one tool call. Cheap to clone.
#[derive(Clone)]
pub struct ToolCx {
    pub session_id: String,
    pub message_id: String,
    /// May be empty (a call made outside the loop).
    pub call_id: String,
    pub agent: String,
    /// Fires when the user cancels the call or the turn.
    pub abort: CancellationToken,
    /// The current model's API id, when a model is driving.
    pub model: Option<String>,
    /// Whether this agent may delegate to `task`: the Truncate layer's hint, shared by every
    /// tool, suggests it then.
    pub agent_may_task: bool,
    /// An extra from the loop that only `read` honours (spec §0.1, §0.4): skip the
    /// external-directory ask, for a file the user named themselves. Nothing in Strata sets it
    /// yet; it stays on the shared context because it is per call, and tests use it as a hook.
    pub bypass_cwd_check: bool,
    /// The session's plan file (absolute), set by the loop: `plan_exit` names it.
    pub plan_file: Option<std::path::PathBuf>,
    metadata_sink: Option<UnboundedSender<MetadataUpdate>>,
    permission: Option<PermissionBinding>,
    /// Where the hooks layer reports the hooks it ran, for the session's event records.
    hook_sink: Option<UnboundedSender<HookRun>>,
    /// A PreToolUse hook's say on this call's asks (set by the hooks layer).
    hook_decision: Option<Action>,
}

impl std::fmt::Debug for ToolCx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCx")
            .field("session_id", &self.session_id)
            .field("message_id", &self.message_id)
            .field("call_id", &self.call_id)
            .field("agent", &self.agent)
            .finish_non_exhaustive()
    }
}

impl ToolCx {
    pub fn builder(session_id: impl Into<String>) -> ToolCxBuilder {
        ToolCxBuilder {
            cx: ToolCx {
                session_id: session_id.into(),
                message_id: String::new(),
                call_id: String::new(),
                agent: "build".into(),
                abort: CancellationToken::new(),
                model: None,
                agent_may_task: false,
                bypass_cwd_check: false,
                plan_file: None,
                metadata_sink: None,
                permission: None,
                hook_sink: None,
                hook_decision: None,
            },
        }
    }

    /// Streams a running-state update of this call to whoever listens.
    pub fn metadata(&self, title: Option<String>, metadata: Map<String, Value>) {
        if let Some(sink) = &self.metadata_sink {
            // A closed sink only means nobody watches any more.
            let _ = sink.send(MetadataUpdate {
                call_id: self.call_id.clone(),
                title,
                metadata,
            });
        }
    }

    /// Hands the hooks that ran around this call to whoever records them.
    pub fn report_hooks(&self, runs: Vec<HookRun>) {
        if let Some(sink) = &self.hook_sink {
            for run in runs {
                // A closed sink only means nobody records any more.
                let _ = sink.send(run);
            }
        }
    }

    /// The PreToolUse hooks' decision this call's asks are made with.
    pub fn hook_decision(&self) -> Option<Action> {
        self.hook_decision
    }

    /// Sets the decision the hooks layer read (see [`strata_services::permission::decide`]).
    pub fn set_hook_decision(&mut self, decision: Option<Action>) {
        self.hook_decision = decision;
    }

    /// The agent's rules this call is bound to (empty without a binding), for tools that
    /// filter what they offer by permission, as `skill` does.
    pub fn rules(&self) -> &[strata_services::permission::Rule] {
        self.permission
            .as_ref()
            .map_or(&[], |binding| binding.ruleset.as_slice())
    }

    /// Asks the Permission service, bound to this session and agent's rules. Without a binding
    /// (a context built for a test of pure logic) every ask is refused, so nothing runs unasked.
    pub async fn ask(&self, ask: Ask) -> Result<(), ToolError> {
        self.ask_granted(ask).await.map(|_| ())
    }

    /// [`ToolCx::ask`], saying how it was granted (see [`Permission::ask_granted`]).
    pub async fn ask_granted(&self, ask: Ask) -> Result<Granted, ToolError> {
        let Some(binding) = &self.permission else {
            return Err(ToolError::fatal(format!(
                "`{}` permission was needed, but this call has no Permission service bound. \
                 Build the ToolCx with `.permission(service, ruleset)`.",
                ask.permission
            )));
        };
        let request = AskRequest {
            session_id: self.session_id.clone(),
            permission: ask.permission,
            patterns: ask.patterns,
            always: ask.always,
            metadata: ask.metadata,
            tool: Some(ToolRef {
                message_id: self.message_id.clone(),
                call_id: self.call_id.clone(),
            }),
            ruleset: (*binding.ruleset).clone(),
            sandbox_auto_allow: ask.sandbox_auto_allow,
            shown: ask.shown,
            hook: self.hook_decision,
        };
        binding
            .service
            .ask_granted(request, self.abort.clone())
            .await
            .map_err(ToolError::from)
    }
}

/// Builds a [`ToolCx`].
#[derive(Debug)]
pub struct ToolCxBuilder {
    cx: ToolCx,
}

impl ToolCxBuilder {
    pub fn message(mut self, id: impl Into<String>) -> Self {
        self.cx.message_id = id.into();
        self
    }
    pub fn call(mut self, id: impl Into<String>) -> Self {
        self.cx.call_id = id.into();
        self
    }
    pub fn agent(mut self, name: impl Into<String>) -> Self {
        self.cx.agent = name.into();
        self
    }
    pub fn abort(mut self, token: CancellationToken) -> Self {
        self.cx.abort = token;
        self
    }
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.cx.model = Some(model.into());
        self
    }
    pub fn agent_may_task(mut self, yes: bool) -> Self {
        self.cx.agent_may_task = yes;
        self
    }
    pub fn bypass_cwd_check(mut self, yes: bool) -> Self {
        self.cx.bypass_cwd_check = yes;
        self
    }
    pub fn plan_file(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.cx.plan_file = Some(path.into());
        self
    }
    pub fn metadata_sink(mut self, sink: UnboundedSender<MetadataUpdate>) -> Self {
        self.cx.metadata_sink = Some(sink);
        self
    }
    pub fn hook_sink(mut self, sink: UnboundedSender<HookRun>) -> Self {
        self.cx.hook_sink = Some(sink);
        self
    }
    pub fn permission(mut self, service: Permission, ruleset: Ruleset) -> Self {
        self.cx.permission = Some(PermissionBinding {
            service,
            ruleset: Arc::new(ruleset),
        });
        self
    }
    pub fn build(self) -> ToolCx {
        self.cx
    }
}
