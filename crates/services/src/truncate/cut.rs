//! Pure logic of truncation: which whole lines to keep, and the model-facing text around them.

use std::path::Path;

/// Which end of the text to keep.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Direction {
    #[default]
    Head,
    Tail,
}

/// What measure stopped the preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Lines,
    Bytes,
}

impl Unit {
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Lines => "lines",
            Unit::Bytes => "bytes",
        }
    }
}

/// The result of [`cut`]: the kept preview and how much was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    pub preview: String,
    pub removed: usize,
    pub unit: Unit,
}

/// Whether `text` fits both limits as it is (lines are `\n`-separated pieces).
pub fn fits(text: &str, max_lines: usize, max_bytes: usize) -> bool {
    text.len() <= max_bytes && text.split('\n').count() <= max_lines
}

/// Keeps whole lines from the head (or tail) while fewer than `max_lines` are kept and the kept
/// bytes (each line's bytes plus one per joining newline) stay within `max_bytes`.
///
/// `removed` counts the remaining bytes when the byte limit stopped it, else remaining lines.
pub fn cut(text: &str, max_lines: usize, max_bytes: usize, direction: Direction) -> Cut {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut kept: Vec<&str> = Vec::new();
    let mut bytes = 0usize;
    let mut hit_bytes = false;
    let ordered: Box<dyn Iterator<Item = &&str>> = match direction {
        Direction::Head => Box::new(lines.iter()),
        Direction::Tail => Box::new(lines.iter().rev()),
    };
    for line in ordered.take(max_lines) {
        let size = line.len() + usize::from(!kept.is_empty());
        if bytes + size > max_bytes {
            hit_bytes = true;
            break;
        }
        kept.push(line);
        bytes += size;
    }
    if direction == Direction::Tail {
        kept.reverse();
    }
    let (removed, unit) = if hit_bytes {
        (text.len() - bytes, Unit::Bytes)
    } else {
        (lines.len() - kept.len(), Unit::Lines)
    };
    Cut {
        preview: kept.join("\n"),
        removed,
        unit,
    }
}

/// The end of `text` within the limits, for output whose end matters most (bash, spec §7.3):
/// the whole lines [`cut`] keeps from the tail, or, when even the last line alone is over
/// `max_bytes`, that line's final `max_bytes` bytes moved forward to a character boundary.
/// `true` when it cut.
pub fn tail(text: &str, max_lines: usize, max_bytes: usize) -> (String, bool) {
    if fits(text, max_lines, max_bytes) {
        return (text.to_string(), false);
    }
    let kept = cut(text, max_lines, max_bytes, Direction::Tail);
    if !kept.preview.is_empty() {
        return (kept.preview, true);
    }
    // Nothing whole fits (or only an empty last line, which this gives back as well).
    let last = text.rsplit('\n').next().unwrap_or_default();
    let mut start = last.len().saturating_sub(max_bytes);
    while !last.is_char_boundary(start) {
        start += 1;
    }
    (last[start..].to_string(), true)
}

/// The marker line, e.g. `...90 lines truncated...`.
pub fn marker(removed: usize, unit: Unit) -> String {
    format!("...{removed} {} truncated...", unit.as_str())
}

/// Tells the model the output was cut, where the whole of it is, and how to look into it.
pub fn hint(path: &Path, agent_may_task: bool) -> String {
    let saved = format!(
        "The tool call succeeded, but its output was too long to show here, so it was cut. \
         The complete output is saved in {}.",
        path.display()
    );
    let next = if agent_may_task {
        "To inspect it, hand the file to an explore subagent with the `task` tool: ask it to \
         search the file with grep and read only the parts that matter using offset/limit, \
         instead of reading the whole file."
    } else {
        "To inspect it, search the file with grep, or read it a slice at a time using the read \
         tool's offset/limit, instead of reading the whole file."
    };
    format!("{saved}\n{next}")
}

/// The model-facing text for a cut output saved at `path`.
pub fn layout(cut: &Cut, direction: Direction, path: &Path, agent_may_task: bool) -> String {
    let marker = marker(cut.removed, cut.unit);
    let hint = hint(path, agent_may_task);
    match direction {
        Direction::Head => format!("{}\n\n{marker}\n\n{hint}", cut.preview),
        Direction::Tail => format!("{marker}\n\n{hint}\n\n{}", cut.preview),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize) -> String {
        (0..n)
            .map(|i| format!("line{i}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn head_and_tail_keep_their_end() {
        let text = numbered(10);
        let head = cut(&text, 3, 10_000, Direction::Head);
        assert_eq!(head.preview, "line0\nline1\nline2");
        assert_eq!((head.removed, head.unit), (7, Unit::Lines));
        let tail = cut(&text, 3, 10_000, Direction::Tail);
        assert_eq!(tail.preview, "line7\nline8\nline9");
        assert_eq!((tail.removed, tail.unit), (7, Unit::Lines));
    }

    #[test]
    fn byte_limit_counts_joining_newlines() {
        // "aaaa\nbbbb" is 9 bytes: a 9-byte cap keeps both lines, 8 keeps one.
        let text = "aaaa\nbbbb\ncccc";
        let c = cut(text, 100, 9, Direction::Head);
        assert_eq!(c.preview, "aaaa\nbbbb");
        assert_eq!((c.removed, c.unit), (text.len() - 9, Unit::Bytes));
        let c = cut(text, 100, 8, Direction::Head);
        assert_eq!(c.preview, "aaaa");
        assert_eq!(c.removed, text.len() - 4);
        let c = cut(text, 100, 9, Direction::Tail);
        assert_eq!(c.preview, "bbbb\ncccc");
    }

    #[test]
    fn one_huge_line_is_removed_by_bytes() {
        let text = "z".repeat(1000);
        let c = cut(&text, 10, 100, Direction::Head);
        assert_eq!(c.preview, "");
        assert_eq!((c.removed, c.unit), (1000, Unit::Bytes));
        assert_eq!(marker(c.removed, c.unit), "...1000 bytes truncated...");
    }

    #[test]
    fn tail_by_lines_and_bytes() {
        let text: String = (1..=10)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(tail(&text, 3, 1000), ("8\n9\n10".to_string(), true));
        assert_eq!(tail(&text, 100, 4), ("9\n10".to_string(), true));
        assert_eq!(tail(&text, 100, 3), ("10".to_string(), true));
        assert_eq!(tail("small", 10, 100), ("small".to_string(), false));
    }

    #[test]
    fn tail_of_one_huge_line_lands_on_a_char_boundary() {
        let text = "é".repeat(100);
        let (t, cut) = tail(&text, 10, 51);
        assert!(cut);
        assert!(t.len() <= 51);
        assert!(t.chars().all(|c| c == 'é'));
    }

    #[test]
    fn fits_checks_both_limits() {
        assert!(fits("a\nb", 2, 3));
        assert!(!fits("a\nb", 1, 3));
        assert!(!fits("a\nb", 2, 2));
        // A trailing newline makes one more (empty) line.
        assert!(!fits("a\n", 1, 10));
    }

    #[test]
    fn layouts_put_the_marker_and_hint_at_the_cut_end() {
        let c = Cut {
            preview: "kept".into(),
            removed: 5,
            unit: Unit::Lines,
        };
        let path = Path::new("/d/tool_x");
        let head = layout(&c, Direction::Head, path, false);
        assert!(
            head.starts_with("kept\n\n...5 lines truncated...\n\n"),
            "{head}"
        );
        assert!(head.ends_with(&hint(path, false)));
        let tail = layout(&c, Direction::Tail, path, false);
        assert!(tail.starts_with("...5 lines truncated...\n\n"), "{tail}");
        assert!(tail.ends_with(&format!("{}\n\nkept", hint(path, false))));
    }

    #[test]
    fn hint_names_the_path_and_the_right_next_step() {
        let path = Path::new("/d/tool_x");
        let plain = hint(path, false);
        assert!(plain.contains("/d/tool_x") && plain.contains("grep") && plain.contains("offset"));
        assert!(!plain.contains("task"), "{plain}");
        let delegate = hint(path, true);
        assert!(
            delegate.contains("`task`") && delegate.contains("explore"),
            "{delegate}"
        );
        assert!(delegate.contains("grep") && delegate.contains("offset/limit"));
    }
}
