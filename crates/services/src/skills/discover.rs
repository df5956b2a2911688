//! Finding and reading SKILL.md files: the source directories in order, a walk of each through
//! FsUtil, and the frontmatter of every file found.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Broken, Found, Skill, SkillSource, Skills, resolve_config_path};
use crate::config::Config;
use crate::fs::{FileKind, FsUtil};
use crate::instance::InstanceInfo;
use crate::{flags::RuntimeFlags, frontmatter};

/// The file that makes a directory a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// A SKILL.md larger than this is not read (it would not fit a prompt anyway).
const MAX_SKILL_BYTES: u64 = 1024 * 1024;

/// How deep below a source directory SKILL.md files are looked for.
const MAX_DEPTH: usize = 12;

/// Folders never walked into: they hold dependencies or history, not skills.
const SKIPPED_DIRS: [&str; 2] = [".git", "node_modules"];

/// The project folders (in each directory walked) that hold a `skills` folder, in order.
const PROJECT_FOLDERS: [&str; 3] = [".strata", ".claude", ".agents"];

/// The frontmatter keys a skill uses; others are ignored.
#[derive(Debug, Default, Deserialize)]
struct Meta {
    name: Option<String>,
    description: Option<String>,
}

/// Every source directory in discovery order, with where it came from. Config entries are
/// included whether or not they exist (discovery warns about missing ones).
pub fn sources(
    info: &InstanceInfo,
    config: &Config,
    flags: &RuntimeFlags,
) -> Vec<(PathBuf, SkillSource)> {
    let home = &flags.home_dir;
    let mut out = vec![
        (flags.config_dir.join("skills"), SkillSource::User),
        (home.join(".claude").join("skills"), SkillSource::User),
        (home.join(".agents").join("skills"), SkillSource::User),
    ];
    for dir in info.project_dirs() {
        for folder in PROJECT_FOLDERS {
            out.push((dir.join(folder).join("skills"), SkillSource::Project));
        }
    }
    for entry in &config.skills.paths {
        out.push((
            resolve_config_path(entry, home, &info.directory),
            SkillSource::ConfigPath,
        ));
    }
    out
}

/// Finds every skill of an instance. Never fails: whatever cannot be read becomes a warning
/// (and, for a SKILL.md, a [`Broken`] entry), and the rest still loads.
pub async fn discover(
    fs: &FsUtil,
    info: &InstanceInfo,
    config: &Config,
    flags: &RuntimeFlags,
) -> Skills {
    let mut found = Found::default();
    for (root, source) in sources(info, config, flags) {
        match fs.stat(&root).await {
            Ok(Some(m)) if m.kind == FileKind::Dir => {}
            Ok(Some(_)) if source == SkillSource::ConfigPath => {
                found.warnings.push(format!(
                    "skills.paths entry {} is not a directory; point it at a folder holding \
                     skills",
                    root.display()
                ));
                continue;
            }
            Ok(None) if source == SkillSource::ConfigPath => {
                found.warnings.push(format!(
                    "skills.paths entry {} does not exist; fix or remove it in the config",
                    root.display()
                ));
                continue;
            }
            Ok(_) => continue,
            Err(e) => {
                found
                    .warnings
                    .push(format!("could not look at {}: {e}", root.display()));
                continue;
            }
        }
        for file in walk(fs, &root, &mut found.warnings).await {
            load(fs, &file, source, &mut found).await;
        }
    }
    Skills::from_found(found)
}

/// Every SKILL.md under `root`, depth first in name order. Symlinked folders are followed once.
async fn walk(fs: &FsUtil, root: &Path, warnings: &mut Vec<String>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        let real = fs.resolve_real(&dir).await;
        if !seen.insert(real) {
            continue;
        }
        let entries = match fs.read_dir(&dir).await {
            Ok(e) => e,
            Err(e) => {
                warnings.push(format!("could not list {}: {e}", dir.display()));
                continue;
            }
        };
        let mut subdirs = Vec::new();
        for entry in entries {
            match entry.kind {
                FileKind::File if entry.name == SKILL_FILE => files.push(entry.path),
                FileKind::Dir
                    if depth < MAX_DEPTH && !SKIPPED_DIRS.contains(&entry.name.as_str()) =>
                {
                    subdirs.push(entry.path)
                }
                _ => {}
            }
        }
        // Reversed so the stack pops them in name order.
        stack.extend(subdirs.into_iter().rev().map(|d| (d, depth + 1)));
    }
    files
}

/// Reads one SKILL.md into `found`: a skill (replacing one of the same name, with a warning),
/// or a broken entry with a warning naming the file.
async fn load(fs: &FsUtil, file: &Path, source: SkillSource, found: &mut Found) {
    let mut skip = |reason: String| {
        found
            .warnings
            .push(format!("skipped the skill {}: {reason}", file.display()));
        found.broken.push(Broken {
            location: file.to_path_buf(),
            reason,
        });
    };
    let bytes = match fs.read(file, MAX_SKILL_BYTES).await {
        Ok(b) => b,
        Err(e) => return skip(format!("it could not be read ({e})")),
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return skip("it is not UTF-8 text; save it as UTF-8".into());
    };
    let parsed = match frontmatter::parse::<Meta>(&text) {
        Ok(p) => p,
        Err(e) => return skip(format!("{e}; fix the frontmatter between the `---` lines")),
    };
    let meta = parsed.meta.unwrap_or_default();
    let Some(name) = meta
        .name
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
    else {
        return skip(
            "its frontmatter has no `name`; start the file with `---`, `name: <skill-name>`, \
             `description: <when to use it>`, `---`"
                .into(),
        );
    };
    let skill = Skill {
        description: meta
            .description
            .map(|d| d.trim().to_string())
            .filter(|d| !d.is_empty()),
        location: file.to_path_buf(),
        dir: file.parent().unwrap_or(file).to_path_buf(),
        source,
        body: parsed.body.to_string(),
        name: name.clone(),
    };
    if let Some(old) = found.skills.insert(name.clone(), skill) {
        found.warnings.push(format!(
            "the skill `{name}` at {} replaces the one at {} (later sources win)",
            file.display(),
            old.location.display()
        ));
    }
}
