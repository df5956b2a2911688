//! Which config sources are read, in precedence order (lowest first; see the module docs of
//! [`super`] for the rule). A pure function of the instance, the runtime flags and an
//! environment reader: which files exist is decided later, when they are read.

use std::path::{Path, PathBuf};

use crate::flags::RuntimeFlags;
use crate::instance::InstanceInfo;

/// The environment variable naming one more config file (opencode's).
pub const OPENCODE_CONFIG: &str = "OPENCODE_CONFIG";
/// The environment variable holding config as inline JSON (opencode's).
pub const OPENCODE_CONFIG_CONTENT: &str = "OPENCODE_CONFIG_CONTENT";

/// opencode's global file names, in the order they are read.
const OPENCODE_GLOBAL: [&str; 3] = ["opencode.json", "opencode.jsonc", "config.json"];
/// opencode's project file names, in the order they are read.
const OPENCODE_PROJECT: [&str; 2] = ["opencode.json", "opencode.jsonc"];

/// One place config comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A file; skipped when it does not exist.
    File(PathBuf),
    /// The file `OPENCODE_CONFIG` names; a warning when it does not exist.
    Named(PathBuf),
    /// `OPENCODE_CONFIG_CONTENT`: JSON (with comments) given inline.
    Inline(String),
}

impl Source {
    /// How the source is named in errors, warnings and `strata debug config`.
    pub fn label(&self) -> String {
        match self {
            Source::File(p) | Source::Named(p) => p.display().to_string(),
            Source::Inline(_) => OPENCODE_CONFIG_CONTENT.to_string(),
        }
    }
}

/// Every source, lowest precedence first.
pub fn sources(
    info: &InstanceInfo,
    flags: &RuntimeFlags,
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<Source> {
    let var = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    let mut out: Vec<Source> = OPENCODE_GLOBAL
        .iter()
        .map(|name| Source::File(flags.opencode_config_dir.join(name)))
        .collect();
    out.push(Source::File(flags.config_dir.join(super::FILE_NAME)));
    if let Some(path) = var(OPENCODE_CONFIG) {
        out.push(Source::Named(info.directory.join(path.trim())));
    }
    let dirs = info.project_dirs();
    let last = dirs.len().saturating_sub(1);
    for (i, dir) in dirs.into_iter().enumerate() {
        out.extend(opencode_files(dir).into_iter().map(Source::File));
        if i == last
            && let Some(text) = var(OPENCODE_CONFIG_CONTENT)
        {
            out.push(Source::Inline(text));
        }
        out.extend(strata_files(dir).into_iter().map(Source::File));
    }
    out
}

/// opencode's files in one project folder.
fn opencode_files(dir: &Path) -> Vec<PathBuf> {
    let dot = dir.join(".opencode");
    OPENCODE_PROJECT
        .iter()
        .map(|name| dir.join(name))
        .chain(OPENCODE_PROJECT.iter().map(|name| dot.join(name)))
        .collect()
}

/// Strata's files in one project folder.
fn strata_files(dir: &Path) -> [PathBuf; 2] {
    [
        dir.join(super::FILE_NAME),
        dir.join(".strata").join(super::FILE_NAME),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(directory: &str, worktree: &str) -> InstanceInfo {
        InstanceInfo {
            directory: directory.into(),
            worktree: worktree.into(),
            data_dir: "/data".into(),
            vcs: None,
        }
    }

    fn labels(sources: &[Source]) -> Vec<String> {
        sources
            .iter()
            .map(|s| match s {
                Source::File(p) => p.display().to_string(),
                Source::Named(p) => format!("named {}", p.display()),
                Source::Inline(t) => format!("inline {t}"),
            })
            .collect()
    }

    #[test]
    fn the_order_runs_from_global_to_the_instance_folder() {
        let flags = RuntimeFlags::for_dirs("/data", "/t/cfg");
        let env = |name: &str| match name {
            OPENCODE_CONFIG => Some("extra.json".to_string()),
            OPENCODE_CONFIG_CONTENT => Some("{}".to_string()),
            _ => None,
        };
        let got = labels(&sources(&info("/w/sub", "/w"), &flags, &env));
        let want = [
            "/t/home/.config/opencode/opencode.json",
            "/t/home/.config/opencode/opencode.jsonc",
            "/t/home/.config/opencode/config.json",
            "/t/cfg/strata.json",
            "named /w/sub/extra.json",
            "/w/opencode.json",
            "/w/opencode.jsonc",
            "/w/.opencode/opencode.json",
            "/w/.opencode/opencode.jsonc",
            "/w/strata.json",
            "/w/.strata/strata.json",
            "/w/sub/opencode.json",
            "/w/sub/opencode.jsonc",
            "/w/sub/.opencode/opencode.json",
            "/w/sub/.opencode/opencode.jsonc",
            "inline {}",
            "/w/sub/strata.json",
            "/w/sub/.strata/strata.json",
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn unset_or_blank_variables_add_nothing() {
        let flags = RuntimeFlags::for_dirs("/data", "/t/cfg");
        let blank = |_: &str| Some("  ".to_string());
        let got = sources(&info("/w", "/w"), &flags, &blank);
        assert_eq!(got.len(), 3 + 1 + 4 + 2);
        assert!(got.iter().all(|s| matches!(s, Source::File(_))));
        let absolute = |name: &str| (name == OPENCODE_CONFIG).then(|| "/abs/oc.json".to_string());
        let got = sources(&info("/w", "/w"), &flags, &absolute);
        assert_eq!(got[4], Source::Named("/abs/oc.json".into()));
        assert_eq!(Source::Inline("{}".into()).label(), OPENCODE_CONFIG_CONTENT);
    }
}
