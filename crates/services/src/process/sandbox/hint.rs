//! The one line added to a failed command's output when the sandbox was the likely cause: a
//! write refused on a path outside the writable roots or on a protected path, or a connection
//! with the network off. Each line also tells the model how to ask to run outside the sandbox.

use std::path::{Path, PathBuf};

use super::protect::is_protected;
use super::roots::is_writable;

/// How the OS words a refused write.
const REFUSED: &[&str] = &[
    "Permission denied",
    "Operation not permitted",
    "Read-only file system",
    "EACCES",
    "EPERM",
    "EROFS",
];

/// How tools word a connection that could not be made.
const NETWORK: &[&str] = &[
    "Could not resolve host",
    "Couldn't connect",
    "Failed to connect",
    "Could not connect",
    "Network is unreachable",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Connection refused",
    "socket:",
    "/dev/tcp/",
    "/dev/udp/",
];

/// How the OS words a refused change to a path bound read-only (a write, or a removal or
/// rename of the mount point itself).
const READ_ONLY: &[&str] = &["Read-only file system", "Device or resource busy"];

/// The sentence every hint ends with: how to run the one command outside the sandbox.
const ESCAPE: &str = "if this one command must do it, call bash again with `escape_sandbox: \
                      true` and a `justification`, and the user is asked to run it outside the \
                      sandbox";

/// bash's pseudo-paths for sockets: a refusal on them is about the network, not a write.
const SOCKET_PATHS: &[&str] = &["/dev/tcp/", "/dev/udp/"];

/// The hint for a command that failed with `output`, or `None` when nothing in it points at
/// the sandbox. `roots` are the writable roots; `network` whether IP sockets are allowed.
pub fn blocked_hint(output: &str, roots: &[PathBuf], network: bool) -> Option<String> {
    for line in output.lines() {
        let Some(at) = REFUSED.iter().filter_map(|r| line.find(r)).min() else {
            continue;
        };
        if let Some(path) = refused_path(&line[..at]).filter(|p| !is_writable(p, roots)) {
            return Some(format!(
                "sandbox: writing {} was refused because it is outside the sandbox's writable \
                 paths; add it to `sandbox.writable` in strata.json (or run with `--sandbox \
                 off`) to allow it; {ESCAPE}",
                path.display()
            ));
        }
    }
    if !network {
        let refused_socket = output.lines().any(|l| {
            NETWORK.iter().any(|n| l.contains(n))
                || (l.contains("Operation not permitted") && refused_path(l).is_none())
        });
        if refused_socket {
            return Some(format!(
                "sandbox: the network is off for commands, so this connection could not be \
                 made; set `sandbox.network` to true in strata.json to allow it; {ESCAPE}"
            ));
        }
    }
    None
}

/// The hint for a command whose `output` shows a refused change to a protected path, which
/// the sandbox binds read-only. Relative paths are taken from `project`; `extra` are more
/// protected paths, absolute (a linked worktree's shared hooks and config).
pub fn protected_hint(output: &str, project: &Path, extra: &[PathBuf]) -> Option<String> {
    for line in output.lines() {
        let Some(at) = READ_ONLY.iter().filter_map(|r| line.find(r)).min() else {
            continue;
        };
        let Some(word) = last_word(&line[..at]) else {
            continue;
        };
        let path = project.join(word);
        let shown = match path.strip_prefix(project) {
            Ok(rel) if is_protected(rel) => rel.to_path_buf(),
            _ if extra.iter().any(|e| path.starts_with(e)) => path.clone(),
            _ => continue,
        };
        return Some(format!(
            "sandbox: {} is protected: it runs or configures things outside the sandbox, so \
             commands may not change it (it is mounted read-only for them). Change it with the \
             edit tool, which asks first; or, {ESCAPE}",
            shown.display()
        ));
    }
    None
}

/// The last word of an error message's text before the error itself, leaving out the
/// program name that starts such lines.
fn last_word(before: &str) -> Option<&str> {
    let mut words = before
        .split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | '‘' | '’'))
        .filter(|w| !w.is_empty())
        .peekable();
    if words.peek().is_some_and(|w| w.ends_with(':')) {
        words.next();
    }
    words
        .map(|w| w.trim_end_matches([':', ',', ';', ')']))
        .rfind(|w| !w.is_empty())
}

/// The path an error message says was refused: the last absolute path before the error text,
/// leaving out the program name that starts such lines (`/bin/bash: line 1: …`) and bash's
/// socket pseudo-paths.
fn refused_path(before: &str) -> Option<PathBuf> {
    let mut words = before
        .split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | '‘' | '’'))
        .filter(|w| !w.is_empty())
        .peekable();
    if words.peek().is_some_and(|w| w.ends_with(':')) {
        words.next();
    }
    words
        .map(|w| w.trim_end_matches([':', ',', ';', ')']))
        .rfind(|w| {
            w.starts_with('/') && w.len() > 1 && !SOCKET_PATHS.iter().any(|s| w.starts_with(s))
        })
        .map(|w| Path::new(w).to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots() -> Vec<PathBuf> {
        vec![
            PathBuf::from("/p/repo"),
            PathBuf::from("/tmp"),
            PathBuf::from("/dev/null"),
        ]
    }

    #[test]
    fn a_refused_write_outside_names_the_path_and_the_setting() {
        for out in [
            "sh: 1: cannot create /etc/x.conf: Permission denied",
            "touch: cannot touch '/home/u/.bashrc': Permission denied",
            "mkdir: cannot create directory ‘/opt/new’: Read-only file system",
            "ln: failed to create hard link '/srv/l' => 'a': Operation not permitted",
            "/bin/bash: line 1: /etc/x: Permission denied",
            "mv: cannot move 'a' to '/srv/b': Permission denied",
        ] {
            let hint = blocked_hint(out, &roots(), true).unwrap_or_else(|| panic!("{out}"));
            assert!(hint.contains("sandbox.writable"), "{hint}");
            assert!(hint.starts_with("sandbox: writing /"), "{hint}");
            assert!(hint.contains("`justification`"), "{hint}");
        }
        let hint = blocked_hint(
            "/bin/bash: line 1: /etc/x: Permission denied",
            &roots(),
            true,
        );
        assert!(
            hint.unwrap().contains("writing /etc/x was"),
            "the path, not the shell"
        );
    }

    #[test]
    fn refusals_inside_the_roots_or_unrelated_errors_give_no_hint() {
        let r = roots();
        assert_eq!(
            blocked_hint("sh: /p/repo/ro.txt: Permission denied", &r, true),
            None
        );
        assert_eq!(
            blocked_hint("error: file not found: /etc/nope", &r, true),
            None
        );
        assert_eq!(blocked_hint("all good", &r, false), None);
    }

    #[test]
    fn a_refused_change_to_a_protected_path_names_the_protection() {
        let project = Path::new("/p/repo");
        let extra = [PathBuf::from("/p/main/.git/hooks")];
        for (out, shown) in [
            (
                "bash: line 1: .git/hooks/pre-commit: Read-only file system",
                ".git/hooks/pre-commit",
            ),
            (
                "sh: 1: cannot create strata.json: Read-only file system",
                "strata.json",
            ),
            (
                "rm: cannot remove 'AGENTS.md': Device or resource busy",
                "AGENTS.md",
            ),
            (
                "touch: cannot touch '/p/repo/.claude/settings.json': Read-only file system",
                ".claude/settings.json",
            ),
            (
                "bash: /p/main/.git/hooks/post-commit: Read-only file system",
                "/p/main/.git/hooks/post-commit",
            ),
        ] {
            let hint = protected_hint(out, project, &extra).unwrap_or_else(|| panic!("{out}"));
            assert!(
                hint.starts_with(&format!("sandbox: {shown} is protected")),
                "{hint}"
            );
            assert!(hint.contains("escape_sandbox"), "{hint}");
        }
        for out in [
            "bash: src/a.rs: Read-only file system",
            "bash: .git/hooks/pre-commit: Permission denied",
            "all good",
        ] {
            assert_eq!(protected_hint(out, project, &extra), None, "{out}");
        }
    }

    #[test]
    fn a_failed_connection_with_network_off_names_the_setting() {
        for out in [
            "curl: (7) Failed to connect to 127.0.0.1 port 8080",
            "PermissionError: [Errno 1] Operation not permitted",
            "curl: (6) Could not resolve host: example.test",
            "bash: /dev/tcp/127.0.0.1/8080: Operation not permitted",
            "/bin/bash: socket: Operation not permitted",
        ] {
            let hint = blocked_hint(out, &roots(), false).unwrap_or_else(|| panic!("{out}"));
            assert!(hint.contains("sandbox.network"), "{hint}");
            assert!(hint.contains("`escape_sandbox: true`"), "{hint}");
        }
        let on = blocked_hint(
            "curl: (7) Failed to connect to 127.0.0.1 port 8080",
            &roots(),
            true,
        );
        assert_eq!(
            on, None,
            "with the network on a failed connection is not the sandbox"
        );
    }
}
