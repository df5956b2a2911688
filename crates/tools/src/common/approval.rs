//! What was approved is what runs, for the tools that write files (`edit`, `write`,
//! `apply_patch`). Each ask keeps a fingerprint of the call's input and of the files its diff
//! was computed from. When a person approves it, the files are read again before anything is
//! written; if one changed in between, the diff on screen is not the diff that would be
//! written, so the call plans again from the files as they are and asks again, saying why.
//! An approval by the rules (an `allow` rule or an earlier `always`) showed nobody a diff, so
//! it is not re-checked.

use std::path::PathBuf;

use serde_json::{Value, json};
use strata_services::permission::{Drift, Fingerprint, Granted, compare, files_hash, input_hash};

use super::filewrite::Writer;
use crate::contract::{Ask, ToolCx, ToolError};

/// How many asks one call makes before it gives up on files that keep changing.
pub(crate) const MAX_ASKS: usize = 4;

/// The files a plan read, each with its text, or `None` when it did not exist.
pub(crate) type FileStates = Vec<(PathBuf, Option<String>)>;

/// One attempt of a file-changing call: what it would write, the ask showing it, and the files
/// as the attempt read them.
pub(crate) struct Plan<T> {
    pub value: T,
    pub ask: Ask,
    pub files: FileStates,
}

/// Why a call asks again: the request that was approved, and the files (as the project shows
/// them) that changed since it was asked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stale {
    pub request_id: String,
    pub changed: Vec<String>,
}

/// The asks of one call, until an approval covers the files as they are now:
///
/// ```text
/// let mut approval = Approval::new(input);
/// let value = loop {
///     let plan = /* read the files (afresh when approval.stale() is Some), build the ask */;
///     if let Some(value) = approval.settle(w, cx, plan).await? { break value; }
/// };
/// ```
#[derive(Debug)]
pub(crate) struct Approval {
    input: Value,
    asks: usize,
    stale: Option<Stale>,
}

impl Approval {
    pub(crate) fn new(input: Value) -> Self {
        Approval {
            input,
            asks: 0,
            stale: None,
        }
    }

    /// `Some` when the last ask was approved but its files changed since: the next plan must
    /// read them afresh.
    pub(crate) fn stale(&self) -> Option<&Stale> {
        self.stale.as_ref()
    }

    /// Asks for `plan` and returns its value when it may be written: approved by the rules,
    /// or approved by a person with the files still as shown. `None` means the files changed
    /// before the approval landed: plan again and call this again.
    pub(crate) async fn settle<T>(
        &mut self,
        w: &Writer,
        cx: &ToolCx,
        plan: Plan<T>,
    ) -> Result<Option<T>, ToolError> {
        if self.asks == MAX_ASKS {
            return Err(ToolError::model(format!(
                "The files of this call changed on disk {MAX_ASKS} times while waiting for \
                 approval, so nothing was written. Read them again and make the call once they \
                 have settled."
            )));
        }
        self.asks += 1;
        let mut ask = plan.ask.shown(fingerprint(&self.input, &plan.files));
        if let Some(s) = &self.stale {
            mark_stale(&mut ask.metadata, s);
        }
        let Granted::Reply {
            request_id,
            shown: Some(approved),
        } = cx.ask_granted(ask).await?
        else {
            return Ok(Some(plan.value));
        };
        let mut now = Vec::with_capacity(plan.files.len());
        for (path, _) in &plan.files {
            now.push((path.clone(), w.read_state(path).await?));
        }
        match compare(&approved, &fingerprint(&self.input, &now)) {
            Drift::None => Ok(Some(plan.value)),
            Drift::Input => Err(ToolError::fatal(format!(
                "Permission request `{request_id}` was approved for a different input than this \
                 call's, so the call was not run. Make the call again."
            ))),
            Drift::Files => {
                let changed = changed(&plan.files, &now)
                    .into_iter()
                    .map(|p| w.info.relative(&p))
                    .collect();
                self.stale = Some(Stale {
                    request_id,
                    changed,
                });
                Ok(None)
            }
        }
    }
}

/// The fingerprint of `input` over `files`.
pub(crate) fn fingerprint(input: &Value, files: &FileStates) -> Fingerprint {
    let named: Vec<(String, Option<&[u8]>)> = files
        .iter()
        .map(|(p, text)| {
            (
                p.to_string_lossy().into_owned(),
                text.as_deref().map(str::as_bytes),
            )
        })
        .collect();
    Fingerprint {
        input: input_hash(input),
        files: files_hash(named.iter().map(|(p, c)| (p.as_str(), *c))),
    }
}

/// The paths whose state differs between `before` and `now` (same paths, same order).
pub(crate) fn changed(before: &FileStates, now: &FileStates) -> Vec<PathBuf> {
    before
        .iter()
        .zip(now)
        .filter(|((_, a), (_, b))| a != b)
        .map(|((p, _), _)| p.clone())
        .collect()
}

/// Says in the request's metadata that it repeats request `stale.request_id` because files
/// changed: a `title` for front-ends to show and `changedSinceAsk` with the details.
pub(crate) fn mark_stale(metadata: &mut Value, stale: &Stale) {
    let Value::Object(map) = metadata else {
        return;
    };
    let files = stale.changed.join(", ");
    map.insert(
        "title".into(),
        json!(format!(
            "{files} changed since the last ask; this is the diff against the file as it is now"
        )),
    );
    map.insert(
        "changedSinceAsk".into(),
        json!({"requestID": stale.request_id, "files": stale.changed}),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn states(list: &[(&str, Option<&str>)]) -> FileStates {
        list.iter()
            .map(|(p, t)| (PathBuf::from(p), t.map(str::to_string)))
            .collect()
    }

    #[test]
    fn the_fingerprint_follows_the_files_and_the_input() {
        let input = json!({"filePath": "a.txt"});
        let one = fingerprint(&input, &states(&[("a.txt", Some("one"))]));
        assert_eq!(one, fingerprint(&input, &states(&[("a.txt", Some("one"))])));
        let edited = fingerprint(&input, &states(&[("a.txt", Some("two"))]));
        assert_eq!(compare(&one, &edited), Drift::Files);
        let gone = fingerprint(&input, &states(&[("a.txt", None)]));
        assert_eq!(compare(&one, &gone), Drift::Files);
        let other = fingerprint(
            &json!({"filePath": "b.txt"}),
            &states(&[("a.txt", Some("one"))]),
        );
        assert_eq!(compare(&one, &other), Drift::Input);
    }

    #[test]
    fn changed_lists_only_the_files_that_differ() {
        let before = states(&[("a", Some("1")), ("b", None), ("c", Some("3"))]);
        let now = states(&[("a", Some("1")), ("b", Some("new")), ("c", None)]);
        assert_eq!(
            changed(&before, &now),
            vec![PathBuf::from("b"), PathBuf::from("c")]
        );
        assert!(changed(&before, &before).is_empty());
    }

    #[test]
    fn a_stale_ask_says_which_request_and_files() {
        let mut meta = json!({"filepath": "src/a.rs", "diff": "-x\n+y"});
        let stale = Stale {
            request_id: "per_1".into(),
            changed: vec!["src/a.rs".into()],
        };
        mark_stale(&mut meta, &stale);
        assert_eq!(
            meta["title"],
            "src/a.rs changed since the last ask; this is the diff against the file as it is now"
        );
        assert_eq!(
            meta["changedSinceAsk"],
            json!({"requestID": "per_1", "files": ["src/a.rs"]})
        );
        assert_eq!(meta["diff"], "-x\n+y", "the rest is kept");
    }
}
