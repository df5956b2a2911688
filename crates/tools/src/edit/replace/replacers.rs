//! The nine candidate generators of spec §3.3, tried in order by [`super::replace`].
//!
//! Each replacer looks at the file content and `oldString` and yields candidate strings that
//! are (or are tested for being) exact substrings of the content. Lines are `split('\n')`, so a
//! `\r` of a CRLF file stays part of its line; window texts are those original lines joined
//! with `\n`, without a trailing newline.

/// A replacer: content and `oldString` in, candidate strings out.
pub(super) type Replacer = fn(&str, &str) -> Vec<String>;

/// Every replacer, in the order the spec tries them.
pub(super) const REPLACERS: [Replacer; 9] = [
    simple,
    line_trimmed,
    block_anchor,
    whitespace_normalized,
    indentation_flexible,
    escape_normalized,
    trimmed_boundary,
    context_aware,
    multi_occurrence,
];

/// Similarity a lone block-anchor candidate needs (summed line by line).
const SINGLE_CANDIDATE_THRESHOLD: f64 = 0.65;
/// Average similarity the best of several block-anchor candidates needs.
const MULTIPLE_CANDIDATES_THRESHOLD: f64 = 0.65;

fn lines(text: &str) -> Vec<&str> {
    text.split('\n').collect()
}

/// `old`'s lines with one trailing empty line removed (a trailing newline in `oldString`).
fn lines_without_trailing_empty(old: &str) -> Vec<&str> {
    let mut v = lines(old);
    if v.len() > 1 && v.last().is_some_and(|l| l.is_empty()) {
        v.pop();
    }
    v
}

/// Every run of `n` consecutive lines, as (start index, joined text).
fn windows<'a>(content: &'a [&'a str], n: usize) -> impl Iterator<Item = (usize, String)> + 'a {
    let count = if n == 0 || n > content.len() {
        0
    } else {
        content.len() - n + 1
    };
    (0..count).map(move |i| (i, content[i..i + n].join("\n")))
}

/// 1. The text itself.
pub(super) fn simple(_content: &str, old: &str) -> Vec<String> {
    vec![old.to_string()]
}

/// 2. Windows whose lines equal `old`'s lines once each side is trimmed.
pub(super) fn line_trimmed(content: &str, old: &str) -> Vec<String> {
    let content_lines = lines(content);
    let old_lines = lines_without_trailing_empty(old);
    let n = old_lines.len();
    let count = if n > content_lines.len() {
        0
    } else {
        content_lines.len() - n + 1
    };
    (0..count)
        .filter(|&i| (0..n).all(|j| content_lines[i + j].trim() == old_lines[j].trim()))
        .map(|i| content_lines[i..i + n].join("\n"))
        .collect()
}

/// Pairs (first, last) of content lines matching `old`'s first and last lines (trimmed), the
/// last one being the first match at least two lines below the first.
fn anchor_pairs(content_lines: &[&str], first: &str, last: &str) -> Vec<(usize, usize)> {
    // next_last[k]: the first index >= k whose line matches `last` (one backward pass, so
    // large files with a rare last anchor stay linear).
    let mut next_last = vec![None; content_lines.len() + 1];
    for k in (0..content_lines.len()).rev() {
        next_last[k] = if content_lines[k].trim() == last {
            Some(k)
        } else {
            next_last[k + 1]
        };
    }
    content_lines
        .iter()
        .enumerate()
        .filter(|(_, line)| line.trim() == first)
        .filter_map(|(i, _)| next_last.get(i + 2).copied().flatten().map(|j| (i, j)))
        .collect()
}

/// Per-line similarity `1 - distance / longer length`; `None` when both lines are empty.
fn line_similarity(a: &str, b: &str) -> Option<f64> {
    let longest = a.chars().count().max(b.chars().count());
    if longest == 0 {
        return None;
    }
    Some(1.0 - levenshtein(a, b) as f64 / longest as f64)
}

/// Similarities of the middle lines of the block `i..=j` against `old_lines`, by position;
/// pairs of empty lines are skipped. Also returns how many lines the average divides by.
fn middle_similarities<'a>(
    content_lines: &'a [&'a str],
    old_lines: &'a [&'a str],
    i: usize,
    j: usize,
) -> (usize, impl Iterator<Item = f64> + 'a) {
    let size = j - i + 1;
    let to_check = old_lines.len().min(size).saturating_sub(2);
    let sims = (1..to_check + 1)
        .filter_map(move |k| line_similarity(content_lines[i + k].trim(), old_lines[k].trim()));
    (to_check, sims)
}

/// 3. Blocks whose first and last lines match `old`'s, accepted by middle-line similarity.
pub(super) fn block_anchor(content: &str, old: &str) -> Vec<String> {
    if lines(old).len() < 3 {
        return Vec::new();
    }
    let old_lines = lines_without_trailing_empty(old);
    let old_size = old_lines.len();
    let content_lines = lines(content);
    let first = old_lines[0].trim();
    let last = old_lines[old_size - 1].trim();
    let slack = ((old_size as f64 * 0.25).floor() as usize).max(1);
    let candidates: Vec<(usize, usize)> = anchor_pairs(&content_lines, first, last)
        .into_iter()
        .filter(|&(i, j)| (j - i + 1).abs_diff(old_size) <= slack)
        .collect();
    let window = |i: usize, j: usize| content_lines[i..=j].join("\n");

    match candidates.as_slice() {
        [] => Vec::new(),
        [(i, j)] => {
            let (to_check, sims) = middle_similarities(&content_lines, &old_lines, *i, *j);
            // No middle lines to compare: the anchors alone decide.
            let mut similarity = if to_check == 0 { 1.0 } else { 0.0 };
            if to_check > 0 {
                for sim in sims {
                    similarity += sim / to_check as f64;
                    if similarity >= SINGLE_CANDIDATE_THRESHOLD {
                        break;
                    }
                }
            }
            if similarity >= SINGLE_CANDIDATE_THRESHOLD {
                vec![window(*i, *j)]
            } else {
                Vec::new()
            }
        }
        several => {
            let mut best: Option<((usize, usize), f64)> = None;
            for &(i, j) in several {
                let (to_check, sims) = middle_similarities(&content_lines, &old_lines, i, j);
                let similarity = if to_check == 0 {
                    1.0
                } else {
                    sims.sum::<f64>() / to_check as f64
                };
                if best.is_none_or(|(_, s)| similarity > s) {
                    best = Some(((i, j), similarity));
                }
            }
            match best {
                Some(((i, j), s)) if s >= MULTIPLE_CANDIDATES_THRESHOLD => vec![window(i, j)],
                _ => Vec::new(),
            }
        }
    }
}

/// Collapse every whitespace run to one space, then trim.
fn normalize_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// 4. Lines or windows equal to `old` once whitespace runs are collapsed.
pub(super) fn whitespace_normalized(content: &str, old: &str) -> Vec<String> {
    let wanted = normalize_whitespace(old);
    let content_lines = lines(content);
    let mut out = Vec::new();
    let mut pattern: Option<Option<regex::Regex>> = None;
    for line in &content_lines {
        let normalized = normalize_whitespace(line);
        if normalized == wanted {
            out.push((*line).to_string());
        } else if normalized.contains(&wanted) {
            // Build the words-with-any-whitespace pattern once, only when needed.
            let re = pattern.get_or_insert_with(|| {
                let words: Vec<String> = old.split_whitespace().map(regex::escape).collect();
                if words.is_empty() {
                    return None;
                }
                regex::Regex::new(&words.join(r"\s+")).ok()
            });
            if let Some(m) = re.as_ref().and_then(|re| re.find(line)) {
                out.push(m.as_str().to_string());
            }
        }
    }
    let n = lines(old).len();
    if n > 1 {
        out.extend(
            windows(&content_lines, n)
                .filter(|(_, block)| normalize_whitespace(block) == wanted)
                .map(|(_, block)| block),
        );
    }
    out
}

/// Remove the smallest indentation of the non-blank lines from every non-blank line.
fn remove_indentation(text: &str) -> String {
    let text_lines = lines(text);
    let indent = |l: &str| l.chars().take_while(|c| c.is_whitespace()).count();
    let min = text_lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent(l))
        .min();
    let Some(min) = min else {
        return text.to_string();
    };
    text_lines
        .iter()
        .map(|l| {
            if l.trim().is_empty() {
                (*l).to_string()
            } else {
                l.chars().skip(min).collect()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// 5. Windows equal to `old` once both lose their common indentation.
pub(super) fn indentation_flexible(content: &str, old: &str) -> Vec<String> {
    let wanted = remove_indentation(old);
    let content_lines = lines(content);
    windows(&content_lines, lines(old).len())
        .filter(|(_, block)| remove_indentation(block) == wanted)
        .map(|(_, block)| block)
        .collect()
}

/// Turn the escapes a model may over-apply back into the characters they denote.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let replacement = match chars.peek() {
            Some('n') => Some('\n'),
            Some('t') => Some('\t'),
            Some('r') => Some('\r'),
            Some(&q @ ('\'' | '"' | '`' | '\\' | '\n' | '$')) => Some(q),
            _ => None,
        };
        match replacement {
            Some(r) => {
                chars.next();
                out.push(r);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// 6. `old` with its escapes resolved, and windows that unescape to the same text.
pub(super) fn escape_normalized(content: &str, old: &str) -> Vec<String> {
    let wanted = unescape(old);
    let mut out = Vec::new();
    if content.contains(&wanted) {
        out.push(wanted.clone());
    }
    let content_lines = lines(content);
    out.extend(
        windows(&content_lines, lines(&wanted).len())
            .filter(|(_, block)| unescape(block) == wanted)
            .map(|(_, block)| block),
    );
    out
}

/// 7. `old` without its surrounding whitespace, and windows that trim to it.
pub(super) fn trimmed_boundary(content: &str, old: &str) -> Vec<String> {
    let trimmed = old.trim();
    if trimmed == old {
        return Vec::new();
    }
    let mut out = Vec::new();
    if content.contains(trimmed) {
        out.push(trimmed.to_string());
    }
    let content_lines = lines(content);
    out.extend(
        windows(&content_lines, lines(old).len())
            .filter(|(_, block)| block.trim() == trimmed)
            .map(|(_, block)| block),
    );
    out
}

/// 8. Same-size blocks with matching first and last lines and at least half the middle equal.
pub(super) fn context_aware(content: &str, old: &str) -> Vec<String> {
    if lines(old).len() < 3 {
        return Vec::new();
    }
    let old_lines = lines_without_trailing_empty(old);
    let n = old_lines.len();
    let content_lines = lines(content);
    let first = old_lines[0].trim();
    let last = old_lines[n - 1].trim();
    let mut out = Vec::new();
    for (i, j) in anchor_pairs(&content_lines, first, last) {
        if j - i + 1 != n {
            continue;
        }
        let (mut compared, mut equal) = (0usize, 0usize);
        for k in 1..n - 1 {
            let (a, b) = (content_lines[i + k].trim(), old_lines[k].trim());
            if a.is_empty() && b.is_empty() {
                continue;
            }
            compared += 1;
            if a == b {
                equal += 1;
            }
        }
        if compared == 0 || equal * 2 >= compared {
            out.push(content_lines[i..=j].join("\n"));
        }
    }
    out
}

/// 9. `old` once per exact, non-overlapping occurrence.
pub(super) fn multi_occurrence(content: &str, old: &str) -> Vec<String> {
    if old.is_empty() {
        return Vec::new();
    }
    content.matches(old).map(str::to_string).collect()
}

/// Edit distance in characters (insertions, deletions, substitutions all cost 1).
pub(super) fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    if b.is_empty() {
        return a.chars().count();
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            let cost = usize::from(ca != *cb);
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + cost);
            diagonal = above;
        }
    }
    row[b.len()]
}
