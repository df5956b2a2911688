//! The `skill` tool itself: find the skill, ask `skill` for its name, read a sample of the
//! files beside it, and hand the model the instructions.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;
use strata_services::fs::{DirEntry, FileKind, FsUtil};
use strata_services::skills::{self, SKILL_FILE, Skill, Skills};

use super::render::{FILE_SAMPLE, render};
use crate::contract::{Ask, Effects, Tool, ToolCx, ToolError, ToolResult};

/// How deep the file sample looks below the skill directory.
const SAMPLE_DEPTH: usize = 16;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SkillParams {
    /// The skill to load, exactly as named in the list of available skills.
    pub name: String,
}

#[derive(Debug)]
pub struct SkillTool {
    skills: Skills,
    fs: FsUtil,
}

impl Tool for SkillTool {
    const ID: &'static str = "skill";
    const EFFECTS: Effects = Effects::READ_ONLY;
    type Params = SkillParams;
    type Deps = (Skills, FsUtil);

    fn init((skills, fs): Self::Deps) -> Self {
        SkillTool { skills, fs }
    }

    fn description(&self) -> String {
        include_str!("description.md").to_string()
    }

    async fn execute(&self, p: SkillParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        // A skill the rules deny is treated as absent: it is neither listed nor loadable.
        let available: Vec<&Skill> = self.skills.available(cx.rules()).collect();
        let Some(skill) = available.iter().find(|s| s.name == p.name) else {
            return Err(self.not_found(&p.name, &available, &cx));
        };
        cx.ask(Ask::new(
            Self::PERMISSION,
            vec![skill.name.clone()],
            vec![skill.name.clone()],
        ))
        .await?;
        let files = sample(&self.fs, &skill.dir).await;
        let output = render(&skill.name, &skill.body, &skill.dir, &files);
        Ok(
            ToolResult::new(format!("Loaded skill: {}", skill.name), output)
                .meta("name", skill.name.clone())
                .meta("dir", skill.dir.display().to_string()),
        )
    }
}

impl SkillTool {
    /// The error for a name that is not an available skill: a malformed SKILL.md in a folder of
    /// that name is explained; otherwise the available names are listed.
    fn not_found(&self, name: &str, available: &[&Skill], cx: &ToolCx) -> ToolError {
        if !skills::denied(name, cx.rules())
            && let Some(broken) = self.skills.broken_named(name)
        {
            return ToolError::model(format!(
                "The skill \"{name}\" could not be loaded: its file {} is broken ({}). Ask the \
                 user to fix that file, or go on without the skill.",
                broken.location.display(),
                broken.reason
            ));
        }
        if available.is_empty() {
            return ToolError::model(format!(
                "There is no skill named \"{name}\", and no skills are available here. Go on \
                 without one."
            ));
        }
        let names: Vec<&str> = available.iter().map(|s| s.name.as_str()).collect();
        ToolError::model(format!(
            "There is no skill named \"{name}\". Available skills: {}. Call `skill` again with \
             one of these names, spelled exactly.",
            names.join(", ")
        ))
    }
}

/// Up to [`FILE_SAMPLE`] files under `dir` other than SKILL.md, depth first in name order,
/// hidden files included and symlinks not followed. Unreadable folders are passed over.
async fn sample(fs: &FsUtil, dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack: Vec<std::vec::IntoIter<DirEntry>> = match fs.read_dir(dir).await {
        Ok(entries) => vec![entries.into_iter()],
        Err(_) => return files,
    };
    while let Some(level) = stack.last_mut() {
        let Some(entry) = level.next() else {
            stack.pop();
            continue;
        };
        if entry.is_symlink {
            continue;
        }
        match entry.kind {
            FileKind::File if entry.name != SKILL_FILE => {
                files.push(entry.path);
                if files.len() == FILE_SAMPLE {
                    break;
                }
            }
            FileKind::Dir if stack.len() < SAMPLE_DEPTH => {
                if let Ok(entries) = fs.read_dir(&entry.path).await {
                    stack.push(entries.into_iter());
                }
            }
            _ => {}
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_sample_skips_skill_md_and_symlinks_and_stops_at_ten() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::write(dir.join(SKILL_FILE), "x").unwrap();
        std::fs::create_dir_all(dir.join("a/.hidden")).unwrap();
        std::fs::write(dir.join("a/.hidden/h.txt"), "h").unwrap();
        std::fs::write(dir.join("a/one.txt"), "1").unwrap();
        std::fs::write(dir.join("z.txt"), "z").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.join("z.txt"), dir.join("link.txt")).unwrap();
        let fs = FsUtil::live();
        let got = sample(&fs, dir).await;
        assert_eq!(
            got,
            [
                dir.join("a/.hidden/h.txt"),
                dir.join("a/one.txt"),
                dir.join("z.txt")
            ]
        );
        for i in 0..15 {
            std::fs::write(dir.join(format!("f{i:02}")), "").unwrap();
        }
        let got = sample(&fs, dir).await;
        assert_eq!(got.len(), FILE_SAMPLE);
        assert!(!got.iter().any(|p| p.ends_with(SKILL_FILE)));
    }
}
