//! Reading git's `--numstat` and `--name-status` listings (plain functions, tested alone).

/// One file that differs between two snapshots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Relative to the worktree, `/`-separated.
    pub path: String,
    /// `added`, `modified` or `deleted`.
    pub status: &'static str,
    pub additions: u64,
    pub deletions: u64,
    /// A unified diff of the file (empty for binary files).
    pub patch: String,
}

/// `git diff-tree -z --name-status` output: (status letter, path) pairs.
pub(super) fn name_status(z: &str) -> Vec<(char, String)> {
    let mut out = Vec::new();
    let mut fields = z.split('\0').filter(|f| !f.is_empty());
    while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
        if let Some(letter) = status.chars().next() {
            out.push((letter, path.to_string()));
        }
    }
    out
}

/// `git diff-tree -z --numstat` output: path → (additions, deletions); binary files count 0.
pub(super) fn numstat(z: &str) -> Vec<(String, u64, u64)> {
    z.split('\0')
        .filter_map(|record| {
            let mut cols = record.splitn(3, '\t');
            let adds = cols.next()?.trim();
            let dels = cols.next()?;
            let path = cols.next()?;
            Some((
                path.to_string(),
                adds.parse().unwrap_or(0),
                dels.parse().unwrap_or(0),
            ))
        })
        .collect()
}

/// The word for a `--name-status` letter.
pub(super) fn status_word(letter: char) -> &'static str {
    match letter {
        'A' => "added",
        'D' => "deleted",
        _ => "modified",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_status_pairs_letters_with_paths() {
        let z = "M\0src/a b.rs\0A\0new.txt\0D\0old\0";
        assert_eq!(
            name_status(z),
            vec![
                ('M', "src/a b.rs".to_string()),
                ('A', "new.txt".to_string()),
                ('D', "old".to_string())
            ]
        );
    }

    #[test]
    fn numstat_reads_counts_and_treats_binary_as_zero() {
        let z = "3\t1\tsrc/a.rs\0-\t-\timg.png\0";
        assert_eq!(
            numstat(z),
            vec![
                ("src/a.rs".to_string(), 3, 1),
                ("img.png".to_string(), 0, 0)
            ]
        );
        assert_eq!(status_word('A'), "added");
        assert_eq!(status_word('T'), "modified");
    }
}
