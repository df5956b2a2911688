//! Shared by the `cli_*` tests: finding the built `strata` binary (and refusing a stale one),
//! and running it in a throwaway project whose data, config, home and temp directories are
//! temporary too, so no test touches the user's.
//!
//! Cargo builds a package's binaries before its integration tests only for that package, so
//! these tests cannot name `strata` with `CARGO_BIN_EXE_*`. The binary is taken from the target
//! directory the tests run from; `cargo test --workspace` builds it (the `strata` package has
//! an integration test), and a narrow run needs `cargo build -p strata` first. Either way the
//! binary is checked against cargo's own dependency list, so a stale build fails loudly.

// Each test file uses a different part of this module; helpers fail the test by panicking.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime};

/// How long one `strata` command may run before the test fails.
const COMMAND_LIMIT: Duration = Duration::from_secs(60);

/// The `strata` binary next to this test's `deps` folder, checked to be fresh.
pub fn strata_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test knows its own path");
        // Tests live in `<target>/<profile>/deps/`; binaries one level up.
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("the test runs from <target>/<profile>/deps");
        let bin = profile_dir.join(format!("strata{}", std::env::consts::EXE_SUFFIX));
        if let Err(why) = check_fresh(&bin) {
            panic!(
                "{why}.\nBuild it first: `cargo build -p strata` (with the same CARGO_TARGET_DIR \
                 and profile), or run `cargo test --workspace`, which builds it."
            );
        }
        bin
    })
}

/// Fails when the binary is missing or any source cargo listed for it is newer.
fn check_fresh(bin: &Path) -> Result<(), String> {
    let built =
        mtime(bin).ok_or_else(|| format!("the `strata` binary {} is missing", bin.display()))?;
    let dep_info = bin.with_extension("d");
    // `cargo build` leaves a dep-info file beside the binary. A binary built by `cargo test
    // --workspace` has none; that build is fresh by construction, so there is nothing to check.
    let sources = match std::fs::read_to_string(&dep_info) {
        Ok(text) => dep_info_sources(&text),
        Err(_) => Vec::new(),
    };
    for source in sources {
        match mtime(Path::new(&source)) {
            Some(t) if t <= built => {}
            Some(_) => {
                return Err(format!(
                    "the `strata` binary {} is older than {source}",
                    bin.display()
                ));
            }
            None => {
                return Err(format!(
                    "{source}, which the `strata` binary {} was built from, is gone",
                    bin.display()
                ));
            }
        }
    }
    Ok(())
}

fn mtime(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The prerequisites of a Makefile-style dep-info file (`target: a b\ c ...`).
fn dep_info_sources(text: &str) -> Vec<String> {
    let mut sources = Vec::new();
    for line in text.lines() {
        let Some((_, deps)) = line.split_once(": ") else {
            continue;
        };
        let mut current = String::new();
        let mut chars = deps.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => current.extend(chars.next()),
                c if c.is_whitespace() => {
                    if !current.is_empty() {
                        sources.push(std::mem::take(&mut current));
                    }
                }
                c => current.push(c),
            }
        }
        if !current.is_empty() {
            sources.push(current);
        }
    }
    sources
}

/// How a `strata` command ended.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Asserts the exit code, showing both streams when it differs.
    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code, code,
            "unexpected exit code; the run was {self:#?}"
        );
        self
    }

    /// Stdout parsed as JSON.
    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:#?}"))
    }
}

/// A temporary project, with its own data, config, home and temp directories.
pub struct Project {
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
    pub fn new() -> Project {
        let root = tempfile::Builder::new()
            .prefix("strata-e2e-")
            .tempdir()
            .expect("create a temporary directory");
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
    pub fn file(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent directories");
        }
        std::fs::write(&path, content).expect("write a project file");
        path
    }

    /// `dir` as a string (tests build JSON arguments and expected outputs from it).
    pub fn dir_str(&self) -> String {
        self.dir.display().to_string()
    }

    /// `strata ARGS` run in the project directory with stdin closed.
    pub fn strata(&self, args: &[&str]) -> Run {
        self.run(self.command(args), None)
    }

    /// `strata ARGS` with extra environment variables.
    pub fn strata_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = self.command(args);
        cmd.envs(env.iter().copied());
        self.run(cmd, None)
    }

    /// `strata ARGS` on a pseudo-terminal (through `script`), typing `input` into it.
    /// Stdout and stderr arrive merged in `stdout`.
    pub fn strata_on_tty(&self, args: &[&str], input: &str) -> Run {
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

    fn environment(&self, cmd: &mut Command) {
        cmd.current_dir(&self.dir)
            .env("STRATA_DATA_DIR", &self.data)
            .env("STRATA_CONFIG_DIR", &self.config)
            .env("HOME", &self.home)
            .env("TMPDIR", &self.tmp)
            .env("NO_COLOR", "1");
        for var in [
            "STRATA_LOG",
            "STRATA_BASH_DEFAULT_TIMEOUT_MS",
            "STRATA_EXPERIMENTAL_LSP_TOOL",
            "XDG_DATA_HOME",
            "XDG_CONFIG_HOME",
            "STRATA_WEBSEARCH_URL",
            "EXA_API_KEY",
        ] {
            cmd.env_remove(var);
        }
    }

    fn run(&self, mut cmd: Command, input: Option<&str>) -> Run {
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
pub fn finish(mut child: std::process::Child) -> Run {
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let start = Instant::now();
    let mut delay = Duration::from_millis(2);
    let status = loop {
        if let Some(status) = child.try_wait().expect("poll the command") {
            break status;
        }
        if start.elapsed() > COMMAND_LIMIT {
            let _ = child.kill();
            panic!("strata did not finish within {COMMAND_LIMIT:?}");
        }
        std::thread::sleep(delay);
        delay = (delay * 2).min(Duration::from_millis(50));
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
