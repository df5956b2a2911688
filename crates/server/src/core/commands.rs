//! Commands (issue 23 §2): the prompts of the project's connected MCP servers, listed in
//! opencode's `Command` shape and run as a turn whose message is the rendered prompt.

use strata_protocol::wire::{CommandBody, CommandInfo, ModelChoice, PromptBody, PromptPart};
use strata_services::mcp::{Mcp, McpPrompt, PromptError, prompt_text};
use tokio_util::sync::CancellationToken;

use super::{CoreError, InstanceEntry, ServerCore, TurnHandle};

/// The project's commands: every connected MCP server's prompts, in config order.
pub fn list(entry: &InstanceEntry) -> Vec<CommandInfo> {
    let Ok(mcp) = entry.instance.get::<Mcp>() else {
        return Vec::new();
    };
    mcp.prompts().iter().map(info).collect()
}

fn info(p: &McpPrompt) -> CommandInfo {
    CommandInfo {
        name: p.command(),
        description: p.description.clone().or_else(|| p.title.clone()),
        source: "mcp".into(),
        template: String::new(),
        hints: p.hints(),
    }
}

impl ServerCore {
    /// Renders the command's prompt with its arguments and queues it as the session's next
    /// turn, like [`ServerCore::prompt`]. An unknown command or arguments that do not fit are
    /// the client's error (400), naming what is wrong.
    pub async fn command(
        &self,
        session_id: &str,
        body: CommandBody,
    ) -> Result<TurnHandle, CoreError> {
        let session = self.session_row(session_id)?;
        let entry = self.instance(&session.directory).await?;
        let mcp = entry
            .instance
            .get::<Mcp>()
            .map_err(|e| CoreError::Internal(e.to_string()))?;
        let name = body.command.trim().trim_start_matches('/');
        let words = prompt_text::split_words(&body.arguments)
            .map_err(|e| CoreError::BadRequest(format!("arguments: {e}")))?;
        let text = mcp
            .expand_prompt(name, &words, &CancellationToken::new())
            .await
            .map_err(|e| match e {
                PromptError::Unknown { .. } => CoreError::BadRequest(format!("command: {e}")),
                PromptError::Usage(_) => CoreError::BadRequest(format!("arguments: {e}")),
                PromptError::Mcp(e) => CoreError::Internal(e.to_string()),
            })?;
        let model = body.model.as_deref().and_then(|m| m.split_once('/'));
        let prompt = PromptBody {
            parts: vec![PromptPart::Text { text }],
            model: model.map(|(p, m)| ModelChoice {
                provider_id: p.into(),
                model_id: m.into(),
            }),
            agent: body.agent,
            variant: body.variant,
            message_id: None,
            no_reply: None,
        };
        self.prompt(session_id, prompt).await
    }
}
