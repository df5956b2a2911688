//! Suggestions for a mistyped provider id: the known ids closest to it.

/// Up to `n` of `known` closest to `wanted`: a shared prefix or containment first, then by edit
/// distance, keeping only plausible ones (at most a third of the longer id differs).
pub fn closest<'a>(wanted: &str, known: impl Iterator<Item = &'a str>, n: usize) -> Vec<&'a str> {
    let wanted_lc = wanted.to_ascii_lowercase();
    let mut scored: Vec<(usize, &str)> = known
        .filter_map(|id| {
            let lc = id.to_ascii_lowercase();
            let d = distance(&wanted_lc, &lc);
            let related = lc.contains(&wanted_lc) || wanted_lc.contains(&lc);
            let plausible = d * 3 <= wanted_lc.len().max(lc.len());
            (related || plausible).then_some((if related { 0 } else { d }, id))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(n).map(|(_, id)| id).collect()
}

/// Levenshtein distance over bytes (ids are ASCII).
fn distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            let next = (row[j] + 1).min(row[j + 1] + 1).min(prev + cost);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_and_related_ids_come_first() {
        let known = [
            "openai",
            "openrouter",
            "anthropic",
            "groq",
            "deepseek",
            "ollama-cloud",
        ];
        assert_eq!(closest("opnai", known.iter().copied(), 3), ["openai"]);
        assert_eq!(
            closest("ollama", known.iter().copied(), 3),
            ["ollama-cloud"]
        );
        assert_eq!(closest("grok", known.iter().copied(), 3), ["groq"]);
        assert!(closest("zzzzzzzz", known.iter().copied(), 3).is_empty());
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
