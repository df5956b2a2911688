//! Skills: the SKILL.md files an instance can load, found once when the instance starts.
//!
//! Sources, in order, later ones replacing an earlier skill of the same name (with a warning):
//! 1. the user's: `<config dir>/skills`, `~/.claude/skills`, `~/.agents/skills`;
//! 2. the project's: in each directory from the worktree root down to the instance directory
//!    (so the nearest wins), `.strata/skills`, `.claude/skills`, `.agents/skills`;
//! 3. each entry of config `skills.paths` (`~/` expanded, relative to the instance directory).
//!
//! Every `SKILL.md` under a source (at any depth) is a skill. Its YAML frontmatter gives `name`
//! (required: a file without one is skipped with a warning) and `description` (optional: a
//! skill without one loads but is not listed to the model). Files are read through [`FsUtil`].

mod discover;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_graph::{BoxError, Node, Scope, Tier};

use crate::config::Config;
use crate::flags::RuntimeFlags;
use crate::fs::FsUtil;
use crate::instance::InstanceInfo;
use crate::permission::{Action, Rule, evaluate};

pub use discover::{SKILL_FILE, discover, sources};

/// The permission a skill is loaded under; its pattern is the skill's name.
pub const PERMISSION: &str = "skill";

/// Where a skill was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkillSource {
    /// The user's skill directories (config dir, `~/.claude`, `~/.agents`).
    User,
    /// A `.strata`, `.claude` or `.agents` directory of the project.
    Project,
    /// An entry of config `skills.paths`.
    ConfigPath,
}

impl fmt::Display for SkillSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad` so that width and alignment flags line up columns.
        f.pad(match self {
            SkillSource::User => "user",
            SkillSource::Project => "project",
            SkillSource::ConfigPath => "skills.paths",
        })
    }
}

/// One loadable skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    /// `None`: the skill loads by name but is not listed to the model.
    pub description: Option<String>,
    /// The SKILL.md file.
    pub location: PathBuf,
    /// The directory holding SKILL.md: the skill's base for relative paths.
    pub dir: PathBuf,
    pub source: SkillSource,
    /// The text after the frontmatter.
    pub body: String,
}

/// A SKILL.md that could not be loaded (unreadable, malformed frontmatter, no name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    pub location: PathBuf,
    /// What is wrong and how to fix it.
    pub reason: String,
}

impl Broken {
    /// The name of the folder holding the file: the name the skill most likely has.
    pub fn folder_name(&self) -> Option<&str> {
        self.location.parent()?.file_name()?.to_str()
    }
}

#[derive(Debug, Default)]
struct Found {
    /// By name, so listings come out sorted.
    skills: BTreeMap<String, Skill>,
    broken: Vec<Broken>,
    warnings: Vec<String>,
}

/// Handle to an instance's skills. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct Skills(Arc<Found>);

impl strata_graph::Service for Skills {
    const KEY: &'static str = "Skills";
}

impl Skills {
    /// The instance-tier node: discovers skills through FsUtil when the instance starts.
    pub fn node() -> Node {
        Node::new(
            Tier::Instance,
            |(fs, info, config, flags): (FsUtil, InstanceInfo, Config, RuntimeFlags),
             _scope: Scope| async move {
                let skills = discover(&fs, &info, &config, &flags).await;
                for warning in skills.warnings() {
                    tracing::warn!(target: "strata::skills", "{warning}");
                }
                Ok::<_, BoxError>(skills)
            },
        )
    }

    /// Every skill, sorted by name.
    pub fn all(&self) -> impl Iterator<Item = &Skill> {
        self.0.skills.values()
    }

    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.0.skills.get(name)
    }

    /// The skills `rules` do not deny, sorted by name.
    pub fn available<'a>(&'a self, rules: &'a [Rule]) -> impl Iterator<Item = &'a Skill> + 'a {
        self.all().filter(move |s| !denied(&s.name, rules))
    }

    /// The skills to list to the model: available and with a description.
    pub fn listed<'a>(&'a self, rules: &'a [Rule]) -> impl Iterator<Item = &'a Skill> + 'a {
        self.available(rules).filter(|s| s.description.is_some())
    }

    /// The directory of every skill, allowed by default for `external_directory` reads.
    pub fn dirs(&self) -> Vec<PathBuf> {
        self.all().map(|s| s.dir.clone()).collect()
    }

    /// SKILL.md files that could not be loaded.
    pub fn broken(&self) -> &[Broken] {
        &self.0.broken
    }

    /// Everything discovery had to say: overrides, skipped files, unreadable sources.
    pub fn warnings(&self) -> &[String] {
        &self.0.warnings
    }

    /// The broken file that most likely was meant by `name` (its folder has that name).
    pub fn broken_named(&self, name: &str) -> Option<&Broken> {
        self.broken().iter().find(|b| b.folder_name() == Some(name))
    }

    fn from_found(found: Found) -> Self {
        Self(Arc::new(found))
    }
}

/// Whether `rules` deny loading the skill `name`.
pub fn denied(name: &str, rules: &[Rule]) -> bool {
    evaluate(PERMISSION, name, &[rules]).action == Action::Deny
}

/// `~/`-expanded and instance-relative form of a `skills.paths` entry.
pub fn resolve_config_path(entry: &str, home: &Path, directory: &Path) -> PathBuf {
    let expanded = if entry == "~" {
        home.to_path_buf()
    } else if let Some(rest) = entry.strip_prefix("~/") {
        home.join(rest)
    } else {
        PathBuf::from(entry)
    };
    crate::instance::normalize(&directory.join(expanded))
}
