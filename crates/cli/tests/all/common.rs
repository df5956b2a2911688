//! Shared by the `cli_*` and `e2e_*` tests: the built `strata` binary, and running it in a
//! throwaway project whose data, config, home and temp directories are temporary too, so no
//! test touches the user's.

// Each test file uses a different part of this module; helpers fail the test by panicking.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use strata_testkit::poll_within_blocking;

/// How long one `strata` command may run before the test fails.
const COMMAND_LIMIT: Duration = Duration::from_secs(60);

/// The `strata` binary cargo built for these tests.
pub(crate) fn strata_bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_strata"))
}

/// How a `strata` command ended.
#[derive(Debug)]
pub(crate) struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Asserts the exit code, showing both streams when it differs.
    #[track_caller]
    pub(crate) fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code, code,
            "unexpected exit code; the run was {self:#?}"
        );
        self
    }

    /// Stdout parsed as JSON.
    #[track_caller]
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:#?}"))
    }
}

/// A temporary project, with its own data, config, home and temp directories.
pub(crate) struct Project {
    _root: tempfile::TempDir,
    /// The project directory (canonical).
    pub dir: PathBuf,
    /// `TMPDIR` of every command.
    pub tmp: PathBuf,
    pub data: PathBuf,
    pub config: PathBuf,
    pub home: PathBuf,
}

impl Project {
    pub(crate) fn new() -> Project {
        Self::in_root(
            tempfile::Builder::new()
                .prefix("strata-e2e-")
                .tempdir()
                .expect("create a temporary directory"),
        )
    }

    /// A project (and its data directory) outside every temp directory, so the sandbox's
    /// writable temp roots do not cover it.
    pub(crate) fn outside_temp() -> Project {
        let root = tempfile::Builder::new()
            .prefix("strata-e2e-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("create a directory in the target directory");
        Self::in_root(root)
    }

    fn in_root(root: tempfile::TempDir) -> Project {
        let base = std::fs::canonicalize(root.path()).expect("canonicalize the temp root");
        let dir = base.join("project");
        let tmp = base.join("tmp");
        let data = base.join("data");
        let config = base.join("config");
        let home = base.join("home");
        for d in [&dir, &tmp, &data, &config, &home] {
            std::fs::create_dir_all(d).expect("create the test directories");
        }
        Project {
            _root: root,
            dir,
            tmp,
            data,
            config,
            home,
        }
    }

    /// Writes `content` at `rel` inside the project; returns the absolute path.
    pub(crate) fn file(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent directories");
        }
        std::fs::write(&path, content).expect("write a project file");
        path
    }

    /// `dir` as a string (tests build JSON arguments and expected outputs from it).
    pub(crate) fn dir_str(&self) -> String {
        self.dir.display().to_string()
    }

    /// `strata ARGS` run in the project directory with stdin closed.
    pub(crate) fn strata(&self, args: &[&str]) -> Run {
        self.run(self.command(args), None)
    }

    /// `strata ARGS` with extra environment variables.
    pub(crate) fn strata_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = self.command(args);
        cmd.envs(env.iter().copied());
        self.run(cmd, None)
    }

    /// `strata ARGS` on a pseudo-terminal (through `script`), typing `input` into it.
    /// Stdout and stderr arrive merged in `stdout`.
    pub(crate) fn strata_on_tty(&self, args: &[&str], input: &str) -> Run {
        let line = std::iter::once(strata_bin().display().to_string())
            .chain(args.iter().map(|a| a.to_string()))
            .map(|a| shell_quote(&a))
            .collect::<Vec<_>>()
            .join(" ");
        let mut cmd = Command::new("script");
        cmd.args(["-q", "-e", "-c", &line, "/dev/null"]);
        self.environment(&mut cmd);
        self.run(cmd, Some(input))
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(strata_bin());
        cmd.args(args);
        self.environment(&mut cmd);
        cmd
    }

    pub(crate) fn environment(&self, cmd: &mut Command) {
        cmd.current_dir(&self.dir)
            .env("STRATA_DATA_DIR", &self.data)
            .env("STRATA_CONFIG_DIR", &self.config)
            .env("HOME", &self.home)
            .env("TMPDIR", &self.tmp)
            .env("NO_COLOR", "1");
        for var in [
            "STRATA_LOG",
            "RUST_LOG",
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "STRATA_BASH_DEFAULT_TIMEOUT_MS",
            "STRATA_EXPERIMENTAL_LSP_TOOL",
            "XDG_DATA_HOME",
            "XDG_CONFIG_HOME",
            "STRATA_WEBSEARCH_URL",
            "EXA_API_KEY",
            "OPENCODE_CONFIG",
            "OPENCODE_CONFIG_CONTENT",
            "STRATA_SANDBOX",
            "STRATA_SANDBOX_SIMULATE_UNSUPPORTED",
        ] {
            cmd.env_remove(var);
        }
    }

    pub(crate) fn run(&self, mut cmd: Command, input: Option<&str>) -> Run {
        cmd.stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("could not start {cmd:?}: {e}"));
        if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
            stdin
                .write_all(text.as_bytes())
                .expect("type into the command");
            drop(stdin);
        }
        finish(child)
    }
}

/// Waits (bounded by [`COMMAND_LIMIT`]) for `child` and collects its output.
pub(crate) fn finish(mut child: std::process::Child) -> Run {
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = poll_within_blocking(COMMAND_LIMIT, || {
        child.try_wait().expect("poll the command")
    });
    let Some(status) = status else {
        let _ = child.kill();
        panic!("strata did not finish within {COMMAND_LIMIT:?}");
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: stdout.join().expect("read stdout"),
        stderr: stderr.join().expect("read stderr"),
    }
}

fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// `s` as one POSIX shell word.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}
