//! Instruction files near a file being read (spec §1 step 12): `AGENTS.md`, `CLAUDE.md`,
//! `CONTEXT.md` in the directories between the file and the project root, each attached once
//! per session. A file the system prompt already holds (see [`Instructions`]) is never
//! attached.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use strata_services::fs::FsUtil;
use strata_services::instance::InstanceInfo;
use strata_services::instructions::Instructions;

use crate::contract::ToolCx;

const NAMES: &[&str] = &["AGENTS.md", "CLAUDE.md", "CONTEXT.md"];
/// Instruction files are small; a larger one is skipped rather than flooding the context.
const MAX_INSTRUCTION_BYTES: u64 = 64 * 1024;

/// Which instruction files each session has already been given.
#[derive(Debug, Default)]
pub(super) struct Claims {
    by_session: Mutex<HashMap<String, HashSet<PathBuf>>>,
}

impl Claims {
    /// The instruction files to attach to a read of `file`, with their contents.
    pub(super) async fn find(
        &self,
        info: &InstanceInfo,
        fs: &FsUtil,
        system: &Instructions,
        file: &Path,
        cx: &ToolCx,
    ) -> Vec<(PathBuf, String)> {
        let in_prompt = system.paths().await;
        let mut found = Vec::new();
        let mut dir = file.parent();
        while let Some(d) = dir {
            if d == info.directory || !d.starts_with(&info.directory) {
                break;
            }
            for name in NAMES {
                let candidate = d.join(name);
                if candidate == file || in_prompt.contains(&candidate) {
                    continue;
                }
                if let Ok(bytes) = fs.read(&candidate, MAX_INSTRUCTION_BYTES).await {
                    found.push((candidate, String::from_utf8_lossy(&bytes).into_owned()));
                    break;
                }
            }
            dir = d.parent();
        }
        // The lock is never held across an await; poisoning would need a panic in `insert`.
        let mut claims = self.by_session.lock().unwrap_or_else(|p| p.into_inner());
        let seen = claims.entry(cx.session_id.clone()).or_default();
        found.retain(|(p, _)| seen.insert(p.clone()));
        found
    }
}

/// The `<system-reminder>` block appended to the output.
pub(super) fn reminder(loaded: &[(PathBuf, String)]) -> String {
    let blocks: Vec<String> = loaded
        .iter()
        .map(|(p, text)| format!("Instructions from: {}\n{text}", p.display()))
        .collect();
    format!(
        "\n\n<system-reminder>\n{}\n</system-reminder>",
        blocks.join("\n\n")
    )
}
