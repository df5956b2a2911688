use std::path::Path;

use strata_services::diff_budget::DiffBudget;
use strata_services::fs::FsUtil;
use strata_services::fs::journal::{Before, Journal, put_back};
use tower_service::Service;

use crate::contract::{ToolError, ToolResult};
use crate::diff::line_counts;
use crate::layers::CallCx;

/// See [`DiffBudgetLayer`](super::DiffBudgetLayer).
#[derive(Debug, Clone)]
pub struct DiffBudgetCheck<S> {
    inner: S,
    watch: Option<(DiffBudget, FsUtil)>,
}

impl<S> DiffBudgetCheck<S> {
    pub fn new(inner: S, watch: Option<(DiffBudget, FsUtil)>) -> Self {
        Self { inner, watch }
    }
}

impl<S, R> Service<R> for DiffBudgetCheck<S>
where
    S: Service<R, Response = ToolResult, Error = ToolError>,
    S::Future: Send + 'static,
    R: CallCx,
{
    crate::layers::tool_result_service!();

    fn call(&mut self, req: R) -> Self::Future {
        let session = req.cx().session_id.clone();
        let fut = self.inner.call(req);
        let Some((budget, fs)) = self.watch.clone() else {
            return Box::pin(fut);
        };
        Box::pin(async move {
            let journal = Journal::default();
            let result = journal.scope(fut).await?;
            settle(&budget, &fs, &session, &journal).await?;
            Ok(result)
        })
    }
}

/// Records the call's first touches, sums the session's changes, and undoes the call when the
/// sum is over the budget.
async fn settle(
    budget: &DiffBudget,
    fs: &FsUtil,
    session: &str,
    journal: &Journal,
) -> Result<(), ToolError> {
    let Some(limits) = budget.limits() else {
        return Ok(());
    };
    let changed: Vec<_> = journal
        .entries()
        .into_iter()
        .filter(|e| budget.in_project(&e.path))
        .collect();
    if changed.is_empty() {
        return Ok(());
    }
    for e in &changed {
        budget.note_original(session, &e.path, &e.before);
    }
    let (lines, files) = total(budget, fs, session).await;
    if !limits.exceeded_by(lines, files) {
        return Ok(());
    }
    // Undo in reverse order, so a path changed twice ends as it was first found.
    let mut not_undone = Vec::new();
    for e in changed.iter().rev() {
        if !put_back(fs, &e.path, &e.before).await {
            not_undone.push(e.path.display().to_string());
        }
    }
    let (now_lines, now_files) = total(budget, fs, session).await;
    let mut message = format!(
        "This change went over the session's diff budget (`limits.diff`: {limits}): it would \
         have brought the session's changes to {lines} changed lines in {files} files. It was \
         undone, so the session now stands at {now_lines} changed lines in {now_files} files. \
         Make a smaller change, or ask the user to raise `limits.diff` in strata.json."
    );
    if !not_undone.is_empty() {
        message.push_str(&format!(
            " These files could not be restored and still hold the change: {}.",
            not_undone.join(", ")
        ));
    }
    Err(ToolError::model(message))
}

/// Changed lines (added + removed) and changed files of the session, against the originals.
async fn total(budget: &DiffBudget, fs: &FsUtil, session: &str) -> (u64, u64) {
    let (mut lines, mut files) = (0u64, 0u64);
    for (path, original) in budget.originals(session) {
        let before = match &original {
            Before::File { bytes, .. } => Some(bytes.as_slice()),
            Before::Absent => None,
            // Unknown content counts as one changed file with no countable lines.
            Before::Unreadable => {
                files += 1;
                continue;
            }
        };
        let now = read(fs, &path).await;
        if now.as_deref() == before {
            continue;
        }
        files += 1;
        let text = |b: Option<&[u8]>| String::from_utf8_lossy(b.unwrap_or_default()).into_owned();
        let (add, del) = line_counts(&text(before), &text(now.as_deref()));
        lines += (add + del) as u64;
    }
    (lines, files)
}

async fn read(fs: &FsUtil, path: &Path) -> Option<Vec<u8>> {
    match fs.stat(path).await {
        Ok(Some(_)) => fs.read(path, u64::MAX).await.ok(),
        _ => None,
    }
}
