//! Pure rules of the sandbox: which paths a mode lets a command write, and which of Strata's
//! secrets are taken out of its environment.

use std::path::{Path, PathBuf};

use crate::config::SandboxMode;

/// Device files every command may write (output sinks, terminals, randomness).
pub const DEVICE_FILES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
];

/// Device directories every command may write (pseudo-terminals, shared memory).
pub const DEVICE_DIRS: &[&str] = &["/dev/pts", "/dev/shm"];

/// Secret variables besides every `*_API_KEY`: cloud keys the providers read and the
/// server's password.
const SECRETS: &[&str] = &[
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "STRATA_SERVER_PASSWORD",
    "OPENCODE_SERVER_PASSWORD",
];

/// What the writable roots are computed from.
#[derive(Debug, Clone)]
pub struct RootsInput<'a> {
    pub mode: SandboxMode,
    /// The project's worktree (the instance directory when there is no repository).
    pub project: &'a Path,
    /// The system temp directory (`TMPDIR`, else `/tmp`).
    pub temp: &'a Path,
    /// `sandbox.writable`, as written.
    pub extra: &'a [String],
    /// For `~/` in `extra`.
    pub home: &'a Path,
}

/// The paths a command may write under `input.mode`, in a stable order without repeats.
/// `off` has none (nothing is enforced); `read-only` keeps the temp directories and devices.
pub fn writable_roots(input: &RootsInput<'_>) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    let mut add = |p: PathBuf| {
        if !roots.contains(&p) {
            roots.push(p);
        }
    };
    if input.mode == SandboxMode::Off {
        return Vec::new();
    }
    if input.mode == SandboxMode::WorkspaceWrite {
        add(input.project.to_path_buf());
        for entry in input.extra {
            add(resolve(entry, input.project, input.home));
        }
    }
    add(input.temp.to_path_buf());
    add(PathBuf::from("/tmp"));
    for dev in DEVICE_FILES.iter().chain(DEVICE_DIRS) {
        add(PathBuf::from(dev));
    }
    roots
}

/// A `sandbox.writable` entry: `~/` from the home directory, relative from the project.
pub(super) fn resolve(entry: &str, project: &Path, home: &Path) -> PathBuf {
    if entry == "~" {
        return home.to_path_buf();
    }
    if let Some(rest) = entry.strip_prefix("~/") {
        return home.join(rest);
    }
    project.join(entry)
}

/// The shared git directory of a linked worktree at `project` (what `git rev-parse
/// --git-common-dir` prints), when it lies outside the project; read from the `.git` file
/// and the `commondir` file it points to, without starting git.
pub(super) fn git_common_dir(project: &Path) -> Option<PathBuf> {
    let dot_git = std::fs::read_to_string(project.join(".git")).ok()?;
    let git_dir = dot_git
        .lines()
        .find_map(|l| l.strip_prefix("gitdir:"))?
        .trim();
    let git_dir = project.join(git_dir);
    let common = std::fs::read_to_string(git_dir.join("commondir")).ok()?;
    let common = std::fs::canonicalize(git_dir.join(common.trim())).ok()?;
    let project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
    (!common.starts_with(&project)).then_some(common)
}

/// Whether `path` is one of `roots` or below one.
pub fn is_writable(path: &Path, roots: &[PathBuf]) -> bool {
    roots.iter().any(|root| path.starts_with(root))
}

/// Whether the variable `name` is one of Strata's secrets that a sandboxed command must not
/// see, unless `passthrough` names it.
pub fn is_secret(name: &str, passthrough: &[String]) -> bool {
    if passthrough.iter().any(|p| p == name) {
        return false;
    }
    name.ends_with("_API_KEY") || SECRETS.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input<'a>(mode: SandboxMode, extra: &'a [String]) -> RootsInput<'a> {
        RootsInput {
            mode,
            project: Path::new("/p/repo"),
            temp: Path::new("/var/tmp/x"),
            extra,
            home: Path::new("/home/u"),
        }
    }

    #[test]
    fn workspace_write_has_project_extras_temp_and_devices() {
        let extra = vec!["~/.cache/go".to_string(), "../shared".to_string()];
        let roots = writable_roots(&input(SandboxMode::WorkspaceWrite, &extra));
        let first: Vec<_> = roots
            .iter()
            .take(5)
            .map(|p| p.display().to_string())
            .collect();
        assert_eq!(
            first,
            [
                "/p/repo",
                "/home/u/.cache/go",
                "/p/repo/../shared",
                "/var/tmp/x",
                "/tmp"
            ]
        );
        assert!(roots.contains(&PathBuf::from("/dev/null")));
        assert!(roots.contains(&PathBuf::from("/dev/pts")));
    }

    #[test]
    fn read_only_keeps_only_temp_and_devices() {
        let extra = vec!["/data".to_string()];
        let roots = writable_roots(&input(SandboxMode::ReadOnly, &extra));
        assert!(!roots.contains(&PathBuf::from("/p/repo")));
        assert!(!roots.contains(&PathBuf::from("/data")));
        assert_eq!(roots[0], PathBuf::from("/var/tmp/x"));
        assert!(roots.contains(&PathBuf::from("/dev/null")));
    }

    #[test]
    fn off_enforces_nothing_and_temp_is_not_repeated() {
        assert!(writable_roots(&input(SandboxMode::Off, &[])).is_empty());
        let mut i = input(SandboxMode::ReadOnly, &[]);
        i.temp = Path::new("/tmp");
        let roots = writable_roots(&i);
        assert_eq!(roots.iter().filter(|p| *p == Path::new("/tmp")).count(), 1);
    }

    #[test]
    fn writable_means_under_a_root() {
        let roots = vec![PathBuf::from("/p/repo"), PathBuf::from("/dev/null")];
        assert!(is_writable(Path::new("/p/repo/src/a.rs"), &roots));
        assert!(is_writable(Path::new("/dev/null"), &roots));
        assert!(!is_writable(Path::new("/p/repository"), &roots));
        assert!(!is_writable(Path::new("/etc/passwd"), &roots));
    }

    #[test]
    fn secrets_are_provider_keys_and_server_passwords_unless_passed_through() {
        for name in [
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "STRATA_SERVER_PASSWORD",
        ] {
            assert!(is_secret(name, &[]), "{name}");
        }
        for name in ["PATH", "HOME", "API_KEY_FILE", "GIT_AUTHOR_NAME"] {
            assert!(!is_secret(name, &[]), "{name}");
        }
        assert!(!is_secret(
            "OPENAI_API_KEY",
            &["OPENAI_API_KEY".to_string()]
        ));
    }
}
