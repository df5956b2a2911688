//! Writing a transaction's files. The writes run inside an [`Undo`] (FsUtil's write journal,
//! the record the diff budget reads too, plus the folders created), so a rollback restores
//! exactly what the transaction changed, byte for byte, and removes the files and directories
//! it created.

use super::plan::FileChange;
use crate::common::bom::split_bom;
use crate::common::filewrite::Writer;
pub(crate) use crate::common::undo::Undo;

/// A write that failed: its error, and the undo of the writes made before it.
#[derive(Debug)]
pub(crate) struct WriteFailure {
    pub error: String,
    pub undo: Undo,
}

/// Writes every change in order (atomic writes, parents created), then runs the formatters of
/// the written files. Stops at the first failed write.
pub(crate) async fn write_all(w: &Writer, changes: &[FileChange]) -> Result<Undo, WriteFailure> {
    let mut undo = Undo::default();
    let journal = undo.journal();
    let result = journal
        .scope(async {
            for c in changes {
                undo.note_missing_dirs(&w.fs, &c.path).await;
                w.fs.write_atomic(&c.path, c.after.as_bytes())
                    .await
                    .map_err(|e| e.to_string())?;
            }
            for c in changes {
                // A formatter's own changes go back with the rest on a rollback.
                w.format(&c.path, split_bom(&c.after).0).await;
            }
            Ok::<(), String>(())
        })
        .await;
    match result {
        Ok(()) => Ok(undo),
        Err(error) => Err(WriteFailure { error, undo }),
    }
}
