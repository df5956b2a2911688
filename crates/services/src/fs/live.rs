//! The live filesystem: std calls run on tokio's blocking pool.

use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use async_trait::async_trait;
use bytes::Bytes;

use super::{ByteStream, DirEntry, FileKind, FsApi, FsError, Metadata, count_streamed, normalize};

/// Chunk size used when a caller asks for chunks of 0 bytes.
const DEFAULT_CHUNK: usize = 64 * 1024;

pub(crate) struct LiveFs;

/// Runs blocking filesystem work off the async threads; a panicked task becomes an `Io` error.
async fn blocking<T, F>(path: &Path, op: &'static str, f: F) -> Result<T, FsError>
where
    T: Send + 'static,
    F: FnOnce(PathBuf) -> Result<T, FsError> + Send + 'static,
{
    let owned = path.to_path_buf();
    match tokio::task::spawn_blocking(move || f(owned)).await {
        Ok(r) => r,
        Err(join) => Err(FsError::Io {
            path: path.to_path_buf(),
            op,
            source: io::Error::other(join.to_string()),
        }),
    }
}

fn kind_of(ft: fs::FileType) -> FileKind {
    if ft.is_file() {
        FileKind::File
    } else if ft.is_dir() {
        FileKind::Dir
    } else {
        FileKind::Other
    }
}

fn missing(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// Opens a file for reading, refusing directories up front with a clear error.
fn open_file(path: &Path) -> Result<File, FsError> {
    let file = File::open(path).map_err(|e| FsError::from_io(e, path, "open"))?;
    let meta = file
        .metadata()
        .map_err(|e| FsError::from_io(e, path, "inspect"))?;
    if meta.is_dir() {
        return Err(FsError::IsADirectory {
            path: path.to_path_buf(),
        });
    }
    Ok(file)
}

/// Fills `buf` unless end of file comes first; returns the bytes read.
fn read_full(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

fn stat_blocking(path: &Path) -> Result<Option<Metadata>, FsError> {
    let lmeta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if missing(&e) => return Ok(None),
        Err(e) => return Err(FsError::from_io(e, path, "inspect")),
    };
    let is_symlink = lmeta.file_type().is_symlink();
    let meta = if is_symlink {
        match fs::metadata(path) {
            Ok(m) => m,
            Err(e) if missing(&e) => return Ok(None),
            Err(e) => return Err(FsError::from_io(e, path, "inspect")),
        }
    } else {
        lmeta
    };
    Ok(Some(Metadata {
        kind: kind_of(meta.file_type()),
        len: meta.len(),
        mtime: meta.modified().unwrap_or(UNIX_EPOCH),
        mode: meta.permissions().mode() & 0o7777,
        readonly: meta.permissions().readonly(),
        is_symlink,
    }))
}

fn read_dir_blocking(path: &Path) -> Result<Vec<DirEntry>, FsError> {
    let iter = fs::read_dir(path).map_err(|e| FsError::from_io(e, path, "list"))?;
    let mut out = Vec::new();
    for entry in iter {
        let entry = entry.map_err(|e| FsError::from_io(e, path, "list"))?;
        let entry_path = entry.path();
        let is_symlink = entry.file_type().map(|t| t.is_symlink()).unwrap_or(false);
        // A dangling link or an entry that vanished mid-listing is still listed, as Other.
        let kind = fs::metadata(&entry_path)
            .map(|m| kind_of(m.file_type()))
            .unwrap_or(FileKind::Other);
        out.push(DirEntry {
            name: entry.file_name().to_string_lossy().into_owned(),
            path: entry_path,
            kind,
            is_symlink,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

fn resolve_real_blocking(path: &Path) -> PathBuf {
    for ancestor in path.ancestors() {
        if ancestor.as_os_str().is_empty() {
            break;
        }
        if let Ok(real) = fs::canonicalize(ancestor) {
            let rest = path.strip_prefix(ancestor).unwrap_or(Path::new(""));
            return if rest.as_os_str().is_empty() {
                real
            } else {
                normalize(&real.join(rest))
            };
        }
    }
    normalize(path)
}

fn stream_from(file: File, path: PathBuf, chunk: usize) -> ByteStream {
    let state = Some((file, path));
    Box::pin(futures::stream::unfold(state, move |state| async move {
        let (mut file, path) = state?;
        let read = tokio::task::spawn_blocking(move || {
            let mut buf = vec![0u8; chunk];
            let n = read_full(&mut file, &mut buf);
            (file, buf, n)
        })
        .await;
        match read {
            Ok((_, _, Ok(0))) => None,
            Ok((file, mut buf, Ok(n))) => {
                count_streamed(n);
                buf.truncate(n);
                Some((Ok(Bytes::from(buf)), Some((file, path))))
            }
            Ok((_, _, Err(e))) => Some((Err(FsError::from_io(e, &path, "read")), None)),
            Err(join) => {
                let source = io::Error::other(join.to_string());
                Some((
                    Err(FsError::Io {
                        path,
                        op: "read",
                        source,
                    }),
                    None,
                ))
            }
        }
    }))
}

#[async_trait]
impl FsApi for LiveFs {
    async fn stat(&self, path: &Path) -> Result<Option<Metadata>, FsError> {
        blocking(path, "inspect", |p| stat_blocking(&p)).await
    }

    async fn read(&self, path: &Path, max_bytes: u64) -> Result<Vec<u8>, FsError> {
        blocking(path, "read", move |p| {
            let file = open_file(&p)?;
            let len = file.metadata().map(|m| m.len()).unwrap_or(0);
            let too_large = |size| FsError::TooLarge {
                path: p.clone(),
                size,
                limit: max_bytes,
            };
            if len > max_bytes {
                return Err(too_large(len));
            }
            // The file may grow after the stat: read one byte past the limit to notice.
            let mut buf = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
            file.take(max_bytes.saturating_add(1))
                .read_to_end(&mut buf)
                .map_err(|e| FsError::from_io(e, &p, "read"))?;
            if buf.len() as u64 > max_bytes {
                return Err(too_large(buf.len() as u64));
            }
            Ok(buf)
        })
        .await
    }

    async fn read_head(&self, path: &Path, n: usize) -> Result<Vec<u8>, FsError> {
        blocking(path, "read", move |p| {
            let mut file = open_file(&p)?;
            let mut buf = vec![0u8; n];
            let got =
                read_full(&mut file, &mut buf).map_err(|e| FsError::from_io(e, &p, "read"))?;
            buf.truncate(got);
            Ok(buf)
        })
        .await
    }

    async fn stream(&self, path: &Path, chunk_size: usize) -> Result<ByteStream, FsError> {
        let chunk = if chunk_size == 0 {
            DEFAULT_CHUNK
        } else {
            chunk_size
        };
        let file = blocking(path, "open", |p| open_file(&p)).await?;
        Ok(stream_from(file, path.to_path_buf(), chunk))
    }

    async fn write_atomic(&self, path: &Path, data: &[u8]) -> Result<(), FsError> {
        let data = data.to_vec();
        blocking(path, "write", move |p| {
            super::write::write_atomic(&p, &data)
        })
        .await
    }

    async fn read_dir(&self, path: &Path) -> Result<Vec<DirEntry>, FsError> {
        blocking(path, "list", |p| read_dir_blocking(&p)).await
    }

    async fn realpath(&self, path: &Path) -> Result<PathBuf, FsError> {
        blocking(path, "resolve", |p| {
            fs::canonicalize(&p).map_err(|e| FsError::from_io(e, &p, "resolve"))
        })
        .await
    }

    async fn resolve_real(&self, path: &Path) -> PathBuf {
        blocking(path, "resolve", |p| Ok(resolve_real_blocking(&p)))
            .await
            .unwrap_or_else(|_| normalize(path))
    }

    async fn create_dir_all(&self, path: &Path) -> Result<(), FsError> {
        blocking(path, "create the directory", |p| {
            fs::create_dir_all(&p).map_err(|e| FsError::from_io(e, &p, "create the directory"))
        })
        .await
    }

    async fn remove_file(&self, path: &Path) -> Result<(), FsError> {
        blocking(path, "remove", |p| {
            fs::remove_file(&p).map_err(|e| FsError::from_io(e, &p, "remove"))
        })
        .await
    }

    async fn remove_dir(&self, path: &Path) -> Result<(), FsError> {
        blocking(path, "remove the directory", |p| {
            fs::remove_dir(&p).map_err(|e| FsError::from_io(e, &p, "remove the directory"))
        })
        .await
    }

    async fn rename(&self, from: &Path, to: &Path) -> Result<(), FsError> {
        let to = to.to_path_buf();
        blocking(from, "rename", move |from| {
            fs::rename(&from, &to).map_err(|e| {
                // Name the side that is at fault: a missing source, else the destination.
                if fs::symlink_metadata(&from).is_err() {
                    FsError::from_io(e, &from, "rename")
                } else {
                    FsError::from_io(e, &to, "move a file onto")
                }
            })
        })
        .await
    }

    async fn set_mode(&self, path: &Path, mode: u32) -> Result<(), FsError> {
        use std::os::unix::fs::PermissionsExt;
        blocking(path, "change the mode of", move |p| {
            fs::set_permissions(&p, fs::Permissions::from_mode(mode & 0o7777))
                .map_err(|e| FsError::from_io(e, &p, "change the mode of"))
        })
        .await
    }

    async fn exists(&self, path: &Path) -> bool {
        blocking(path, "inspect", |p| Ok(fs::metadata(&p).is_ok()))
            .await
            .unwrap_or(false)
    }

    fn is_executable(&self, path: &Path) -> bool {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
}
