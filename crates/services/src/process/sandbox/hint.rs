//! The one line added to a failed command's output when the sandbox was the likely cause: a
//! write refused on a path outside the writable roots, or a connection with the network off.

use std::path::{Path, PathBuf};

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
                 off`) to allow it",
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
            return Some(
                "sandbox: the network is off for commands, so this connection could not be \
                 made; set `sandbox.network` to true in strata.json to allow it"
                    .to_string(),
            );
        }
    }
    None
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
