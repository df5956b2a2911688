//! `strata session list | show ID | export ID`: the stored sessions, read straight from the
//! database in the data directory (no project instance needed).

use std::path::Path;

use serde_json::Value;
use strata_agent::events::session_json;
use strata_agent::session::export;
use strata_agent::session::totals::totals;
use strata_agent::store::{Role, Session, Store};
use strata_protocol::{AssistantMessage, PartData};
use strata_services::clock::utc_date;
use strata_services::flags::RuntimeFlags;
use strata_services::todo::Todo;

use crate::args::{Format, SessionCommand};

pub(super) async fn session(cmd: SessionCommand) -> u8 {
    let flags = RuntimeFlags::from_env();
    let store = match Store::open_in(&flags.data_dir) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    // What a killed run left mid-call is closed first, so no part shows `running` forever.
    if let SessionCommand::Show { id } | SessionCommand::Export { id } = &cmd
        && let Err(e) = strata_agent::recover::recover_session(&store, id)
    {
        eprintln!("strata: could not close what an interrupted run left in session {id}: {e}");
    }
    let result = match cmd {
        SessionCommand::List { dir, format } => list(&store, dir.as_deref(), format),
        SessionCommand::Show { id } => show(&store, &id),
        SessionCommand::Export { id } => export(&store, &id)
            .map_err(|e| e.to_string())
            .and_then(|v| serde_json::to_string_pretty(&v).map_err(|e| e.to_string()))
            .map(|text| println!("{text}")),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("strata: {e}");
            1
        }
    }
}

fn list(store: &Store, dir: Option<&Path>, format: Format) -> Result<(), String> {
    let dir = match dir {
        Some(d) => Some(std::fs::canonicalize(d).map_err(|e| {
            format!(
                "cannot use the directory {} ({e}); pass an existing project directory",
                d.display()
            )
        })?),
        None => None,
    };
    let sessions = store
        .list_sessions(dir.as_deref())
        .map_err(|e| e.to_string())?;
    match format {
        Format::Json => {
            let all: Vec<Value> = sessions.iter().map(session_json).collect();
            println!("{}", Value::Array(all));
        }
        Format::Default => {
            if sessions.is_empty() {
                eprintln!("strata: no sessions yet; start one with `strata run \"…\"`");
            }
            for (depth, s) in tree(&sessions) {
                let title = if s.title.is_empty() {
                    "(untitled)"
                } else {
                    &s.title
                };
                println!(
                    "{}{}  {}  {title}  [{}]",
                    "  ".repeat(depth),
                    s.id,
                    when(s.updated_ms),
                    s.directory.display()
                );
            }
        }
    }
    Ok(())
}

/// The sessions in listing order, each child right under its parent (indented one level per
/// generation, oldest child first). A child whose parent is not listed stands at the top.
fn tree(sessions: &[Session]) -> Vec<(usize, &Session)> {
    let listed = |id: &str| sessions.iter().any(|s| s.id == id);
    let mut out = Vec::with_capacity(sessions.len());
    let mut stack: Vec<(usize, &Session)> = sessions
        .iter()
        .filter(|s| !s.parent_id.as_deref().is_some_and(listed))
        .rev()
        .map(|s| (0, s))
        .collect();
    while let Some((depth, s)) = stack.pop() {
        out.push((depth, s));
        let mut kids: Vec<&Session> = sessions
            .iter()
            .filter(|c| c.parent_id.as_deref() == Some(s.id.as_str()))
            .collect();
        kids.sort_by_key(|c| (c.created_ms, c.id.clone()));
        stack.extend(kids.into_iter().rev().map(|c| (depth + 1, c)));
    }
    out
}

fn show(store: &Store, id: &str) -> Result<(), String> {
    let session = store.session(id).map_err(|e| e.to_string())?;
    println!("{}  {}", session.id, session.title);
    println!(
        "{}  updated {}",
        session.directory.display(),
        when(session.updated_ms)
    );
    if let Some(line) = super::worktree::describe(&session.directory) {
        println!("{line}");
    }
    println!();
    let messages = store.messages(id).map_err(|e| e.to_string())?;
    println!("{}\n", totals(&messages).line());
    let todos = store.todos(id).map_err(|e| e.to_string())?;
    if !todos.is_empty() {
        println!("Todo list:");
        for t in &todos {
            println!("{}", todo_line(t));
        }
        println!();
    }
    let hooks = strata_agent::session::hooks::runs(store, id).map_err(|e| e.to_string())?;
    if !hooks.is_empty() {
        println!("Hooks that ran:");
        for run in &hooks {
            println!("  {}", strata_agent::session::hooks::summary(run));
        }
        println!();
    }
    for (message, parts) in messages {
        let who = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        println!("[{who}] {}", when(message.created_ms));
        for part in parts {
            match PartData::of(&part) {
                Some(PartData::Text(text)) => println!("{}", text.text),
                Some(PartData::Reasoning(r)) if !r.text.is_empty() => {
                    println!("  (thinking) {}", r.text.lines().next().unwrap_or_default());
                }
                Some(PartData::Compaction(c)) => {
                    println!("  (compacted: the conversation above was summarised)");
                    println!("{}", c.summary);
                }
                Some(PartData::Tool(call)) => {
                    let status = call.state.status();
                    let title = call.state.title().unwrap_or_default();
                    let tool = if call.tool.is_empty() {
                        "?"
                    } else {
                        &call.tool
                    };
                    println!("  • {tool} ({status}) {title}");
                    if let Some(error) = call.state.error() {
                        println!("    {}", error.lines().next().unwrap_or_default());
                    }
                }
                _ => {}
            }
        }
        if let Some(error) = AssistantMessage::from_value(&message.data)
            .ok()
            .and_then(|m| m.error)
        {
            println!("  error: {}", error.data.message);
        }
        println!();
    }
    Ok(())
}

/// `  [x] Run the tests (high)`: a box for the status (`x` completed, `>` in progress, `-`
/// cancelled, blank pending), the item, its priority; an unknown status is spelled out.
fn todo_line(t: &Todo) -> String {
    let mark = match t.status.as_str() {
        "completed" => "[x]".to_string(),
        "in_progress" => "[>]".to_string(),
        "cancelled" => "[-]".to_string(),
        "pending" => "[ ]".to_string(),
        other => format!("[{other}]"),
    };
    format!("  {mark} {} ({})", t.content, t.priority)
}

/// `YYYY-MM-DD HH:MM` (UTC) for milliseconds since the epoch.
fn when(ms: i64) -> String {
    let minutes = ms.div_euclid(60_000).rem_euclid(24 * 60);
    format!("{} {:02}:{:02}", utc_date(ms), minutes / 60, minutes % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn todo_lines_show_the_status_as_a_box() {
        let line = |status| todo_line(&Todo::new("Run the tests", status, "high"));
        assert_eq!(line("completed"), "  [x] Run the tests (high)");
        assert_eq!(line("in_progress"), "  [>] Run the tests (high)");
        assert_eq!(line("pending"), "  [ ] Run the tests (high)");
        assert_eq!(line("cancelled"), "  [-] Run the tests (high)");
        assert_eq!(line("blocked"), "  [blocked] Run the tests (high)");
    }

    #[test]
    fn children_are_listed_under_their_parent() {
        let session = |id: &str, parent: Option<&str>, created_ms: i64| Session {
            id: id.into(),
            directory: "/p".into(),
            title: String::new(),
            created_ms,
            updated_ms: 0,
            parent_id: parent.map(str::to_string),
        };
        let all = vec![
            session("b", None, 5),
            session("a2", Some("a"), 3),
            session("a", None, 1),
            session("a1", Some("a"), 2),
            session("a1x", Some("a1"), 4),
            session("orphan", Some("gone"), 6),
        ];
        let shown: Vec<(usize, &str)> = tree(&all)
            .into_iter()
            .map(|(d, s)| (d, s.id.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                (0, "b"),
                (0, "a"),
                (1, "a1"),
                (2, "a1x"),
                (1, "a2"),
                (0, "orphan")
            ]
        );
    }

    #[test]
    fn when_formats_utc() {
        assert_eq!(when(0), "1970-01-01 00:00");
        assert_eq!(
            when(1_767_225_600_000 + 13 * 3_600_000 + 5 * 60_000),
            "2026-01-01 13:05"
        );
    }
}
