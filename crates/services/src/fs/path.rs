//! Pure path arithmetic (spec §0.3): lexical normalisation, resolution against a base,
//! containment and slash-separated relative forms. Nothing here touches the disk.

use std::path::{Component, Path, PathBuf};

/// Removes `.` and folds `..` lexically, without looking at the disk.
///
/// `..` at the root stays at the root; leading `..` of a relative path are kept. An empty
/// result of a relative path is `.`.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component<'_>> = Vec::new();
    for comp in path.components() {
        match comp {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir) | Some(Component::Prefix(_)) => {}
                Some(Component::ParentDir) | Some(Component::CurDir) | None => out.push(comp),
            },
            other => out.push(other),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().map(|c| c.as_os_str()).collect()
}

/// Joins a relative `p` to `base` (an absolute `p` is taken as it is), then normalises.
pub fn resolve(base: &Path, p: &str) -> PathBuf {
    let p = Path::new(p);
    if p.is_absolute() {
        normalize(p)
    } else {
        normalize(&base.join(p))
    }
}

/// The lexical path leading from `base` to `path` (both normalised first), or `None` when one
/// is absolute and the other relative. The result may start with `..`; it is empty when the
/// two are the same.
fn relative_path(base: &Path, path: &Path) -> Option<PathBuf> {
    let base = normalize(base);
    let path = normalize(path);
    if base.is_absolute() != path.is_absolute() {
        return None;
    }
    let b: Vec<Component<'_>> = base
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect();
    let p: Vec<Component<'_>> = path
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect();
    let common = b.iter().zip(&p).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    Some(out)
}

/// Whether `child` is `parent` itself or lies beneath it (spec §0.3): the relative path from
/// parent to child is empty or does not begin with a `..` component, so a sibling named
/// `..foo` counts as inside.
pub fn contains(parent: &Path, child: &Path) -> bool {
    match relative_path(parent, child) {
        None => false,
        Some(rel) => !matches!(
            rel.components().next(),
            Some(Component::ParentDir | Component::RootDir | Component::Prefix(_))
        ),
    }
}

/// The path as text with `/` separators (what titles and permission patterns use).
pub fn to_slash(path: &Path) -> String {
    let text = path.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        text.into_owned()
    } else {
        text.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

/// `path` relative to `base` with `/` separators; may start with `../`, empty when equal.
/// When one is absolute and the other relative, `path` is returned as it is.
pub fn relative_to(base: &Path, path: &Path) -> String {
    match relative_path(base, path) {
        Some(rel) => to_slash(&rel),
        None => to_slash(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> &Path {
        Path::new(s)
    }

    #[test]
    fn normalize_folds_dots_lexically() {
        assert_eq!(normalize(p("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize(p("/../x")), PathBuf::from("/x"));
        assert_eq!(normalize(p("a/../../b")), PathBuf::from("../b"));
        assert_eq!(normalize(p("a/..")), PathBuf::from("."));
        assert_eq!(normalize(p("./a//b/")), PathBuf::from("a/b"));
        assert_eq!(normalize(p("/")), PathBuf::from("/"));
        assert_eq!(normalize(p("/a/..foo/b")), PathBuf::from("/a/..foo/b"));
    }

    #[test]
    fn resolve_joins_relative_and_keeps_absolute() {
        assert_eq!(
            resolve(p("/proj"), "src/lib.rs"),
            PathBuf::from("/proj/src/lib.rs")
        );
        assert_eq!(resolve(p("/proj"), "../x"), PathBuf::from("/x"));
        assert_eq!(
            resolve(p("/proj"), "/etc/./hosts"),
            PathBuf::from("/etc/hosts")
        );
        assert_eq!(resolve(p("/proj"), ""), PathBuf::from("/proj"));
        assert_eq!(resolve(p("/proj"), "."), PathBuf::from("/proj"));
    }

    #[test]
    fn contains_follows_the_relative_path_rule() {
        assert!(contains(p("/a/b"), p("/a/b")));
        assert!(contains(p("/a/b"), p("/a/b/c/d.txt")));
        assert!(contains(p("/a/b"), p("/a/b/..foo")));
        assert!(contains(p("/a/b/"), p("/a/b/./c")));
        assert!(contains(p("/"), p("/anything/at/all")));
        assert!(!contains(p("/a/b"), p("/a")));
        assert!(!contains(p("/a/b"), p("/a/bc")));
        assert!(!contains(p("/a/b"), p("/a/..foo")));
        assert!(!contains(p("/a/b"), p("/a/b/../c")));
        assert!(!contains(p("/a/b"), p("/x/y")));
        assert!(!contains(p("/a/b"), p("b/c")));
    }

    #[test]
    fn relative_to_uses_slashes_and_may_climb() {
        assert_eq!(relative_to(p("/w/proj"), p("/w/proj/src/a.rs")), "src/a.rs");
        assert_eq!(relative_to(p("/w/proj"), p("/tmp/x")), "../../tmp/x");
        assert_eq!(relative_to(p("/w/proj"), p("/w/proj")), "");
        assert_eq!(relative_to(p("/w/proj"), p("rel/x")), "rel/x");
    }

    #[test]
    fn to_slash_keeps_unix_paths() {
        assert_eq!(to_slash(p("/a/b c/d")), "/a/b c/d");
    }
}
