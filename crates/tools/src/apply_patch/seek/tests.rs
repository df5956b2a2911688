//! Tests for `seek` and `apply_chunks` (spec §4.2, §19 apply_patch).

use super::*;
use crate::apply_patch::parse::{Section, parse_patch};
use proptest::prelude::*;

fn strings(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|s| s.to_string()).collect()
}

/// Parse an Update of `f` whose body is `body`, and apply it to `content`.
fn patch(content: &str, body: &str) -> Result<String, ApplyError> {
    let text = format!("*** Begin Patch\n*** Update File: f\n{body}\n*** End Patch");
    let sections = parse_patch(&text).unwrap().sections;
    let [Section::Update { chunks, .. }] = sections.as_slice() else {
        panic!("one update")
    };
    apply_chunks(content, chunks, "/p/f")
}

#[test]
fn two_chunks_in_one_file() {
    let out = patch(
        "line1\nline2\nline3\nline4\n",
        "@@\n-line2\n+changed2\n@@\n-line4\n+changed4",
    );
    assert_eq!(out.unwrap(), "line1\nchanged2\nline3\nchanged4\n");
}

#[test]
fn insertion_between_context_lines() {
    assert_eq!(
        patch("alpha\nomega\n", " alpha\n+beta\n omega").unwrap(),
        "alpha\nbeta\nomega\n"
    );
}

#[test]
fn missing_final_newline_is_added() {
    let out = patch("first line\nold line", "-old line\n+second line").unwrap();
    assert_eq!(out, "first line\nsecond line\n");
}

#[test]
fn end_of_file_chunk_is_anchored_at_the_end() {
    let out = patch("alpha\nlast\n", "@@\n-last\n+end\n*** End of File").unwrap();
    assert_eq!(out, "alpha\nend\n");
    let twice = "marker\nmiddle\nmarker\n";
    let out = patch(twice, "@@\n-marker\n+changed\n*** End of File").unwrap();
    assert_eq!(out, "marker\nmiddle\nchanged\n");
    // Without the flag the first occurrence is taken.
    assert_eq!(
        patch(twice, "@@\n-marker\n+changed").unwrap(),
        "changed\nmiddle\nmarker\n"
    );
}

#[test]
fn context_line_moves_the_cursor() {
    let out = patch("fn a\nx=10\nfn b\nx=10\n", "@@ fn b\n-x=10\n+x=11").unwrap();
    assert_eq!(out, "fn a\nx=10\nfn b\nx=11\n");
}

#[test]
fn whitespace_and_punctuation_tolerance() {
    assert_eq!(patch("a  \nb\t\n", "-a\n-b\n+c").unwrap(), "c\n");
    assert_eq!(patch("    a\nz\n", "-a\n+b").unwrap(), "b\nz\n");
    let fancy = "say \u{201C}hi\u{201D} \u{2014} it\u{2019}s ok\u{2026}\n";
    assert_eq!(
        patch(fancy, "-say \"hi\" - it's ok...\n+done").unwrap(),
        "done\n"
    );
}

#[test]
fn bom_and_crlf_are_kept() {
    let out = patch(
        "\u{FEFF}using System;\nclass A {}\n",
        "-class A {}\n+class B {}",
    )
    .unwrap();
    assert_eq!(out, "\u{FEFF}using System;\nclass B {}\n");
    let out = patch("a\r\nb\r\n", " a\n-b\n+c\n+d").unwrap();
    assert_eq!(out, "a\r\nc\r\nd\r\n");
    let out = patch("\u{FEFF}a\r\nb", "@@\n+tail").unwrap();
    assert_eq!(out, "\u{FEFF}a\r\nb\r\ntail\r\n");
}

#[test]
fn second_block_without_its_own_header_fails() {
    let err = patch("a\nb\nc\n", "@@\n-a\n+A\n\n-c\n+C").unwrap_err();
    assert_eq!(
        err,
        ApplyError::OldLinesNotFound {
            path: "/p/f".into(),
            lines: strings(&["a", "", "c"])
        }
    );
}

#[test]
fn errors_name_the_path_and_the_text() {
    let err = patch("a\n", "@@ fn missing\n-a\n+b").unwrap_err();
    assert_eq!(
        err,
        ApplyError::ContextNotFound {
            path: "/p/f".into(),
            context: "fn missing".into()
        }
    );
    let message = err.to_string();
    assert!(
        message.contains("/p/f") && message.contains("`fn missing`"),
        "{message}"
    );

    let message = patch("a\n", "-gone\n-also gone\n+b")
        .unwrap_err()
        .to_string();
    let mut lines = message.lines();
    assert!(
        lines.next().is_some_and(|first| first.contains("/p/f")),
        "{message}"
    );
    assert_eq!(lines.collect::<Vec<_>>(), ["gone", "also gone"]);
}

#[test]
fn pure_insertion_goes_before_a_final_empty_line() {
    assert_eq!(patch("a\nb\n\n", "@@ a\n+new").unwrap(), "a\nb\nnew\n\n");
    assert_eq!(patch("", "@@\n+first").unwrap(), "first\n");
}

#[test]
fn trailing_empty_old_line_is_retried_without_it() {
    let chunk = Chunk {
        context: None,
        old_lines: strings(&["b", ""]),
        new_lines: strings(&["c", ""]),
        eof: false,
    };
    assert_eq!(apply_chunks("a\nb", &[chunk], "f").unwrap(), "a\nc\n");
}

#[test]
fn deleting_everything_leaves_an_empty_file() {
    assert_eq!(patch("a\nb\n", "-a\n-b").unwrap(), "");
}

#[test]
fn seek_passes_and_eof() {
    let lines = strings(&[" a", "a", "x", "a"]);
    assert_eq!(
        seek(&lines, &strings(&["a"]), 0, false),
        Some(1),
        "exact beats trimmed"
    );
    assert_eq!(
        seek(&lines, &strings(&["a"]), 0, true),
        Some(3),
        "eof first"
    );
    assert_eq!(
        seek(&lines, &strings(&["a", "x"]), 0, true),
        Some(1),
        "then forward"
    );
    assert_eq!(seek(&lines, &strings(&["a"]), 2, false), Some(3));
    assert_eq!(
        seek(&lines, &strings(&["a "]), 0, false),
        Some(1),
        "trailing whitespace"
    );
    assert_eq!(seek(&lines, &strings(&[]), 0, false), None);
    assert_eq!(seek(&lines, &strings(&["a"; 5]), 0, false), None);
    assert_eq!(seek(&lines, &strings(&["a"]), 9, true), None);
    let dashes = strings(&["a \u{2212} b\u{00A0}"]);
    assert_eq!(seek(&dashes, &strings(&["a - b"]), 0, false), Some(0));
}

#[test]
fn punctuation_is_normalised() {
    let text = "\u{2010}\u{2015}\u{2018}\u{201B}\u{201C}\u{201F}\u{2026}\u{00A0}\u{3000}";
    assert_eq!(normalize_punctuation(text), "--''\"\"...  ");
}

fn arb_chunk() -> impl Strategy<Value = Chunk> {
    let line = "[ab \u{201C}\r]{0,3}";
    (
        proptest::option::of(line),
        proptest::collection::vec(line, 0..3),
        proptest::collection::vec(line, 0..3),
        any::<bool>(),
    )
        .prop_map(|(context, old_lines, new_lines, eof)| Chunk {
            context,
            old_lines,
            new_lines,
            eof,
        })
}

proptest! {
    #[test]
    fn apply_never_panics(content in "\u{FEFF}?([ab \u{201C}]{0,3}\r?\n){0,6}[ab]{0,2}",
                          chunks in proptest::collection::vec(arb_chunk(), 0..4)) {
        if let Ok(out) = apply_chunks(&content, &chunks, "f") {
            let body = out.trim_start_matches(BOM);
            prop_assert!(body.is_empty() || body.ends_with('\n'));
            if content.contains("\r\n") {
                prop_assert_eq!(body.matches('\n').count(), body.matches("\r\n").count());
            }
        }
    }

    #[test]
    fn unchanged_context_reproduces_the_file(lines in proptest::collection::vec("[ab]{0,3}", 1..8),
                                             from in 0usize..8, len in 1usize..4) {
        let from = from % lines.len();
        let window = lines[from..(from + len).min(lines.len())].to_vec();
        let chunk = Chunk { context: None, old_lines: window.clone(), new_lines: window, eof: false };
        let content: String = lines.iter().map(|l| format!("{l}\n")).collect();
        prop_assert_eq!(apply_chunks(&content, &[chunk], "f"), Ok(content.clone()));
    }
}
