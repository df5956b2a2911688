//! `strata hooks list` and `strata hooks trust`, and the question a run on a terminal asks
//! when the project's hooks are not trusted yet. A project's hooks run commands on the
//! user's machine, so they wait until the user has trusted them once; the trust is kept
//! against a hash of their config and asked again when it changes.

use std::io::{BufRead, IsTerminal, Write};

use serde_json::json;
use strata_services::hooks::Hooks;

use super::instance;
use crate::args::{Format, HooksCommand};

pub(super) async fn hooks(command: HooksCommand) -> u8 {
    let (dir, list_format) = match &command {
        HooksCommand::List { format, dir } => (dir.clone(), Some(*format)),
        HooksCommand::Trust { dir } => (dir.clone(), None),
    };
    let (runtime, inst) = match instance::open(dir).await {
        Ok(x) => x,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    let code = match inst.get::<Hooks>() {
        Err(e) => {
            eprintln!("strata: {e}");
            1
        }
        Ok(hooks) => match list_format {
            Some(format) => list(&hooks, format),
            None => trust(&hooks),
        },
    };
    instance::close(runtime, inst).await;
    code
}

fn list(hooks: &Hooks, format: Format) -> u8 {
    let entries = hooks.entries();
    match format {
        Format::Json => {
            let rows: Vec<_> = entries
                .iter()
                .map(|e| {
                    json!({
                        "event": e.event.name(),
                        "matcher": e.matcher,
                        "command": e.command,
                        "timeout": e.timeout.as_secs_f64(),
                        "file": e.file,
                        "trusted": e.trusted,
                    })
                })
                .collect();
            let out = json!({"hooks": rows, "warnings": hooks.warnings()});
            println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        }
        Format::Default => {
            if entries.is_empty() {
                println!("No hooks configured.");
            }
            for e in &entries {
                let matcher = if e.matcher.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", e.matcher)
                };
                let state = if e.trusted { "trusted" } else { "NOT trusted" };
                println!("{}{matcher}: {}", e.event, e.command);
                println!("    from {} ({state})", e.file);
            }
            for w in hooks.warnings() {
                eprintln!("strata: warning: {w}");
            }
        }
    }
    0
}

fn trust(hooks: &Hooks) -> u8 {
    match hooks.trust() {
        Ok(true) => {
            println!(
                "Trusted the hooks of {} in {}; they run from the next session on. A change \
                 to them asks again.",
                hooks.project().display(),
                hooks.project_files().join(", ")
            );
            0
        }
        Ok(false) => {
            println!(
                "{} has no hooks of its own; nothing to trust.",
                hooks.project().display()
            );
            0
        }
        Err(e) => {
            eprintln!(
                "strata: could not record the trust: {e}; check that the data directory is writable"
            );
            1
        }
    }
}

/// On a terminal, shows the project's untrusted hooks and asks whether to trust them now;
/// anywhere else the warning (already printed) says to run `strata hooks trust`.
pub(crate) fn offer_trust(hooks: &Hooks) {
    if hooks.untrusted().is_none()
        || !std::io::stdin().is_terminal()
        || !std::io::stderr().is_terminal()
    {
        return;
    }
    let mut err = std::io::stderr();
    let _ = writeln!(
        err,
        "The project has hooks that run commands on this machine:"
    );
    for e in hooks.entries().iter().filter(|e| !e.trusted) {
        let _ = writeln!(
            err,
            "  {} {}: {}  ({})",
            e.event, e.matcher, e.command, e.file
        );
    }
    let _ = write!(err, "Trust them and let them run? [y/N] ");
    let _ = err.flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return;
    }
    if !matches!(answer.trim(), "y" | "Y" | "yes") {
        let _ = writeln!(err, "strata: the project's hooks stay off for this session");
        return;
    }
    match hooks.trust() {
        Ok(_) => {
            let _ = writeln!(err, "strata: trusted; the project's hooks run from now on");
        }
        Err(e) => {
            let _ = writeln!(err, "strata: could not record the trust: {e}");
        }
    }
}
