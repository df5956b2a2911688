//! `CommandSpec`: what to run, where, with which environment, and how gently to stop it.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::sandbox::SandboxPolicy;

/// Time between SIGTERM and SIGKILL when a child is stopped (spec §7.2).
pub const DEFAULT_KILL_GRACE: Duration = Duration::from_secs(3);

/// A command to start: program, arguments, working directory, extra environment.
///
/// The child always inherits this process's environment plus the `env` entries, runs in its
/// own process group with stdout/stderr piped, and with stdin closed unless
/// [`CommandSpec::stdin_piped`] asks for a pipe (long-running servers spoken to over stdio).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandSpec {
    program: OsString,
    args: Vec<OsString>,
    cwd: Option<PathBuf>,
    env: Vec<(OsString, OsString)>,
    kill_grace: Duration,
    stdin: bool,
    sandbox: Option<SandboxPolicy>,
}

impl CommandSpec {
    /// Runs `program` (looked up on `PATH` unless it contains a `/`).
    pub fn new(program: impl AsRef<OsStr>) -> Self {
        Self {
            program: program.as_ref().to_os_string(),
            args: Vec::new(),
            cwd: None,
            env: Vec::new(),
            kill_grace: DEFAULT_KILL_GRACE,
            stdin: false,
            sandbox: None,
        }
    }

    /// `shell -c script`: no login shell, no rc files.
    pub fn shell(shell_path: impl AsRef<OsStr>, script: impl AsRef<OsStr>) -> Self {
        Self::new(shell_path).arg("-c").arg(script)
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_os_string());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    /// Working directory of the child; it must exist.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets one environment variable on top of the inherited environment.
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env
            .push((key.as_ref().to_os_string(), value.as_ref().to_os_string()));
        self
    }

    /// How long a stopped child gets between SIGTERM and SIGKILL.
    pub fn kill_grace(mut self, grace: Duration) -> Self {
        self.kill_grace = grace;
        self
    }

    /// Gives the child a stdin pipe, taken with [`Child::stdin`](super::Child::stdin).
    pub fn stdin_piped(mut self) -> Self {
        self.stdin = true;
        self
    }

    /// Runs the child inside `policy` (applied between fork and exec; Strata stays free).
    pub fn sandbox(mut self, policy: SandboxPolicy) -> Self {
        self.sandbox = Some(policy);
        self
    }

    pub fn get_sandbox(&self) -> Option<&SandboxPolicy> {
        self.sandbox.as_ref()
    }

    pub fn has_stdin(&self) -> bool {
        self.stdin
    }

    pub fn program(&self) -> &OsStr {
        &self.program
    }

    pub fn get_args(&self) -> &[OsString] {
        &self.args
    }

    pub fn get_cwd(&self) -> Option<&Path> {
        self.cwd.as_deref()
    }

    pub fn get_env(&self) -> &[(OsString, OsString)] {
        &self.env
    }

    pub fn get_kill_grace(&self) -> Duration {
        self.kill_grace
    }

    /// The command line as a person would type it, for messages.
    pub fn render(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|part| quote(&part.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Single-quotes a word when a shell would otherwise split or expand it.
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_quotes_only_what_needs_it() {
        let spec = CommandSpec::new("git").args(["log", "-n", "1", "--format=%H"]);
        assert_eq!(spec.render(), "git log -n 1 --format=%H");
        let spec = CommandSpec::shell("/bin/sh", "echo 'hi there' && ls");
        assert_eq!(spec.render(), r"/bin/sh -c 'echo '\''hi there'\'' && ls'");
        assert_eq!(CommandSpec::new("x").arg("").render(), "x ''");
    }

    #[test]
    fn builder_records_every_setting() {
        let spec = CommandSpec::new("prog")
            .arg("a")
            .cwd("/tmp")
            .env("K", "V")
            .kill_grace(Duration::from_millis(5));
        assert_eq!(spec.program(), "prog");
        assert_eq!(spec.get_args(), ["a"]);
        assert_eq!(spec.get_cwd(), Some(Path::new("/tmp")));
        assert_eq!(spec.get_env(), [("K".into(), "V".into())]);
        assert_eq!(spec.get_kill_grace(), Duration::from_millis(5));
        assert_eq!(CommandSpec::new("p").get_kill_grace(), DEFAULT_KILL_GRACE);
        assert!(!spec.has_stdin());
        assert!(CommandSpec::new("p").stdin_piped().has_stdin());
    }
}
