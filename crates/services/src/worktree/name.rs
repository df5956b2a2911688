//! Worktree names: what a user may pass as `NAME` (it becomes a folder and the branch
//! `strata/NAME`), and the names Strata makes up when none is given.

/// Why `name` cannot name a worktree, if it cannot: it must be a single folder name that git
/// also accepts in a branch name.
pub fn invalid_reason(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("it is empty");
    }
    if name.len() > 64 {
        return Some("it is longer than 64 characters");
    }
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if !name.chars().all(allowed) {
        return Some("only letters, digits, `-`, `_` and `.` may be used");
    }
    if name.starts_with(['-', '.']) {
        return Some("it may not start with `-` or `.`");
    }
    if name.contains("..") || name.ends_with('.') || name.ends_with(".lock") {
        return Some("git refuses `..`, a trailing `.` and a trailing `.lock` in branch names");
    }
    None
}

const FIRST: &[&str] = &[
    "amber", "brisk", "calm", "deft", "eager", "fair", "gentle", "hardy", "keen", "lively",
    "mellow", "nimble", "quiet", "rapid", "steady", "tidy", "vivid", "warm", "witty", "bold",
];

const SECOND: &[&str] = &[
    "badger", "cedar", "comet", "delta", "ember", "falcon", "harbor", "island", "lantern",
    "meadow", "orchid", "otter", "pebble", "quartz", "river", "spruce", "summit", "tundra",
    "walnut", "willow",
];

/// A made-up name such as `brisk-otter-3f2a`, from `seed` (any random number); the suffix
/// makes a clash with an earlier name unlikely.
pub fn generated(seed: u64) -> String {
    let first = FIRST[(seed % FIRST.len() as u64) as usize];
    let second = SECOND[((seed / 31) % SECOND.len() as u64) as usize];
    format!("{first}-{second}-{:04x}", (seed >> 20) & 0xffff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_are_one_folder_and_a_branch_are_accepted() {
        for ok in ["fix-login", "v2.1", "a_b", "X9"] {
            assert_eq!(invalid_reason(ok), None, "{ok}");
        }
        let bad = [
            ("", "empty"),
            ("a/b", "only letters"),
            ("has space", "only letters"),
            ("-x", "start with"),
            (".hidden", "start with"),
            ("a..b", "`..`"),
            ("x.lock", "`.lock`"),
            ("end.", "trailing `.`"),
        ];
        for (name, why) in bad {
            let reason = invalid_reason(name).unwrap_or_default();
            assert!(reason.contains(why), "{name}: {reason}");
        }
        assert!(invalid_reason(&"a".repeat(65)).is_some());
    }

    #[test]
    fn generated_names_are_valid_and_vary_with_the_seed() {
        let a = generated(12_345_678_901);
        let b = generated(98_765_432_123);
        assert_ne!(a, b);
        for name in [a, b, generated(0), generated(u64::MAX)] {
            assert_eq!(invalid_reason(&name), None, "{name}");
            assert_eq!(name.split('-').count(), 3, "{name}");
        }
    }
}
