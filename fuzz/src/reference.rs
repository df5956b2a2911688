//! Obviously correct reference implementations for differential fuzzing: slow and simple,
//! written from the rules as documented, not from the code they check.

/// Whether `input` matches the wildcard `pattern` as a whole: `*` any run of characters, `?`
/// exactly one, everything else literal; a pattern ending in `" *"` also matches without that
/// tail; backslashes count as `/` on both sides.
pub fn wildcard(pattern: &str, input: &str) -> bool {
    let pattern: Vec<char> = pattern.replace('\\', "/").chars().collect();
    let input: Vec<char> = input.replace('\\', "/").chars().collect();
    if let Some(head) = pattern.strip_suffix(&[' ', '*']) {
        if matches(head, &input) {
            return true;
        }
        // With the tail: the head, a space, then anything.
        return (0..=input.len()).any(|i| input.get(i) == Some(&' ') && matches(head, &input[..i]));
    }
    matches(&pattern, &input)
}

/// Plain `*`/`?` matching by dynamic programming over (pattern, input) prefixes.
fn matches(pattern: &[char], input: &[char]) -> bool {
    // ok[j]: pattern[..i] matches input[..j], row by row over i.
    let mut ok = vec![false; input.len() + 1];
    ok[0] = true;
    for p in pattern {
        let mut next = vec![false; input.len() + 1];
        for j in 0..=input.len() {
            next[j] = match p {
                '*' => ok[j] || (j > 0 && next[j - 1]),
                '?' => j > 0 && ok[j - 1],
                c => j > 0 && ok[j - 1] && input[j - 1] == *c,
            };
        }
        ok = next;
    }
    ok[input.len()]
}

/// Last match wins: the action of the last rule whose permission and pattern both match, or
/// `"ask"` when none does.
pub fn decide<'a>(
    rules: &'a [(String, String, String)],
    permission: &str,
    pattern: &str,
) -> &'a str {
    let mut action = "ask";
    for (p, pat, a) in rules {
        if wildcard(p, permission) && wildcard(pat, pattern) {
            action = a;
        }
    }
    action
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_questions_and_the_optional_tail() {
        assert!(wildcard("*", ""));
        assert!(wildcard("a*c", "abbbc"));
        assert!(wildcard("a?c", "abc"));
        assert!(!wildcard("a?c", "ac"));
        assert!(wildcard("ls *", "ls"));
        assert!(wildcard("ls *", "ls -la"));
        assert!(!wildcard("ls *", "lstmeval"));
        assert!(wildcard("C:\\x\\*", "C:/x/y"));
        assert!(wildcard("*", "two\nlines"));
    }

    #[test]
    fn the_last_matching_rule_decides() {
        let rules = vec![
            ("*".to_string(), "*".to_string(), "allow".to_string()),
            ("bash".to_string(), "rm *".to_string(), "deny".to_string()),
        ];
        assert_eq!(decide(&rules, "bash", "rm -rf x"), "deny");
        assert_eq!(decide(&rules, "bash", "ls"), "allow");
        assert_eq!(decide(&[], "edit", "a"), "ask");
    }
}
