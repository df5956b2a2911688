//! `session/prompt`: the prompt is queued as a turn on the server core, and the session's
//! events are streamed to the editor as updates until the turn ends. Permission asks of the
//! session go to the editor as `session/request_permission`; the answer is handed to the core
//! like any other front-end's reply.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    PromptRequest, PromptResponse, SessionNotification, SessionUpdate, StopReason,
};
use agent_client_protocol::{Client, ErrorCode};
use strata_agent::session::RunOutcome;
use strata_protocol::wire::{PromptBody, PromptPart, ServerEvent};
use strata_server::core::turns::TurnEnd;
use strata_server::core::{EventFilter, Frame, InstanceEntry, Subscription};
use strata_services::mcp::{Mcp, PromptError, prompt_text};
use tokio_util::sync::CancellationToken;

use crate::asks;
use crate::state::{Acp, rpc_error};
use crate::updates::Translator;
use crate::{modes, prompt};

/// How long the events of an ended turn may take to arrive before the prompt answers anyway.
const SETTLE: Duration = Duration::from_secs(2);

/// Runs the prompt to the end of its turn; the answer says why the turn stopped.
pub(crate) async fn run(
    acp: &Acp,
    req: PromptRequest,
    cx: &ConnectionTo<Client>,
) -> Result<PromptResponse, agent_client_protocol::Error> {
    let sid = req.session_id.0.to_string();
    let session = acp.session(&sid)?;
    let entry = acp.core.session_instance(&sid).await.map_err(rpc_error)?;
    let skills = &entry.services.skills;
    let text = prompt::text(&req.prompt);
    let text = match expand_prompt(&entry, &text).await? {
        Some(expanded) => expanded,
        None => modes::expand(&text, |n| skills.get(n).is_some()),
    };
    if text.trim().is_empty() {
        return Err(agent_client_protocol::Error::new(
            ErrorCode::INVALID_PARAMS,
            "prompt: no text block with text in it; send at least one {\"type\":\"text\"} block",
        ));
    }
    // Subscribed before the turn is queued, so none of its events is missed.
    let sub = acp.core.subscribe(EventFilter::All, None);
    let mut parts = vec![PromptPart::Text { text }];
    parts.extend(prompt::files(&req.prompt));
    let body = PromptBody {
        parts,
        model: session.model.as_deref().and_then(crate::models::choice),
        agent: Some(session.mode.clone()),
        variant: None,
        message_id: None,
        no_reply: None,
    };
    let turn = acp.core.prompt(&sid, body).await.map_err(rpc_error)?;
    let cancel = CancellationToken::new();
    acp.set_cancel(&sid, Some(cancel.clone()));
    let follow = Follow {
        acp,
        cx,
        sid: &sid,
        entry,
        cancel: cancel.clone(),
    };
    let end = follow.stream(sub, turn.finished()).await;
    acp.set_cancel(&sid, None);
    // Whatever the turn says, a cancelled prompt answers `cancelled` (as ACP asks).
    if cancel.is_cancelled() {
        return Ok(PromptResponse::new(StopReason::Cancelled));
    }
    stop_reason(end.map_err(rpc_error)?.outcome)
}

/// The text of a turn started with `/server:prompt words…`: the MCP prompt rendered with its
/// arguments; `None` when the text names no MCP prompt. Words that do not fit the prompt are
/// the editor's error, naming what is missing.
async fn expand_prompt(
    entry: &InstanceEntry,
    text: &str,
) -> Result<Option<String>, agent_client_protocol::Error> {
    let Ok(mcp) = entry.instance.get::<Mcp>() else {
        return Ok(None);
    };
    let prompts = mcp.prompts();
    let Some((command, args)) = modes::prompt_command(text, &prompts) else {
        return Ok(None);
    };
    let invalid = |e: String| agent_client_protocol::Error::new(ErrorCode::INVALID_PARAMS, e);
    let words = prompt_text::split_words(args).map_err(|e| invalid(format!("prompt: {e}")))?;
    match mcp
        .expand_prompt(command, &words, &CancellationToken::new())
        .await
    {
        Ok(text) => Ok(Some(text)),
        Err(PromptError::Mcp(e)) => Err(agent_client_protocol::Error::new(
            ErrorCode::INTERNAL_ERROR,
            e.to_string(),
        )),
        Err(e) => Err(invalid(format!("prompt: {e}"))),
    }
}

fn stop_reason(outcome: RunOutcome) -> Result<PromptResponse, agent_client_protocol::Error> {
    let reason = match outcome {
        RunOutcome::Completed | RunOutcome::Stopped { .. } => StopReason::EndTurn,
        RunOutcome::StepLimit { .. } => StopReason::MaxTurnRequests,
        RunOutcome::Cancelled => StopReason::Cancelled,
        RunOutcome::Failed { error } => {
            return Err(agent_client_protocol::Error::new(
                ErrorCode::INTERNAL_ERROR,
                format!("the turn failed: {error}"),
            ));
        }
    };
    Ok(PromptResponse::new(reason))
}

/// One prompt's view of the event stream.
struct Follow<'a> {
    acp: &'a Acp,
    cx: &'a ConnectionTo<Client>,
    sid: &'a str,
    entry: Arc<InstanceEntry>,
    cancel: CancellationToken,
}

impl Follow<'_> {
    /// Forwards the session's events until the turn has ended and its last stored event (or,
    /// failing that, [`SETTLE`] of quiet) has gone by.
    async fn stream(
        &self,
        mut sub: Subscription,
        finished: impl Future<Output = Result<TurnEnd, strata_server::CoreError>>,
    ) -> Result<TurnEnd, strata_server::CoreError> {
        let mut translator = Translator::new(&self.entry.directory);
        // Subagents' sessions started by this turn: their asks are this session's to answer.
        let mut children = HashSet::new();
        tokio::pin!(finished);
        let mut end: Option<Result<TurnEnd, _>> = None;
        let mut seen = 0i64;
        loop {
            if let Some(Ok(e)) = &end
                && seen >= e.cursor
            {
                break;
            }
            if matches!(end, Some(Err(_))) {
                break;
            }
            tokio::select! {
                r = &mut finished, if end.is_none() => end = Some(r),
                frame = sub.next() => {
                    let Some(frame) = frame else { break };
                    seen = seen.max(frame.cursor.unwrap_or(0));
                    self.frame(&frame, &mut translator, &mut children);
                }
                () = tokio::time::sleep(SETTLE), if end.is_some() => break,
            }
        }
        match end {
            Some(r) => r,
            None => finished.await,
        }
    }

    fn frame(&self, frame: &Frame, translator: &mut Translator, children: &mut HashSet<String>) {
        let event = &frame.envelope.event;
        match event {
            ServerEvent::SessionCreated { session_id, info }
                if info.parent_id.as_deref() == Some(self.sid) =>
            {
                children.insert(session_id.clone());
                return;
            }
            ServerEvent::PermissionAsked(request)
                if request.session_id == self.sid || children.contains(&request.session_id) =>
            {
                asks::spawn(
                    self.acp.clone(),
                    self.cx.clone(),
                    self.sid.to_string(),
                    request.clone(),
                    self.cancel.clone(),
                );
                return;
            }
            _ => {}
        }
        if event.session_id() != Some(self.sid) {
            return;
        }
        let registry = &self.entry.services.registry;
        let effects = |id: &str| crate::tool_call::declared_in(registry, id);
        for update in translator.event(event, &effects) {
            send(self.cx, self.sid, update);
        }
    }
}

/// Sends one update; a closed connection ends the work elsewhere, so a failure is only logged.
pub(crate) fn send(cx: &ConnectionTo<Client>, sid: &str, update: SessionUpdate) {
    if let Err(e) = cx.send_notification(SessionNotification::new(sid.to_string(), update)) {
        tracing::debug!(error = %e, session = sid, "an ACP update could not be sent");
    }
}
