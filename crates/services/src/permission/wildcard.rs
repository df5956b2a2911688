//! Wildcard matching for permission names and patterns (spec §0.5 "Wildcard match").
//!
//! `*` matches any run of characters (slashes and newlines included), `?` exactly one; every
//! other character is literal. A pattern ending in `" *"` also matches the input without that
//! tail, so `ls *` covers a bare `ls` but not `lstmeval`. Backslashes count as `/` on both sides,
//! and matching ignores case on Windows only, where paths do.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use regex::Regex;

/// Compiled patterns kept for reuse; cleared when it grows past this many entries, so that a
/// stream of one-off patterns (e.g. bash commands) cannot grow it without bound.
const CACHE_LIMIT: usize = 1024;

/// Whether `input` matches the wildcard `pattern` as a whole.
pub fn wildcard_match(pattern: &str, input: &str) -> bool {
    let input = input.replace('\\', "/");
    match compiled(pattern) {
        Some(re) => re.is_match(&input),
        // Only reachable if the regex engine refuses an escaped pattern (e.g. a size limit);
        // fall back to a literal comparison rather than allowing or panicking.
        None => pattern.replace('\\', "/") == input,
    }
}

/// The regex source for `pattern`: anchored, `*`/`?` turned into `.*`/`.`, the rest escaped.
pub fn to_regex(pattern: &str) -> String {
    let pattern = pattern.replace('\\', "/");
    let (body, optional_tail) = match pattern.strip_suffix(" *") {
        Some(head) => (head, true),
        None => (pattern.as_str(), false),
    };
    let mut out = String::with_capacity(body.len() + 16);
    // `s`: `.` also matches newlines, so `*` spans multi-line commands.
    out.push_str(if cfg!(windows) { "(?si)^" } else { "(?s)^" });
    push_body(&mut out, body);
    if optional_tail {
        out.push_str("( .*)?");
    }
    out.push('$');
    out
}

fn push_body(out: &mut String, body: &str) {
    let mut buf = [0u8; 4];
    for c in body.chars() {
        match c {
            '*' => out.push_str(".*"),
            '?' => out.push('.'),
            _ => out.push_str(&regex::escape(c.encode_utf8(&mut buf))),
        }
    }
}

fn compiled(pattern: &str) -> Option<Regex> {
    static CACHE: OnceLock<Mutex<HashMap<String, Regex>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    // A poisoned cache only means another thread panicked mid-insert; the map is still usable.
    let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(re) = map.get(pattern) {
        return Some(re.clone());
    }
    let re = Regex::new(&to_regex(pattern)).ok()?;
    if map.len() >= CACHE_LIMIT {
        map.clear();
    }
    map.insert(pattern.to_string(), re.clone());
    Some(re)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        let cases: &[(&str, &str, bool)] = &[
            // `?` is exactly one character
            ("file?.txt", "file1.txt", true),
            ("file?.txt", "fileA.txt", true),
            ("file?.txt", "file.txt", false),
            ("file?.txt", "file12.txt", false),
            // regex metacharacters are literal
            ("foo+bar", "foo+bar", true),
            ("foo+bar", "foooobar", false),
            ("a.b", "axb", false),
            ("(x)|[y]", "(x)|[y]", true),
            ("^$", "^$", true),
            // trailing " *"
            ("ls *", "ls", true),
            ("ls *", "ls -la", true),
            ("ls *", "lstmeval", false),
            ("ls*", "ls -la", true),
            ("ls*", "lstmeval", true),
            ("ls*", "ls", true),
            ("git *", "git", true),
            ("git *", "git status --short", true),
            ("git *", "gitk", false),
            // `*` crosses slashes and newlines
            ("*", "", true),
            ("*", "a/b/c", true),
            ("*.env", "a/b/.env", true),
            ("*.env", ".env.local", false),
            ("src/*", "src/a/b.rs", true),
            ("echo *", "echo a\nb", true),
            ("?", "\n", true),
            // anchored at both ends
            ("bash", "bash2", false),
            ("bash", "xbash", false),
            ("", "", true),
            ("", "a", false),
            // backslashes are slashes on both sides
            ("C:\\Users\\*", "C:/Users/me/x", true),
            ("C:/Users/*", "C:\\Users\\me\\x", true),
            ("dir\\file", "dir/file", true),
        ];
        for (pattern, input, want) in cases {
            assert_eq!(
                wildcard_match(pattern, input),
                *want,
                "pattern {pattern:?} input {input:?}"
            );
        }
    }

    #[test]
    fn case_sensitivity_follows_the_platform() {
        assert_eq!(wildcard_match("LS *", "ls -la"), cfg!(windows));
        assert_eq!(wildcard_match("/Home/*.ENV", "/home/x/.env"), cfg!(windows));
        assert!(wildcard_match("ls *", "ls -la"));
    }

    #[test]
    fn cache_returns_the_same_answers_and_survives_clearing() {
        for i in 0..(CACHE_LIMIT + 10) {
            let p = format!("cmd{i} *");
            assert!(wildcard_match(&p, &format!("cmd{i} arg")));
            assert!(!wildcard_match(&p, &format!("cmd{i}x")));
        }
        assert!(wildcard_match("cmd0 *", "cmd0"));
    }
}
