//! The one error type of FsUtil: every variant names the path it is about.

use std::io;
use std::path::{Path, PathBuf};

/// What went wrong touching the filesystem, always with the path involved.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    #[error(
        "nothing exists at {}; check the path for typos or list the parent directory to see what is there",
        path.display()
    )]
    NotFound { path: PathBuf },

    #[error(
        "permission denied for {}; the file or directory is read-only or not accessible to this process, so change its permissions or use another path",
        path.display()
    )]
    PermissionDenied { path: PathBuf },

    #[error(
        "{} is a directory, not a file; list its entries or name a file inside it",
        path.display()
    )]
    IsADirectory { path: PathBuf },

    #[error(
        "{} is not a directory (part of the path is a file); check the path",
        path.display()
    )]
    NotADirectory { path: PathBuf },

    #[error(
        "{} is {size} bytes, over the {limit}-byte limit for reading a whole file at once; read it in parts instead",
        path.display()
    )]
    TooLarge {
        path: PathBuf,
        size: u64,
        limit: u64,
    },

    #[error("could not {op} {}: {source}; check that the path is accessible and try again", path.display())]
    Io {
        path: PathBuf,
        op: &'static str,
        #[source]
        source: io::Error,
    },
}

impl FsError {
    /// The path the error is about.
    pub fn path(&self) -> &Path {
        match self {
            FsError::NotFound { path }
            | FsError::PermissionDenied { path }
            | FsError::IsADirectory { path }
            | FsError::NotADirectory { path }
            | FsError::TooLarge { path, .. }
            | FsError::Io { path, .. } => path,
        }
    }

    /// Sorts an `io::Error` into the variant a caller can act on; `op` names the attempted
    /// operation for the catch-all variant ("read", "rename", ...).
    pub fn from_io(source: io::Error, path: &Path, op: &'static str) -> Self {
        let path = path.to_path_buf();
        match source.kind() {
            io::ErrorKind::NotFound => FsError::NotFound { path },
            io::ErrorKind::PermissionDenied => FsError::PermissionDenied { path },
            io::ErrorKind::IsADirectory => FsError::IsADirectory { path },
            io::ErrorKind::NotADirectory => FsError::NotADirectory { path },
            _ => FsError::Io { path, op, source },
        }
    }
}
