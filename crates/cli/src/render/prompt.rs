//! Answering permission asks during `strata run`: `--yes` allows every ask (rules that deny
//! never become asks), `--answers stdin` waits for a reply line (see `super::headless`), a
//! terminal gets a prompt (once / always / reject with feedback), and without a terminal the
//! ask is refused with a note on how to allow it.

use std::io::{BufRead, IsTerminal, Write};

use strata_services::permission::{Reply, Request};
use tokio::sync::oneshot;

use super::terminal::spawn_prompt;

/// How this run answers asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AskMode {
    Yes,
    /// Reply lines on stdin (`--answers stdin`); the front-end keeps the ask until one comes.
    Stdin,
    Prompt,
    Refuse,
}

impl AskMode {
    pub(crate) fn from_flags(yes: bool, answers_on_stdin: bool) -> Self {
        if yes {
            AskMode::Yes
        } else if answers_on_stdin {
            AskMode::Stdin
        } else if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
            AskMode::Prompt
        } else {
            AskMode::Refuse
        }
    }
}

fn patterns(req: &Request) -> String {
    req.patterns
        .iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What is printed when an ask is refused for lack of a terminal.
pub(crate) fn refusal(req: &Request) -> String {
    format!(
        "strata: `{}` permission for {} needs approval and there is no terminal to ask on; \
         pass --yes to allow it, or add an allow rule under \"permission\" in strata.json",
        req.permission,
        patterns(req)
    )
}

/// Starts the prompt on its own thread (see [`spawn_prompt`]) and returns the answer channel.
pub(crate) fn ask_on_terminal(req: &Request) -> oneshot::Receiver<Reply> {
    let req = req.clone();
    // No thread, no prompt: the receiver sees a closed channel and the caller rejects.
    spawn_prompt(
        "permission-prompt",
        "strata: could not start the permission prompt; rejecting the request",
        move |input, err| prompt(&req, input, err),
    )
}

/// The answer this front-end gives to `req`: `None` when `cancel` fires while a prompt is open
/// (the ask has been withdrawn then, and nobody should reply).
pub(crate) async fn decide(
    mode: AskMode,
    req: &Request,
    cancel: &tokio_util::sync::CancellationToken,
) -> Option<Reply> {
    match mode {
        AskMode::Yes => Some(Reply::Once),
        // Nothing here reads stdin replies: refused like a run without a terminal.
        AskMode::Refuse | AskMode::Stdin => {
            eprintln!("{}", refusal(req));
            Some(Reply::Reject { feedback: None })
        }
        AskMode::Prompt => {
            tokio::select! {
                reply = ask_on_terminal(req) => {
                    Some(reply.unwrap_or(Reply::Reject { feedback: None }))
                }
                () = cancel.cancelled() => None,
            }
        }
    }
}

/// Asks once on `err` and reads the answer from `input`.
pub(crate) fn prompt(req: &Request, input: &mut dyn BufRead, err: &mut dyn Write) -> Reply {
    let _ = writeln!(
        err,
        "\nPermission needed: `{}` for {}",
        req.permission,
        patterns(req)
    );
    // A re-ask after the file changed on disk says so before anything else.
    let reasked = req.metadata.get("changedSinceAsk").is_some();
    if let Some(title) = (req.metadata.get("title").and_then(|t| t.as_str())).filter(|_| reasked) {
        let _ = writeln!(err, "  {title}");
    }
    if !req.always.is_empty() && req.always != req.patterns {
        let _ = writeln!(err, "  (always would allow: {})", req.always.join(", "));
    }
    if req.metadata["escapesSandbox"] == true {
        let why = req.metadata["justification"]
            .as_str()
            .unwrap_or("(none given)");
        let _ = writeln!(
            err,
            "  This command would run OUTSIDE the sandbox, with all your access. The model's \
             reason: {why}"
        );
    }
    loop {
        let _ = write!(err, "Allow? [o]nce, [a]lways, [r]eject: ");
        let _ = err.flush();
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => return Reply::Reject { feedback: None },
            Ok(_) => {}
        }
        match line.trim().to_ascii_lowercase().as_str() {
            "o" | "once" | "y" | "yes" => return Reply::Once,
            "a" | "always" => return Reply::Always,
            "r" | "reject" | "n" | "no" => {
                let _ = write!(err, "Tell the model why (optional, Enter to skip): ");
                let _ = err.flush();
                let mut note = String::new();
                let _ = input.read_line(&mut note);
                let note = note.trim();
                return Reply::Reject {
                    feedback: (!note.is_empty()).then(|| note.to_string()),
                };
            }
            _ => {
                let _ = writeln!(err, "Please answer o, a or r.");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req() -> Request {
        Request {
            id: "per_1".into(),
            session_id: "ses_1".into(),
            permission: "read".into(),
            patterns: vec![".env".into()],
            always: vec!["*".into()],
            metadata: serde_json::json!({}),
            tool: None,
            shown: None,
        }
    }

    fn answer(typed: &str) -> (Reply, String) {
        let mut err = Vec::new();
        let reply = prompt(&req(), &mut typed.as_bytes(), &mut err);
        (reply, String::from_utf8(err).unwrap())
    }

    #[test]
    fn once_always_and_reject_with_feedback() {
        assert_eq!(answer("o\n").0, Reply::Once);
        assert_eq!(answer("always\n").0, Reply::Always);
        assert_eq!(answer("r\n\n").0, Reply::Reject { feedback: None });
        let (reply, shown) = answer("what\nr\nuse the example file\n");
        assert_eq!(
            reply,
            Reply::Reject {
                feedback: Some("use the example file".into())
            }
        );
        assert!(
            shown.contains("`read` for `.env`") && shown.contains("Please answer"),
            "{shown}"
        );
        assert_eq!(
            answer("").0,
            Reply::Reject { feedback: None },
            "end of input rejects"
        );
        assert!(refusal(&req()).contains("--yes"));
    }

    #[test]
    fn an_escape_ask_says_the_command_leaves_the_sandbox_and_why() {
        let mut escape = req();
        escape.permission = "sandbox_escape".into();
        escape.metadata = serde_json::json!({"escapesSandbox": true, "justification": "push"});
        let mut err = Vec::new();
        prompt(&escape, &mut "o\n".as_bytes(), &mut err);
        let shown = String::from_utf8(err).unwrap();
        assert!(
            shown.contains("OUTSIDE the sandbox") && shown.contains("reason: push"),
            "{shown}"
        );
        assert!(!answer("o\n").1.contains("OUTSIDE"), "only for escapes");
    }

    #[test]
    fn a_re_ask_says_why_it_asks_again() {
        let mut again = req();
        again.metadata = serde_json::json!({
            "title": "a.txt changed since the last ask; this is the diff against the file as it is now",
            "changedSinceAsk": {"requestID": "per_0", "files": ["a.txt"]},
        });
        let mut err = Vec::new();
        assert_eq!(prompt(&again, &mut "o\n".as_bytes(), &mut err), Reply::Once);
        let shown = String::from_utf8(err).unwrap();
        assert!(
            shown.contains("\n  a.txt changed since the last ask"),
            "{shown}"
        );
        assert!(
            !answer("o\n").1.contains("changed since"),
            "only on a re-ask"
        );
    }
}
