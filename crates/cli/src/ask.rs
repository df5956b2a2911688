//! Answering permission asks at the command line: `--yes`, a TTY prompt, or a refusal that
//! says how to allow the call.

use std::io::{BufRead, IsTerminal, Write};

use strata_services::permission::{Permission, PermissionEvent, Reply, Request};
use tokio::task::JoinHandle;

/// How this front-end answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AskMode {
    /// Allow every ask (rules that deny still deny: those never become asks).
    Yes,
    /// Prompt on the terminal.
    Prompt,
    /// Refuse, telling the user to pass `--yes` or run from a terminal.
    Refuse,
}

impl AskMode {
    pub fn from_flags(yes: bool) -> Self {
        if yes {
            AskMode::Yes
        } else if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
            AskMode::Prompt
        } else {
            AskMode::Refuse
        }
    }
}

/// Answers every ask of `permission` until the returned task is aborted.
pub fn spawn_responder(permission: Permission, mode: AskMode) -> JoinHandle<()> {
    let mut events = permission.subscribe();
    tokio::spawn(async move {
        while let Ok(event) = events.recv().await {
            let PermissionEvent::Asked(req) = event else {
                continue;
            };
            let reply = match mode {
                AskMode::Yes => Reply::Once,
                AskMode::Refuse => {
                    eprintln!(
                        "strata: `{}` permission for {} needs approval, and there is no terminal \
                         to ask on. Pass --yes to allow it, or add a rule to strata.json.",
                        req.permission,
                        describe(&req)
                    );
                    Reply::Reject { feedback: None }
                }
                AskMode::Prompt => {
                    let r = req.clone();
                    tokio::task::spawn_blocking(move || prompt(&r))
                        .await
                        .unwrap_or(Reply::Reject { feedback: None })
                }
            };
            let _ = permission.reply(&req.id, reply);
        }
    })
}

fn describe(req: &Request) -> String {
    req.patterns
        .iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn prompt(req: &Request) -> Reply {
    let mut err = std::io::stderr();
    let _ = writeln!(
        err,
        "\nPermission `{}` requested for {}",
        req.permission,
        describe(req)
    );
    let _ = write!(
        err,
        "Allow? [o]nce, [a]lways, [r]eject (then type feedback): "
    );
    let _ = err.flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return Reply::Reject { feedback: None };
    }
    let line = line.trim();
    match line.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('o') | Some('y') => Reply::Once,
        Some('a') => Reply::Always,
        _ => {
            let feedback = line
                .split_once(char::is_whitespace)
                .map(|(_, rest)| rest.trim().to_string())
                .filter(|f| !f.is_empty());
            Reply::Reject { feedback }
        }
    }
}
