//! The notice the next model request carries when a background shell ended (spec §7.6): one
//! user message per request that has news, naming each shell, how it ended and its last
//! lines. Stored like the loop's other messages, so a resumed session reads the same history.

use strata_protocol::message::UserMessage;
use strata_protocol::part::TextPart;
use strata_services::background::{BackgroundShells, Notice};
use strata_services::fs::to_slash;

use super::record::Recorder;
use crate::store::{Role, StoreError, now_ms};

/// Records a message with the notices of the session's shells that ended unseen; nothing when
/// there are none.
pub(crate) fn deliver(
    shells: &BackgroundShells,
    rec: &Recorder,
    agent: &str,
) -> Result<(), StoreError> {
    let notices = shells.take_notices(rec.session_id());
    if notices.is_empty() {
        return Ok(());
    }
    let message = rec.message(Role::User, &UserMessage::new(now_ms(), agent))?;
    rec.part(
        &message.id,
        None,
        &TextPart::user(&notice_text(&notices)).into(),
    )?;
    Ok(())
}

/// The text of one notice message.
pub fn notice_text(notices: &[Notice]) -> String {
    let mut out = String::from("<background-shells>\n");
    for n in notices {
        out.push_str(&format!(
            "Background shell {} (`{}`) {}.",
            n.id,
            n.command.trim(),
            n.status.describe()
        ));
        if n.last_lines.is_empty() {
            out.push_str(" It printed nothing.\n");
        } else {
            out.push_str(" Its last lines:\n");
            out.push_str(&n.last_lines);
            out.push('\n');
        }
        if let Some(file) = &n.file {
            out.push_str(&format!("The complete output is in {}.\n", to_slash(file)));
        }
        if let Some(hint) = &n.hint {
            out.push_str(hint);
            out.push('\n');
        }
    }
    out.push_str("</background-shells>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_services::background::ShellStatus;

    #[test]
    fn a_notice_names_the_shell_its_end_and_last_lines() {
        let notices = [
            Notice {
                id: "bg_1".into(),
                command: "make watch ".into(),
                status: ShellStatus::Exited { code: Some(2) },
                last_lines: "error: x\nstopped".into(),
                hint: None,
                file: None,
            },
            Notice {
                id: "bg_2".into(),
                command: "true".into(),
                status: ShellStatus::Exited { code: Some(0) },
                last_lines: String::new(),
                hint: None,
                file: None,
            },
        ];
        assert_eq!(
            notice_text(&notices),
            "<background-shells>\nBackground shell bg_1 (`make watch`) exited with status 2. \
             Its last lines:\nerror: x\nstopped\nBackground shell bg_2 (`true`) exited with \
             status 0. It printed nothing.\n</background-shells>"
        );
    }
}
