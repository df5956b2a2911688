//! A session's tools as its next step will see them (spec §24): each tool's state, loaded or
//! deferred, and the counts, for the build agent and the model of the session's last prompt
//! (the configured model when it has none).

use serde::Deserialize;
use strata_agent::session::deferred::layout_for;
use strata_agent::store::Role;
use strata_protocol::message::UserMessage;
use strata_protocol::wire::{SessionTool, SessionTools};

use super::{CoreError, ServerCore};

impl ServerCore {
    /// `GET /session/:id/tools`.
    pub async fn session_tools(&self, id: &str) -> Result<SessionTools, CoreError> {
        let row = self.session_row(id)?;
        let entry = self.instance(&row.directory).await?;
        let services = &entry.services;
        let last_prompt = self.store().last_message_naming(id, Role::User, "model")?;
        let model = last_prompt
            .as_ref()
            .and_then(prompt_model)
            .or_else(|| services.config.model.clone())
            .unwrap_or_default();
        let agent = services
            .agents
            .lookup("build")
            .map_err(|e| CoreError::Internal(e.to_string()))?
            .clone();
        let layout = layout_for(services, &model, &agent, Some(id))
            .map_err(|e| CoreError::Internal(e.to_string()))?;
        let tools = layout
            .states()
            .iter()
            .map(|(t, state)| SessionTool {
                id: t.id.to_string(),
                state: state.as_str().to_string(),
            })
            .collect();
        Ok(SessionTools {
            model,
            loaded: layout.tools.len(),
            deferred: layout.deferred.len(),
            tools,
        })
    }
}

/// The model a prompt was sent to, as `provider/model`; `None` for prompts stored before
/// it was recorded.
fn prompt_model(prompt: &strata_agent::store::Message) -> Option<String> {
    let model = UserMessage::deserialize(&prompt.data).ok()?.model?;
    Some(format!("{}/{}", model.provider_id, model.model_id))
}
