//! The error type of the spawner: every variant names the command it is about.

use std::path::PathBuf;
use std::time::Duration;

/// What went wrong starting or waiting for a child process.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    #[error(
        "could not start `{command}`: the program `{program}` was not found; install it or give its full path"
    )]
    NotFound { command: String, program: String },

    #[error(
        "could not start `{command}`: the working directory {} does not exist or is not a directory; create it or pick an existing one",
        cwd.display()
    )]
    CwdMissing { command: String, cwd: PathBuf },

    #[error(
        "could not start `{command}` in {}: {source}; check the program and its permissions",
        show_cwd(cwd)
    )]
    Spawn {
        command: String,
        cwd: Option<PathBuf>,
        #[source]
        source: std::io::Error,
    },

    #[error("lost track of `{command}` while waiting for it to finish: {source}")]
    Wait {
        command: String,
        #[source]
        source: std::io::Error,
    },

    #[error(
        "`{command}` did not finish within {} ms and was stopped; retry with a longer timeout if it needs more time",
        timeout.as_millis()
    )]
    TimedOut { command: String, timeout: Duration },
}

fn show_cwd(cwd: &Option<PathBuf>) -> String {
    match cwd {
        Some(dir) => dir.display().to_string(),
        None => "the current directory".to_string(),
    }
}

impl ProcessError {
    /// The rendered command line the error is about.
    pub fn command(&self) -> &str {
        match self {
            ProcessError::NotFound { command, .. }
            | ProcessError::CwdMissing { command, .. }
            | ProcessError::Spawn { command, .. }
            | ProcessError::Wait { command, .. }
            | ProcessError::TimedOut { command, .. } => command,
        }
    }
}
