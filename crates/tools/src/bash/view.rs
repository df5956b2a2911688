//! The project as the permission scan sees it, symlinks resolved (spec §0.3, §18 g).
//!
//! The scan is synchronous and the file system is reached through the async `FsUtil`, so the
//! facts are fetched ahead: a scan runs against what is known, records every path it asked
//! about that was not known yet, those paths are resolved, and the scan runs again. Each round
//! only adds paths derived from the same command words, so this settles in two or three rounds.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use strata_services::fs::{FileKind, FsUtil, contains};
use strata_services::instance::InstanceInfo;

use super::scan::{ProjectView, Scan, scan};

/// Rounds after which unknown paths are answered lexically rather than fetched again.
const MAX_ROUNDS: usize = 6;

/// What is known about one absolute path.
#[derive(Debug, Clone)]
struct Facts {
    inside: bool,
    is_dir: bool,
    glob_base: PathBuf,
}

/// The project directories as given and resolved, plus facts fetched so far.
struct Known<'a> {
    info: &'a InstanceInfo,
    real_dir: PathBuf,
    real_tree: PathBuf,
    home: Option<PathBuf>,
    facts: HashMap<PathBuf, Facts>,
}

impl Known<'_> {
    async fn fetch(&self, fs: &FsUtil, path: &Path) -> Facts {
        let lexically_inside = self.info.contains(path);
        let real = fs.resolve_real(path).await;
        let real_inside = contains(&self.real_dir, &real)
            || (self.real_tree.parent().is_some() && contains(&self.real_tree, &real));
        let is_dir = matches!(fs.stat(path).await, Ok(Some(m)) if m.kind == FileKind::Dir);
        Facts {
            inside: lexically_inside && real_inside,
            is_dir,
            // §0.4: an alias path outside keeps its own spelling; an inside path that only
            // resolves outside is named by where it resolves.
            glob_base: if lexically_inside {
                real
            } else {
                path.to_path_buf()
            },
        }
    }
}

/// One round's view: answers from the known facts and records what it had to guess.
struct RoundView<'k, 'a> {
    known: &'k Known<'a>,
    misses: RefCell<BTreeSet<PathBuf>>,
}

impl RoundView<'_, '_> {
    fn lookup(&self, path: &Path) -> Option<&Facts> {
        let found = self.known.facts.get(path);
        if found.is_none() {
            self.misses.borrow_mut().insert(path.to_path_buf());
        }
        found
    }
}

impl ProjectView for RoundView<'_, '_> {
    fn is_inside(&self, path: &Path) -> bool {
        self.lookup(path)
            .map(|f| f.inside)
            .unwrap_or_else(|| self.known.info.contains(path))
    }

    fn is_dir(&self, path: &Path) -> bool {
        self.lookup(path).is_some_and(|f| f.is_dir)
    }

    fn home(&self) -> Option<PathBuf> {
        self.known.home.clone()
    }

    fn glob_base(&self, path: &Path) -> PathBuf {
        self.lookup(path)
            .map(|f| f.glob_base.clone())
            .unwrap_or_else(|| path.to_path_buf())
    }
}

/// Scans `command` run in `cwd` with every path it mentions resolved on the real file system.
pub(super) async fn scan_resolved(
    command: &str,
    cwd: &Path,
    info: &InstanceInfo,
    fs: &FsUtil,
) -> Scan {
    let mut known = Known {
        info,
        real_dir: fs.resolve_real(&info.directory).await,
        real_tree: fs.resolve_real(&info.worktree).await,
        home: std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from),
        facts: HashMap::new(),
    };
    let mut round = 0;
    loop {
        round += 1;
        let (result, misses) = {
            let view = RoundView {
                known: &known,
                misses: RefCell::new(BTreeSet::new()),
            };
            let result = scan(command, cwd, &view);
            (result, view.misses.into_inner())
        };
        if misses.is_empty() || round >= MAX_ROUNDS {
            return result;
        }
        for path in misses {
            let facts = known.fetch(fs, &path).await;
            known.facts.insert(path, facts);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_services::flags::RuntimeFlags;
    use strata_services::instance::InstanceSeed;

    struct Fixture {
        _tmp: tempfile::TempDir,
        project: PathBuf,
        outside: PathBuf,
        info: InstanceInfo,
    }

    fn fixture() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let project = root.join("project");
        let outside = root.join("outside");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::create_dir_all(outside.join("sub")).unwrap();
        std::fs::write(outside.join("secret.txt"), "x").unwrap();
        std::fs::write(project.join("inside.txt"), "x").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&outside, project.join("link")).unwrap();
        let flags = RuntimeFlags::for_dirs(root.join("data"), root.join("config"));
        let info = InstanceInfo::detect(
            &InstanceSeed {
                directory: project.clone(),
            },
            &flags,
        )
        .unwrap();
        Fixture {
            _tmp: tmp,
            project,
            outside,
            info,
        }
    }

    #[tokio::test]
    async fn inside_paths_ask_nothing_external() {
        let f = fixture();
        let fs = FsUtil::live();
        let s = scan_resolved("cat inside.txt && rm inside.txt", &f.project, &f.info, &fs).await;
        assert!(s.external_dirs.is_empty(), "{s:?}");
        assert_eq!(s.patterns, ["cat inside.txt", "rm inside.txt"]);
    }

    #[tokio::test]
    async fn outside_files_and_directories_are_told_apart() {
        let f = fixture();
        let fs = FsUtil::live();
        let cmd = format!(
            "cat {} && cd {}",
            f.outside.join("secret.txt").display(),
            f.outside.join("sub").display()
        );
        let s = scan_resolved(&cmd, &f.project, &f.info, &fs).await;
        assert_eq!(s.external_dirs, [f.outside.clone(), f.outside.join("sub")]);
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_symlink_inside_that_resolves_outside_is_external() {
        let f = fixture();
        let fs = FsUtil::live();
        let s = scan_resolved("cat link/secret.txt", &f.project, &f.info, &fs).await;
        assert_eq!(s.external_dirs, std::slice::from_ref(&f.outside), "{s:?}");
        let s = scan_resolved("ls", &f.project.join("link"), &f.info, &fs).await;
        assert_eq!(s.external_dirs, std::slice::from_ref(&f.outside), "{s:?}");
    }
}
