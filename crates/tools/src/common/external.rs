//! The external-directory permission (spec §0.4): any path outside the project needs
//! `external_directory` before a tool touches it. Symlinks are resolved first (§18 g).

use std::path::{Path, PathBuf};

use serde_json::json;
use strata_services::fs::{FsUtil, to_slash};
use strata_services::instance::InstanceInfo;
use strata_services::permission::dir_glob;

use crate::contract::{Ask, ToolCx, ToolError};

/// Whether the target is a directory itself or a file inside its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Directory,
}

/// The directory an ask is about, or `None` when the path is inside the project.
pub(crate) async fn outside_dir(
    info: &InstanceInfo,
    fs: &FsUtil,
    target: &Path,
    kind: Kind,
) -> Option<PathBuf> {
    let dir_of = |p: &Path| match kind {
        Kind::Directory => p.to_path_buf(),
        Kind::File => p
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| p.to_path_buf()),
    };
    if !info.contains(target) {
        // A rule written for the path as given (an alias) must match.
        return Some(dir_of(target));
    }
    let real = fs.resolve_real(target).await;
    if is_inside_real(info, fs, &real).await {
        None
    } else {
        Some(dir_of(&real))
    }
}

/// Whether a resolved real path is in the project (the project's own paths resolved too).
pub(crate) async fn is_inside_real(info: &InstanceInfo, fs: &FsUtil, real: &Path) -> bool {
    let dir = fs.resolve_real(&info.directory).await;
    let tree = fs.resolve_real(&info.worktree).await;
    strata_services::fs::contains(&dir, real)
        || (tree != Path::new("/") && strata_services::fs::contains(&tree, real))
}

/// Asks `external_directory` when `target` is outside the project; does nothing inside.
pub(crate) async fn check(
    cx: &ToolCx,
    info: &InstanceInfo,
    fs: &FsUtil,
    target: &Path,
    kind: Kind,
) -> Result<(), ToolError> {
    let Some(dir) = outside_dir(info, fs, target, kind).await else {
        return Ok(());
    };
    let glob = dir_glob(&dir);
    cx.ask(
        Ask::new("external_directory", vec![glob.clone()], vec![glob]).metadata(json!({
            "filepath": to_slash(target),
            "parentDir": to_slash(&dir),
        })),
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_glob_covers_the_directory_and_a_root_level_file_gives_the_root_glob() {
        assert_eq!(dir_glob(Path::new("/home/me/other")), "/home/me/other/*");
        assert_eq!(dir_glob(Path::new("/")), "/*");
        // `/etc` is a file's parent for `/etc/hostname`; `/x`'s parent is the root.
        let parent = Path::new("/x").parent().unwrap();
        assert_eq!(dir_glob(parent), "/*");
    }
}
