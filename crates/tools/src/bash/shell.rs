//! Which shell runs `bash` commands (spec §7.1): config `shell`, else `$SHELL`, looked up on
//! `PATH`. Shells that are unfit for `-c` scripts (fish, nu) are replaced by a POSIX one.
//!
//! The choice is a pure function of its inputs ([`choose`]); [`Shell::detect`] feeds it the real
//! environment. It runs while the tool is initialised, which is synchronous (the description
//! names the shell), so the `PATH` probe is a plain metadata call rather than an `FsUtil` one.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Shells whose syntax is not POSIX: commands written for `bash` would fail in them.
const UNFIT: &[&str] = &["fish", "nu"];

/// Used when nothing better is found; present on every POSIX system.
const LAST_RESORT: &str = "/bin/sh";

/// The shell commands run in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shell {
    /// The program started as `‹path› -c ‹command›`.
    pub path: PathBuf,
    /// Its name without directories, e.g. `bash`.
    pub name: String,
}

impl Shell {
    fn at(path: PathBuf) -> Self {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.to_string_lossy().into_owned());
        Shell { path, name }
    }

    /// The shell for a project whose config names `configured` (if any), from this process's
    /// `SHELL` and `PATH`.
    pub fn detect(configured: Option<&str>, is_exec: &dyn Fn(&Path) -> bool) -> Shell {
        let env_shell = std::env::var("SHELL").ok();
        let path_var = std::env::var_os("PATH");
        choose(
            configured,
            env_shell.as_deref(),
            path_var.as_deref(),
            is_exec,
        )
    }
}

/// Picks the shell: the first of `configured` and `env_shell` that can be found decides; when
/// it is unfit for scripts, or neither is found, the fallback is used (`bash` on `PATH`, else
/// `/bin/sh`; `/bin/zsh` on macOS).
pub(super) fn choose(
    configured: Option<&str>,
    env_shell: Option<&str>,
    path_var: Option<&OsStr>,
    is_exec: &dyn Fn(&Path) -> bool,
) -> Shell {
    let candidates = [configured, env_shell]
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    for candidate in candidates {
        if is_unfit(candidate) {
            return fallback(path_var, is_exec);
        }
        if let Some(found) = lookup(candidate, path_var, is_exec) {
            return Shell::at(found);
        }
    }
    fallback(path_var, is_exec)
}

/// Whether the program named by `candidate` is one of the non-POSIX shells.
fn is_unfit(candidate: &str) -> bool {
    let stem = Path::new(candidate)
        .file_stem()
        .map(|s| s.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    UNFIT.contains(&stem.as_str())
}

fn fallback(path_var: Option<&OsStr>, is_exec: &dyn Fn(&Path) -> bool) -> Shell {
    if cfg!(target_os = "macos") {
        return Shell::at(PathBuf::from("/bin/zsh"));
    }
    lookup("bash", path_var, is_exec)
        .map(Shell::at)
        .unwrap_or_else(|| Shell::at(PathBuf::from(LAST_RESORT)))
}

/// A name with a `/` is taken as a path; a bare name is searched in the `PATH` directories.
fn lookup(
    program: &str,
    path_var: Option<&OsStr>,
    is_exec: &dyn Fn(&Path) -> bool,
) -> Option<PathBuf> {
    if program.contains('/') {
        let path = PathBuf::from(program);
        return is_exec(&path).then_some(path);
    }
    std::env::split_paths(path_var?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|candidate| is_exec(candidate))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::ffi::OsString;

    fn env(existing: &[&str]) -> impl Fn(&Path) -> bool {
        let set: HashSet<PathBuf> = existing.iter().map(PathBuf::from).collect();
        move |p: &Path| set.contains(p)
    }

    fn path_var() -> OsString {
        OsString::from("/opt/bin:/usr/bin:relative/bin")
    }

    #[test]
    fn config_beats_env_and_is_looked_up_on_path() {
        let exec = env(&["/usr/bin/zsh", "/usr/bin/bash", "/opt/bin/dash"]);
        let p = path_var();
        let s = choose(Some("dash"), Some("/usr/bin/zsh"), Some(&p), &exec);
        assert_eq!(s.path, PathBuf::from("/opt/bin/dash"));
        assert_eq!(s.name, "dash");
        let s = choose(None, Some("/usr/bin/zsh"), Some(&p), &exec);
        assert_eq!(s.path, PathBuf::from("/usr/bin/zsh"));
        assert_eq!(s.name, "zsh");
    }

    #[test]
    fn a_shell_that_cannot_be_found_gives_way_to_the_next() {
        let exec = env(&["/usr/bin/zsh", "/usr/bin/bash"]);
        let p = path_var();
        let s = choose(Some("nosuchshell"), Some("/usr/bin/zsh"), Some(&p), &exec);
        assert_eq!(s.path, PathBuf::from("/usr/bin/zsh"));
        let s = choose(None, Some("/missing/zsh"), Some(&p), &exec);
        assert_eq!(s.path, PathBuf::from("/usr/bin/bash"));
    }

    #[cfg(not(target_os = "macos"))]
    #[test]
    fn fish_and_nu_are_replaced_by_bash_or_sh() {
        let p = path_var();
        let with_bash = env(&["/usr/bin/bash", "/usr/bin/fish", "/usr/bin/nu"]);
        for unfit in ["fish", "/usr/bin/fish", "nu", "/usr/bin/nu", "FISH"] {
            let s = choose(Some(unfit), Some("/usr/bin/fish"), Some(&p), &with_bash);
            assert_eq!(s.path, PathBuf::from("/usr/bin/bash"), "{unfit}");
            assert_eq!(s.name, "bash");
        }
        let s = choose(None, Some("/usr/bin/fish"), Some(&p), &with_bash);
        assert_eq!(s.name, "bash");
        let no_bash = env(&["/usr/bin/fish"]);
        let s = choose(Some("fish"), None, Some(&p), &no_bash);
        assert_eq!(s.path, PathBuf::from("/bin/sh"));
        assert_eq!(s.name, "sh");
    }

    #[cfg(not(target_os = "macos"))]
    #[test]
    fn nothing_set_falls_back_and_relative_path_entries_are_ignored() {
        let exec = env(&["relative/bin/bash"]);
        let p = path_var();
        assert_eq!(
            choose(None, None, Some(&p), &exec).path,
            PathBuf::from("/bin/sh")
        );
        assert_eq!(
            choose(Some("  "), Some(""), None, &exec).path,
            PathBuf::from("/bin/sh")
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_live_probe_needs_an_execute_bit() {
        use std::os::unix::fs::PermissionsExt;
        let fs = strata_services::fs::FsUtil::live();
        let is_executable = |p: &Path| fs.is_executable(p);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("myshell");
        std::fs::write(&file, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(!is_executable(&file));
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(is_executable(&file));
        assert!(!is_executable(dir.path()));
        let p = dir.path().as_os_str().to_owned();
        let s = choose(Some("myshell"), None, Some(&p), &is_executable);
        assert_eq!(s.path, file);
    }
}
