//! The `strata run` front-end: renders the loop's events (default or `--format json`) and
//! answers the run's permission asks and questions, on one task so a prompt never interleaves
//! with output.

pub(crate) mod headless;
pub(crate) mod json;
pub(crate) mod prompt;
pub(crate) mod question;
mod replies;
mod terminal;
pub(crate) mod text;

use std::io::Write;

use strata_agent::events::LoopEvent;
use strata_agent::store::Store;
use strata_server::core::asks::{permission_event, permission_request, question_event};
use strata_services::permission::{Permission, PermissionEvent, Request};
use strata_services::question::{Question, QuestionEvent, QuestionRequest};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

use crate::args::Format;
use headless::{LocalReplier, StdinLine};
pub(crate) use headless::{Waiting, read_stdin};
use json::JsonRenderer;
use prompt::AskMode;
use text::TextRenderer;

enum Renderer {
    Text(TextRenderer),
    Json(JsonRenderer),
}

/// Everything the front-end task needs.
pub(crate) struct Frontend {
    pub format: Format,
    pub mode: AskMode,
    pub session_id: String,
    pub permission: Permission,
    pub asks: broadcast::Receiver<PermissionEvent>,
    pub question: Question,
    pub questions: broadcast::Receiver<QuestionEvent>,
    /// A person answers questions on the terminal; otherwise a question is dismissed (the run
    /// denies the `question` permission then, so the model should not ask any).
    pub interactive: bool,
    /// Fires on Ctrl-C: a prompt still waiting is abandoned.
    pub cancel: CancellationToken,
    /// Where the run's child sessions (subagents) are found, so their asks are answered too.
    pub store: Store,
    /// Reply lines from stdin (`--answers stdin`); `None` otherwise and once stdin closed.
    pub replies: Option<mpsc::UnboundedReceiver<StdinLine>>,
    /// The asks waiting for a reply from stdin.
    pub waiting: Waiting,
}

impl Frontend {
    /// Renders until the loop drops its sender.
    pub(crate) async fn drive(mut self, mut events: mpsc::UnboundedReceiver<LoopEvent>) {
        let mut renderer = match self.format {
            Format::Default => Renderer::Text(TextRenderer::new(Box::new(std::io::stdout()))),
            Format::Json => Renderer::Json(JsonRenderer::new()),
        };
        let mut asks_open = true;
        let mut questions_open = true;
        loop {
            tokio::select! {
                event = events.recv() => match event {
                    Some(event) => show(&mut renderer, &event),
                    None => break,
                },
                ask = self.asks.recv(), if asks_open => match ask {
                    Ok(event) if self.ours(permission_session(&event)) => {
                        self.on_permission(&mut renderer, event).await;
                    }
                    Ok(_) | Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => asks_open = false,
                },
                asked = self.questions.recv(), if questions_open => match asked {
                    Ok(event) if self.ours(question_session(&event)) => {
                        self.on_question(&mut renderer, event).await;
                    }
                    Ok(_) | Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => questions_open = false,
                },
                line = next_line(&mut self.replies), if self.replies.is_some() => {
                    self.on_stdin(line).await;
                },
            }
        }
        if let Renderer::Text(text) = &mut renderer {
            text.finish();
        }
    }

    /// Whether `session_id` is the run's session or one of its subagents' (at any depth).
    fn ours(&self, session_id: &str) -> bool {
        let mut id = session_id.to_string();
        // Bounded: a parent chain in the store never loops, but a corrupt one must not hang.
        for _ in 0..64 {
            if id == self.session_id {
                return true;
            }
            match self.store.session(&id).ok().and_then(|s| s.parent_id) {
                Some(parent) => id = parent,
                None => return false,
            }
        }
        false
    }

    /// A permission event of the run: a line in JSON runs; an ask is answered.
    async fn on_permission(&mut self, renderer: &mut Renderer, event: PermissionEvent) {
        if self.format == Format::Json {
            headless::emit(&headless::event_line(&permission_event(event.clone())));
        }
        match event {
            PermissionEvent::Asked(req) => self.answer(renderer, &req).await,
            PermissionEvent::Replied { request_id, .. }
            | PermissionEvent::Withdrawn { request_id, .. } => self.waiting.forget(&request_id),
        }
    }

    async fn answer(&mut self, renderer: &mut Renderer, req: &Request) {
        let json = self.format == Format::Json;
        if self.mode == AskMode::Stdin || (json && self.mode == AskMode::Refuse) {
            let to = LocalReplier {
                permission: &self.permission,
                question: &self.question,
            };
            let wire = permission_request(req);
            if self.mode == AskMode::Stdin {
                self.waiting.hold_permission(&wire, &to).await;
            } else {
                eprintln!("{}", prompt::refusal(req));
                headless::refuse_permission(&wire, headless::NO_ANSWERS, &to).await;
            }
            return;
        }
        if let Renderer::Text(text) = renderer {
            text.pause();
        }
        // Cancelled mid-prompt: the loop already withdrew the ask.
        let reply = prompt::decide(self.mode, req, &self.cancel).await;
        if let Renderer::Text(text) = renderer {
            text.resume();
        }
        let Some(reply) = reply else {
            return;
        };
        // The ask may be gone already (cancelled or answered with another request).
        let _ = self.permission.reply(&req.id, reply);
    }

    /// A reply line from stdin, or its end.
    async fn on_stdin(&mut self, line: StdinLine) {
        if matches!(line, StdinLine::Closed) {
            self.replies = None;
        }
        let to = LocalReplier {
            permission: &self.permission,
            question: &self.question,
        };
        self.waiting.on_stdin(line, &self.session_id, &to).await;
    }
}

impl Frontend {
    /// A question event of the run: a line in JSON runs; a question is answered.
    async fn on_question(&mut self, renderer: &mut Renderer, event: QuestionEvent) {
        if self.format == Format::Json {
            headless::emit(&headless::event_line(&question_event(event.clone())));
        }
        match event {
            QuestionEvent::Asked(req) => self.answer_question(renderer, &req).await,
            QuestionEvent::Replied { request_id, .. }
            | QuestionEvent::Rejected { request_id, .. } => self.waiting.forget(&request_id),
        }
    }

    async fn answer_question(&mut self, renderer: &mut Renderer, req: &QuestionRequest) {
        if self.mode == AskMode::Stdin || !self.interactive {
            let to = LocalReplier {
                permission: &self.permission,
                question: &self.question,
            };
            if self.mode == AskMode::Stdin {
                self.waiting.hold_question(req, &to).await;
            } else if self.format == Format::Json {
                eprintln!("{}", question::refusal(req));
                headless::refuse_question(req, headless::NO_ANSWERS, &to).await;
            } else {
                eprintln!("{}", question::refusal(req));
                let _ = self.question.reject(&req.id);
            }
            return;
        }
        if let Renderer::Text(text) = renderer {
            text.pause();
        }
        let answers = tokio::select! {
            answers = question::ask_on_terminal(req) => Some(answers.unwrap_or(None)),
            // Cancelled mid-prompt: the loop already withdrew the question.
            () = self.cancel.cancelled() => None,
        };
        if let Renderer::Text(text) = renderer {
            text.resume();
        }
        // The question may be gone already (its call was cancelled).
        match answers {
            Some(Some(answers)) => {
                let _ = self.question.reply(&req.id, answers);
            }
            Some(None) => {
                let _ = self.question.reject(&req.id);
            }
            None => {}
        }
    }
}

fn permission_session(event: &PermissionEvent) -> &str {
    match event {
        PermissionEvent::Asked(r) => &r.session_id,
        PermissionEvent::Replied { session_id, .. }
        | PermissionEvent::Withdrawn { session_id, .. } => session_id,
    }
}

fn question_session(event: &QuestionEvent) -> &str {
    match event {
        QuestionEvent::Asked(q) => &q.session_id,
        QuestionEvent::Replied { session_id, .. } | QuestionEvent::Rejected { session_id, .. } => {
            session_id
        }
    }
}

/// The next reply line; only polled while stdin is read.
pub(crate) async fn next_line(
    replies: &mut Option<mpsc::UnboundedReceiver<StdinLine>>,
) -> StdinLine {
    match replies {
        Some(rx) => rx.recv().await.unwrap_or(StdinLine::Closed),
        None => std::future::pending().await,
    }
}

fn show(renderer: &mut Renderer, event: &LoopEvent) {
    match (renderer, event) {
        (Renderer::Text(text), LoopEvent::TextDelta { part_id, delta, .. }) => {
            text.delta(part_id, delta);
        }
        (Renderer::Text(text), LoopEvent::Stored(event)) => text.event(event),
        (Renderer::Json(json), LoopEvent::Stored(event)) => {
            if let Some(line) = json.line(event) {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{line}");
                let _ = out.flush();
            }
        }
        (Renderer::Json(_), LoopEvent::TextDelta { .. }) => {}
    }
}

/// A renderer without the local permission front-end, for runs whose events come from a
/// server (`strata run --attach`).
pub(crate) struct Output(Renderer);

impl Output {
    pub(crate) fn new(format: Format) -> Self {
        Self(match format {
            Format::Default => Renderer::Text(TextRenderer::new(Box::new(std::io::stdout()))),
            Format::Json => Renderer::Json(JsonRenderer::new()),
        })
    }

    pub(crate) fn show(&mut self, event: &LoopEvent) {
        show(&mut self.0, event);
    }

    pub(crate) fn finish(&mut self) {
        if let Renderer::Text(text) = &mut self.0 {
            text.finish();
        }
    }
}
