//! The Truncate service (spec §0.6): keeps tool output within a line and byte budget, saving
//! the full text to a file the model can search or page through.
//!
//! Files live in `<data dir>/tool-output/` and are deleted by a scheduled cleanup once they are
//! 7 days old (by the [`Clock`]). The pure cutting rules and wording are in [`cut`]; file names,
//! the streaming [`OutputFile`] and cleanup are in [`store`].

pub mod cut;
pub mod store;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use strata_graph::{BoxError, Node, Scope, Tier};

use crate::clock::Clock;
use crate::flags::RuntimeFlags;

pub use cut::Direction;
pub use store::{OutputFile, name_timestamp_ms};

/// Default line limit.
pub const MAX_LINES: usize = 2000;
/// Default byte limit (50 KB).
pub const MAX_BYTES: usize = 51_200;
/// Saved outputs older than this are deleted.
pub const RETENTION: Duration = Duration::from_secs(7 * 24 * 60 * 60);
/// Delay before the first cleanup after start-up.
pub const FIRST_CLEANUP: Duration = Duration::from_secs(60);
/// Delay between later cleanups.
pub const CLEANUP_EVERY: Duration = Duration::from_secs(60 * 60);

/// One output's line and byte budget (spec §0.6): the configured `tool_output` limits where
/// set, else [`MAX_LINES`] and [`MAX_BYTES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub max_lines: usize,
    pub max_bytes: usize,
}

impl Limits {
    pub fn new(max_lines: Option<usize>, max_bytes: Option<usize>) -> Self {
        Self {
            max_lines: max_lines.unwrap_or(MAX_LINES),
            max_bytes: max_bytes.unwrap_or(MAX_BYTES),
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self::new(None, None)
    }
}

/// How to cut one output. Unset limits fall back to [`MAX_LINES`] and [`MAX_BYTES`].
#[derive(Debug, Clone, Default)]
pub struct TruncateOptions {
    pub max_lines: Option<usize>,
    pub max_bytes: Option<usize>,
    pub direction: Direction,
    /// The calling agent may use the `task` tool, so the hint suggests delegating.
    pub agent_may_task: bool,
}

/// The text to show the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncated {
    pub content: String,
    pub truncated: bool,
    /// Where the full text was saved, when it was cut.
    pub output_path: Option<PathBuf>,
}

/// Saving the full output failed.
#[derive(Debug, thiserror::Error)]
#[error(
    "could not {action} `{}` while saving tool output: {source}; check that the data directory \
     is writable and has free space",
    path.display()
)]
pub struct TruncateError {
    pub action: &'static str,
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

impl TruncateError {
    fn io(action: &'static str, path: &Path, source: std::io::Error) -> Self {
        Self {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Handle to the truncation service.
#[derive(Clone)]
pub struct Truncate {
    inner: Arc<Inner>,
}

struct Inner {
    dir: PathBuf,
    clock: Clock,
    ids: Mutex<store::IdGen>,
}

impl strata_graph::Service for Truncate {
    const KEY: &'static str = "Truncate";
}

impl std::fmt::Debug for Truncate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Truncate")
            .field("dir", &self.inner.dir)
            .finish()
    }
}

impl Truncate {
    /// Saves outputs in `dir` (normally `<data dir>/tool-output`), made absolute so the hint
    /// always shows an absolute path.
    pub fn new(dir: PathBuf, clock: Clock) -> Self {
        let dir = std::path::absolute(&dir).unwrap_or(dir);
        Self {
            inner: Arc::new(Inner {
                dir,
                clock,
                ids: Mutex::new(store::IdGen::default()),
            }),
        }
    }

    /// The global-tier node: saves under [`RuntimeFlags::tool_output_dir`] and schedules cleanup
    /// in the build scope.
    pub fn node() -> Node {
        Node::new(
            Tier::Global,
            |(flags, clock): (RuntimeFlags, Clock), scope: Scope| async move {
                let truncate = Truncate::new(flags.tool_output_dir(), clock);
                truncate.spawn_cleanup(&scope);
                Ok::<_, BoxError>(truncate)
            },
        )
    }

    /// Where saved outputs go.
    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }

    /// Returns `text` unchanged when it fits, else a preview with a marker and a hint pointing
    /// at the saved full text.
    pub fn output(&self, text: &str, opts: TruncateOptions) -> Result<Truncated, TruncateError> {
        let Limits {
            max_lines,
            max_bytes,
        } = Limits::new(opts.max_lines, opts.max_bytes);
        if cut::fits(text, max_lines, max_bytes) {
            return Ok(Truncated {
                content: text.to_string(),
                truncated: false,
                output_path: None,
            });
        }
        let kept = cut::cut(text, max_lines, max_bytes, opts.direction);
        let path = self.new_path()?;
        store::write_atomic(self.dir(), &path, text)?;
        Ok(Truncated {
            content: cut::layout(&kept, opts.direction, &path, opts.agent_may_task),
            truncated: true,
            output_path: Some(path),
        })
    }

    /// The end of `text` within `limits`, for a tool that shows the end of its output and
    /// saves the whole itself (bash, spec §7.3); `true` when it cut. See [`cut::tail`].
    pub fn tail(&self, text: &str, limits: Limits) -> (String, bool) {
        cut::tail(text, limits.max_lines, limits.max_bytes)
    }

    /// A new, empty saved-output file open for appending.
    pub fn create_file(&self) -> Result<OutputFile, TruncateError> {
        OutputFile::create(self.new_path()?)
    }

    /// Deletes saved outputs older than [`RETENTION`] by the clock; returns how many. Errors
    /// are logged and ignored.
    pub fn cleanup(&self) -> usize {
        store::remove_older_than(self.dir(), self.inner.clock.now_ms(), RETENTION)
    }

    /// Runs [`cleanup`](Self::cleanup) in `scope`: [`FIRST_CLEANUP`] after now, then every
    /// [`CLEANUP_EVERY`], on the service's clock.
    pub fn spawn_cleanup(&self, scope: &Scope) {
        let this = self.clone();
        scope.spawn(async move {
            let clock = this.inner.clock.clone();
            clock.sleep(FIRST_CLEANUP).await;
            loop {
                let run = this.clone();
                // Listing and deleting may block; keep it off the async workers.
                if let Err(e) = tokio::task::spawn_blocking(move || run.cleanup()).await {
                    tracing::warn!(error = %e, "tool output cleanup did not finish");
                }
                clock.sleep(CLEANUP_EVERY).await;
            }
        });
    }

    /// Makes the directory and picks a fresh file name in it.
    fn new_path(&self) -> Result<PathBuf, TruncateError> {
        let dir = self.dir();
        std::fs::create_dir_all(dir).map_err(|e| TruncateError::io("create", dir, e))?;
        let now = self.inner.clock.now_ms();
        // A poisoned lock only means a holder panicked; the id generator is still valid.
        let name = self
            .inner
            .ids
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .next_name(now);
        Ok(dir.join(name))
    }
}
