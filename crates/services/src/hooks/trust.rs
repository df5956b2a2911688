//! Trust for the project's own hooks. A project's `.claude/settings.json` or `strata.json`
//! could run anything on the user's machine the moment a session starts, so its hooks run
//! only after the user has trusted them once. The trust is kept against a hash of the hook
//! config, so a changed hook is asked about again.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The file under the data directory that records trusted projects.
pub const TRUST_FILE: &str = "hooks-trust.json";

/// A hash of the project's hook config: `(file, hooks value)` pairs in order.
pub fn fingerprint(sources: &[(String, Value)]) -> String {
    let mut hasher = Sha256::new();
    for (file, hooks) in sources {
        hasher.update(file.as_bytes());
        hasher.update([0]);
        hasher.update(hooks.to_string().as_bytes());
        hasher.update([0]);
    }
    format!("{:x}", hasher.finalize())
}

/// The record of trusted project hooks: project directory → fingerprint.
#[derive(Debug, Clone)]
pub struct TrustStore {
    path: PathBuf,
}

impl TrustStore {
    pub fn new(data_dir: &Path) -> TrustStore {
        TrustStore {
            path: data_dir.join(TRUST_FILE),
        }
    }

    /// Whether `project`'s hooks with this fingerprint were trusted. An unreadable record
    /// trusts nothing.
    pub fn is_trusted(&self, project: &Path, fingerprint: &str) -> bool {
        self.read()
            .get(&project.to_string_lossy().into_owned())
            .is_some_and(|f| f == fingerprint)
    }

    /// Records the trust, replacing the file atomically so a crash keeps the old record.
    pub fn trust(&self, project: &Path, fingerprint: &str) -> io::Result<()> {
        let mut all = self.read();
        all.insert(
            project.to_string_lossy().into_owned(),
            fingerprint.to_string(),
        );
        let text = serde_json::to_string_pretty(&all).map_err(io::Error::other)?;
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = self.path.with_extension("json.tmp");
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &self.path)
    }

    fn read(&self) -> BTreeMap<String, String> {
        std::fs::read_to_string(&self.path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn trust_is_kept_per_project_and_per_fingerprint() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::new(&dir.path().join("data"));
        let hooks = vec![(".claude/settings.json".to_string(), json!({"Stop": []}))];
        let first = fingerprint(&hooks);
        let project = Path::new("/projects/a");
        assert!(!store.is_trusted(project, &first));
        store.trust(project, &first).unwrap();
        assert!(store.is_trusted(project, &first));
        assert!(!store.is_trusted(Path::new("/projects/b"), &first));
        let changed = vec![(
            ".claude/settings.json".to_string(),
            json!({"Stop": [{"hooks": []}]}),
        )];
        assert_ne!(fingerprint(&changed), first);
        assert!(
            !store.is_trusted(project, &fingerprint(&changed)),
            "a changed hook asks again"
        );
        std::fs::write(dir.path().join("data").join(TRUST_FILE), "garbage").unwrap();
        assert!(
            !store.is_trusted(project, &first),
            "an unreadable record trusts nothing"
        );
    }
}
