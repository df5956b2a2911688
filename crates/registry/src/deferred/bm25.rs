//! A small Okapi BM25 ranking over short documents (tool names, descriptions and parameter
//! names). Our own instead of the `bm25` crate: that crate's default tokenizer brings language
//! detection, stemming and stop-word lists the workspace does not have, and tool names need
//! their own splitting anyway (`get_weather`, `listInvoices`).

use std::collections::HashMap;

/// Term-frequency saturation.
const K1: f64 = 1.2;
/// Length normalisation.
const B: f64 = 0.75;

/// The words of `text`: runs of letters and digits, split at `_`, `-`, `.` and at a lower-case
/// letter followed by an upper-case one (`listInvoices` → `list`, `invoices`), lower-cased. A
/// trailing plural `s` is dropped from words longer than three letters, so `invoice` finds
/// `invoices`.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower {
                push(&mut out, &mut word);
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            word.extend(c.to_lowercase());
        } else {
            prev_lower = false;
            push(&mut out, &mut word);
        }
    }
    push(&mut out, &mut word);
    out
}

fn push(out: &mut Vec<String>, word: &mut String) {
    if word.is_empty() {
        return;
    }
    let mut w = std::mem::take(word);
    if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") {
        w.pop();
    }
    out.push(w);
}

/// An index over documents given as texts; documents keep their position as id.
#[derive(Debug, Clone, Default)]
pub struct Index {
    /// Per document: term → count.
    terms: Vec<HashMap<String, u32>>,
    lengths: Vec<usize>,
    /// Term → number of documents holding it.
    df: HashMap<String, usize>,
    avg_len: f64,
}

impl Index {
    pub fn new<S: AsRef<str>>(docs: &[S]) -> Index {
        let mut index = Index::default();
        for doc in docs {
            let words = tokens(doc.as_ref());
            let mut counts: HashMap<String, u32> = HashMap::new();
            for w in &words {
                *counts.entry(w.clone()).or_default() += 1;
            }
            for term in counts.keys() {
                *index.df.entry(term.clone()).or_default() += 1;
            }
            index.lengths.push(words.len());
            index.terms.push(counts);
        }
        let total: usize = index.lengths.iter().sum();
        index.avg_len = if index.lengths.is_empty() {
            0.0
        } else {
            total as f64 / index.lengths.len() as f64
        };
        index
    }

    pub fn len(&self) -> usize {
        self.terms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The documents that share a word with `query`, best first (ties: lower id first), at most
    /// `limit` of them.
    pub fn search(&self, query: &str, limit: usize) -> Vec<(usize, f64)> {
        let mut words = tokens(query);
        words.sort();
        words.dedup();
        let n = self.terms.len() as f64;
        let mut scored: Vec<(usize, f64)> = self
            .terms
            .iter()
            .enumerate()
            .filter_map(|(id, counts)| {
                let len = self.lengths[id] as f64;
                let score: f64 = words
                    .iter()
                    .filter_map(|w| {
                        let tf = f64::from(*counts.get(w)?);
                        let df = self.df.get(w).copied().unwrap_or_default() as f64;
                        let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                        let norm = K1 * (1.0 - B + B * len / self.avg_len.max(1.0));
                        Some(idf * tf * (K1 + 1.0) / (tf + norm))
                    })
                    .sum();
                (score > 0.0).then_some((id, score))
            })
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(limit);
        scored
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_at_case_and_punctuation_and_lose_plurals() {
        assert_eq!(
            tokens("listInvoices get_weather-v2 HTTPServer a.b"),
            [
                "list",
                "invoice",
                "get",
                "weather",
                "v2",
                "httpserver",
                "a",
                "b"
            ]
        );
        assert_eq!(tokens("class address bus"), ["class", "address", "bus"]);
        assert!(tokens("  --  ").is_empty());
    }

    #[test]
    fn rarer_words_and_shorter_documents_rank_higher() {
        let docs = [
            "weather_forecast Gets the weather forecast for a city. city days",
            "calendar_create Creates an event in the calendar. title start",
            "weather_alerts Lists the weather alerts of a region, with many more words in it \
             to make it long. region",
            "files_read Reads a file.",
        ];
        let index = Index::new(&docs);
        let hits = index.search("forecast weather", 8);
        assert_eq!(hits[0].0, 0, "{hits:?}");
        assert_eq!(hits[1].0, 2, "{hits:?}");
        assert_eq!(hits.len(), 2, "only documents sharing a word: {hits:?}");
        assert_eq!(index.search("calendars event", 8)[0].0, 1);
        assert!(index.search("nothing matches", 8).is_empty());
        assert_eq!(index.search("the", 1).len(), 1, "the limit holds");
    }

    #[test]
    fn an_empty_index_finds_nothing() {
        let index = Index::new::<&str>(&[]);
        assert!(index.is_empty());
        assert!(index.search("x", 8).is_empty());
    }
}
