//! MCP prompts (issue 23 §2): each connected server's prompts, listed (every page) when it
//! connects and again when it sends `notifications/prompts/list_changed`, and fetched with
//! their arguments (`prompts/get`). Front-ends show them as the commands `server:prompt`; the
//! declarations, the argument parsing and the rendering of a prompt as a turn's text are in
//! [`super::prompt_text`].

use std::sync::{Arc, RwLock};
use std::time::Duration;

use rmcp::model::{GetPromptRequestParams, GetPromptResponse, Prompt, PromptMessage};
use rmcp::{Peer, RoleClient};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::prompt_text::{self, McpPrompt, PromptArg, PromptUsage};
use super::{McpError, State};
use crate::mcp::Mcp;

/// Why a prompt could not become a turn's text.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("there is no MCP prompt `{command}`; {}", known_list(.known))]
    Unknown { command: String, known: Vec<String> },
    #[error(transparent)]
    Usage(#[from] PromptUsage),
    #[error(transparent)]
    Mcp(#[from] McpError),
}

fn known_list(known: &[String]) -> String {
    if known.is_empty() {
        "no connected MCP server offers prompts (see `strata mcp list`)".into()
    } else {
        format!("the MCP prompts are: {}", known.join(", "))
    }
}

/// A server's prompts as last listed; shared with its connection's handler, which lists
/// them again when the server says they changed.
#[derive(Debug, Default)]
pub(super) struct PromptCache(RwLock<Vec<Prompt>>);

impl PromptCache {
    fn get(&self) -> Vec<Prompt> {
        // The list is replaced whole, so a poisoned lock still holds a consistent one.
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub(super) fn set(&self, prompts: Vec<Prompt>) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = prompts;
    }

    /// Lists every page of the server's prompts within `limit`; a failure keeps the old list.
    pub(super) async fn refresh(self: Arc<Self>, peer: Peer<RoleClient>, limit: Duration) {
        match tokio::time::timeout(limit, peer.list_all_prompts()).await {
            Ok(Ok(prompts)) => self.set(prompts),
            Ok(Err(e)) => tracing::info!("MCP `prompts/list` failed: {e}"),
            Err(_) => tracing::info!("MCP `prompts/list` did not answer in time"),
        }
    }
}

/// Whether the server's `initialize` answer declares `prompts`.
pub(super) fn offers_prompts(peer: &Peer<RoleClient>) -> bool {
    peer.peer_info()
        .is_some_and(|i| i.capabilities.prompts.is_some())
}

impl Mcp {
    /// Every connected server's prompts, in config order.
    pub fn prompts(&self) -> Vec<McpPrompt> {
        self.read()
            .iter()
            .filter_map(|e| match &e.state {
                State::Ready(c, _) => Some((e.config.name.clone(), c.prompts.get())),
                _ => None,
            })
            .flat_map(|(server, prompts)| prompts.into_iter().map(move |p| describe(&server, p)))
            .collect()
    }

    /// The prompt front-ends call `command` (`server:prompt`).
    pub fn prompt(&self, command: &str) -> Result<McpPrompt, PromptError> {
        let all = self.prompts();
        match all.iter().find(|p| p.command() == command) {
            Some(p) => Ok(p.clone()),
            None => Err(PromptError::Unknown {
                command: command.to_string(),
                known: all.iter().map(McpPrompt::command).collect(),
            }),
        }
    }

    /// The text of a turn started with the command `command` and the words after it: the
    /// words fill the prompt's arguments, the server renders it, and its messages become one
    /// text (see [`prompt_text::render`]).
    pub async fn expand_prompt(
        &self,
        command: &str,
        words: &[String],
        cancel: &CancellationToken,
    ) -> Result<String, PromptError> {
        let prompt = self.prompt(command)?;
        let args = prompt_text::fill(&prompt, words)?;
        let messages = self.get_prompt(&prompt, args, cancel).await?;
        Ok(prompt_text::render(&messages))
    }

    /// `prompts/get` for `prompt` with `args`.
    pub async fn get_prompt(
        &self,
        prompt: &McpPrompt,
        args: Map<String, Value>,
        cancel: &CancellationToken,
    ) -> Result<Vec<PromptMessage>, McpError> {
        let params = GetPromptRequestParams::new(prompt.name.clone()).with_arguments(args);
        let what = format!("prompts/get {}", prompt.name);
        let got = self
            .request(&prompt.server, &what, cancel, |p| async move {
                p.get_prompt_once(params).await
            })
            .await?;
        match got {
            GetPromptResponse::Complete(r) => Ok(r.messages),
            _ => Err(McpError::Refused {
                server: prompt.server.clone(),
                tool: what,
                message: "it asked for more input, which Strata cannot give a prompt".into(),
            }),
        }
    }
}

/// Lists the prompts of a server that just connected, when it offers any.
pub(super) async fn first_list(peer: &Peer<RoleClient>, limit: Duration) -> Vec<Prompt> {
    if !offers_prompts(peer) {
        return Vec::new();
    }
    match tokio::time::timeout(limit, peer.list_all_prompts()).await {
        Ok(Ok(prompts)) => prompts,
        Ok(Err(e)) => {
            tracing::info!("MCP `prompts/list` failed: {e}");
            Vec::new()
        }
        Err(_) => Vec::new(),
    }
}

fn describe(server: &str, p: Prompt) -> McpPrompt {
    McpPrompt {
        server: server.to_string(),
        name: p.name,
        title: p.title,
        description: p.description,
        arguments: p
            .arguments
            .unwrap_or_default()
            .into_iter()
            .map(|a| PromptArg {
                name: a.name,
                description: a.description,
                required: a.required.unwrap_or(false),
            })
            .collect(),
    }
}
