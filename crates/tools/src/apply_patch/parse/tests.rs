//! Tests for the patch grammar (spec §4.1, §19 apply_patch).

use super::*;
use proptest::prelude::*;

fn chunk(context: Option<&str>, old: &[&str], new: &[&str], eof: bool) -> Chunk {
    Chunk {
        context: context.map(str::to_string),
        old_lines: old.iter().map(|s| s.to_string()).collect(),
        new_lines: new.iter().map(|s| s.to_string()).collect(),
        eof,
    }
}

fn update(path: &str, chunks: Vec<Chunk>) -> Section {
    Section::Update {
        path: path.into(),
        move_to: None,
        chunks,
    }
}

#[test]
fn add_delete_update_in_one_patch() {
    let text = "*** Begin Patch\n*** Add File: nested/new.txt\n+created\n*** Delete File: \
                delete.txt\n*** Update File: modify.txt\n@@\n line1\n-line2\n+changed\n*** End Patch";
    let patch = parse_patch(text).unwrap();
    assert_eq!(
        patch.sections,
        vec![
            Section::Add {
                path: "nested/new.txt".into(),
                content: "created\n".into()
            },
            Section::Delete {
                path: "delete.txt".into()
            },
            update(
                "modify.txt",
                vec![chunk(
                    None,
                    &["line1", "line2"],
                    &["line1", "changed"],
                    false
                )]
            ),
        ]
    );
}

#[test]
fn only_markers_is_an_empty_patch() {
    assert_eq!(
        parse_patch("*** Begin Patch\n*** End Patch")
            .unwrap()
            .sections,
        vec![]
    );
    assert_eq!(
        parse_patch("  *** Begin Patch  \n\n  *** End Patch \n")
            .unwrap()
            .sections,
        vec![]
    );
}

#[test]
fn markers_are_required_in_order() {
    assert_eq!(parse_patch("invalid patch"), Err(ParseError::MissingBegin));
    assert_eq!(parse_patch(""), Err(ParseError::MissingBegin));
    assert_eq!(
        parse_patch("\n*** Begin Patch\n"),
        Err(ParseError::MissingEnd { begin: 2 })
    );
    assert_eq!(
        parse_patch("*** End Patch\n*** Begin Patch"),
        Err(ParseError::EndBeforeBegin { end: 1, begin: 2 })
    );
}

#[test]
fn lines_outside_the_markers_are_ignored() {
    let text = "here is my patch:\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nthanks";
    assert_eq!(
        parse_patch(text).unwrap().sections,
        vec![Section::Delete { path: "a".into() }]
    );
}

#[test]
fn heredoc_wrappers_are_removed() {
    for open in ["<<EOF", "<<'EOF'", "<<\"EOF\"", "cat <<'EOF'", "cat <<EOF"] {
        let text = format!("{open}\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n");
        let patch = parse_patch(&text).unwrap_or_else(|e| panic!("{open}: {e}"));
        assert_eq!(patch.sections.len(), 1, "{open}");
    }
    assert_eq!(heredoc_tag("cat <<'PATCH_1'"), Some("PATCH_1"));
    assert_eq!(heredoc_tag("<<'EOF"), None);
    assert_eq!(heredoc_tag("<<"), None);
    assert_eq!(heredoc_tag("echo <<EOF"), None);
}

#[test]
fn line_numbers_count_the_text_as_sent() {
    // Two leading blank lines and a heredoc line come before the begin marker.
    let text = "\n\n<<EOF\n*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch\nEOF";
    let err = parse_patch(text).unwrap_err();
    assert!(
        matches!(&err, ParseError::UnexpectedLine { line: 5, text, .. }
        if text == "*** Frobnicate File: foo")
    );
    let message = err.to_string();
    assert!(
        message.contains("Line 5") && message.contains("*** Update File:"),
        "{message}"
    );
}

#[test]
fn crlf_and_lone_cr_become_lf() {
    let text = "*** Begin Patch\r\n*** Add File: a\r+x\r\n+y\n*** End Patch";
    let sections = parse_patch(text).unwrap().sections;
    assert_eq!(
        sections,
        vec![Section::Add {
            path: "a".into(),
            content: "x\ny\n".into()
        }]
    );
}

#[test]
fn empty_paths_are_refused() {
    let err = parse_patch("*** Begin Patch\n*** Add File:   \n+x\n*** End Patch").unwrap_err();
    assert_eq!(
        err,
        ParseError::EmptyPath {
            line: 2,
            header: "*** Add File:"
        }
    );
    let err = parse_patch("*** Begin Patch\n*** Update File: a\n*** Move to:\n-x\n*** End Patch");
    assert_eq!(
        err,
        Err(ParseError::EmptyPath {
            line: 3,
            header: "*** Move to:"
        })
    );
}

#[test]
fn add_keeps_inner_blank_lines_and_drops_trailing_ones() {
    let text = "*** Begin Patch\n  *** Add File:  a.txt \n+one\n\n+three\n\n\n*** End Patch";
    let sections = parse_patch(text).unwrap().sections;
    assert_eq!(
        sections,
        vec![Section::Add {
            path: "a.txt".into(),
            content: "one\n\nthree\n".into()
        }]
    );
    let empty = parse_patch("*** Begin Patch\n*** Add File: e\n*** End Patch").unwrap();
    assert_eq!(
        empty.sections,
        vec![Section::Add {
            path: "e".into(),
            content: String::new()
        }]
    );
    let err = parse_patch("*** Begin Patch\n*** Add File: a\n+x\ny\n*** End Patch").unwrap_err();
    assert!(matches!(
        err,
        ParseError::UnexpectedLine {
            line: 4,
            expected: IN_ADD,
            ..
        }
    ));
}

#[test]
fn update_with_move_and_several_chunks() {
    let text = "*** Begin Patch\n*** Update File: src/a.py\n*** Move to: src/b.py\n-x\n+y\n\
                @@ def f():\n     pass\n-    return 1\n+    return 2\n\\ No newline at end of file\n\
                @@\n+tail\n*** End of File\n*** End Patch";
    let sections = parse_patch(text).unwrap().sections;
    assert_eq!(
        sections,
        vec![Section::Update {
            path: "src/a.py".into(),
            move_to: Some("src/b.py".into()),
            chunks: vec![
                chunk(None, &["x"], &["y"], false),
                chunk(
                    Some("def f():"),
                    &["    pass", "    return 1"],
                    &["    pass", "    return 2"],
                    false
                ),
                chunk(None, &[], &["tail"], true),
            ],
        }]
    );
}

#[test]
fn empty_lines_inside_a_chunk_are_context_and_trailing_ones_are_dropped() {
    let text = "*** Begin Patch\n*** Update File: a\n@@\n-a\n+A\n\n-c\n+C\n\n\n*** Delete File: b\n\
                *** End Patch";
    let sections = parse_patch(text).unwrap().sections;
    let expected = chunk(None, &["a", "", "c"], &["A", "", "C"], false);
    assert_eq!(sections[0], update("a", vec![expected]));
}

#[test]
fn end_of_file_marks_the_chunk() {
    let text =
        "*** Begin Patch\n*** Update File: f\n@@\n-last\n+end\n*** End of File\n\n*** End Patch";
    let sections = parse_patch(text).unwrap().sections;
    assert_eq!(
        sections,
        vec![update("f", vec![chunk(None, &["last"], &["end"], true)])]
    );
}

#[test]
fn malformed_updates_are_refused() {
    let parse = |body: &str| parse_patch(&format!("*** Begin Patch\n{body}\n*** End Patch"));
    assert_eq!(
        parse("*** Update File: a"),
        Err(ParseError::EmptyUpdate {
            line: 2,
            path: "a".into()
        })
    );
    assert_eq!(
        parse("*** Update File: a\n@@ ctx\n\n@@\n-x"),
        Err(ParseError::EmptyChunk {
            line: 3,
            path: "a".into()
        })
    );
    let err = parse("*** Update File: a\n@@\n-x\n*x").unwrap_err();
    assert!(matches!(
        err,
        ParseError::UnexpectedLine {
            line: 5,
            expected: IN_UPDATE,
            ..
        }
    ));
    let err = parse("*** Update File: a\n-x\n*** End of File\n+y").unwrap_err();
    assert!(matches!(
        err,
        ParseError::UnexpectedLine {
            line: 5,
            expected: NEEDS_AT,
            ..
        }
    ));
    let err = parse("*** Update File: a\n*** End of File").unwrap_err();
    assert!(matches!(
        err,
        ParseError::UnexpectedLine {
            line: 3,
            expected: STRAY_EOF,
            ..
        }
    ));
    let err = parse("*** Delete File: a\n-x").unwrap_err();
    assert!(matches!(
        err,
        ParseError::UnexpectedLine {
            line: 3,
            expected: BETWEEN_SECTIONS,
            ..
        }
    ));
    let err = parse("*** Move to: b").unwrap_err();
    assert!(matches!(err, ParseError::UnexpectedLine { line: 2, .. }));
}

#[test]
fn long_unexpected_lines_are_shortened() {
    let long = "x".repeat(500);
    let err = parse_patch(&format!("*** Begin Patch\n{long}\n*** End Patch")).unwrap_err();
    let ParseError::UnexpectedLine { text, .. } = err else {
        panic!("wrong error")
    };
    assert_eq!(text.chars().count(), 121);
}

const PIECES: &[&str] = &[
    "*** Begin Patch",
    "*** End Patch",
    "*** Add File: a",
    "*** Update File: b",
    "*** Move to: c",
    "*** Delete File: d",
    "*** Add File:",
    "@@",
    "@@ ctx",
    "+x",
    "-y",
    " z",
    "",
    "  ",
    "*** End of File",
    "\\ No newline",
    "junk",
    "<<EOF",
    "cat <<'EOF'",
    "EOF",
    "é🙂\r",
];

/// A line-level description of a section, rendered to patch text for the round trip.
fn render(sections: &[Section]) -> String {
    let mut out = String::from("*** Begin Patch\n");
    for section in sections {
        match section {
            Section::Add { path, content } => {
                out += &format!("*** Add File: {path}\n");
                for line in content.lines() {
                    out += &format!("+{line}\n");
                }
            }
            Section::Delete { path } => out += &format!("*** Delete File: {path}\n"),
            Section::Update {
                path,
                move_to,
                chunks,
            } => {
                out += &format!("*** Update File: {path}\n");
                if let Some(to) = move_to {
                    out += &format!("*** Move to: {to}\n");
                }
                for c in chunks {
                    out += &format!("@@ {}\n", c.context.as_deref().unwrap_or(""));
                    c.old_lines.iter().for_each(|l| out += &format!("-{l}\n"));
                    c.new_lines.iter().for_each(|l| out += &format!("+{l}\n"));
                    if c.eof {
                        out += "*** End of File\n";
                    }
                }
            }
        }
    }
    out + "*** End Patch\n"
}

fn arb_section() -> impl Strategy<Value = Section> {
    let path = "[a-z][a-z/._-]{0,8}";
    let text = "[^\n\r]{0,6}";
    let arb_chunk = (
        proptest::option::of("[a-z]([a-z =()]{0,5}[a-z])?"),
        proptest::collection::vec(text, 0..3),
        proptest::collection::vec(text, 0..3),
        any::<bool>(),
    )
        .prop_filter("a chunk needs a line", |(_, o, n, _)| {
            !o.is_empty() || !n.is_empty()
        })
        .prop_map(|(context, old_lines, new_lines, eof)| Chunk {
            context,
            old_lines,
            new_lines,
            eof,
        });
    prop_oneof![
        (path, proptest::collection::vec(text, 0..4)).prop_map(|(path, lines)| Section::Add {
            path,
            content: lines.iter().map(|l| format!("{l}\n")).collect(),
        }),
        path.prop_map(|path| Section::Delete { path }),
        (
            path,
            proptest::option::of(path),
            proptest::collection::vec(arb_chunk, 1..4)
        )
            .prop_map(|(path, move_to, chunks)| Section::Update {
                path,
                move_to,
                chunks
            }),
    ]
}

proptest! {
    #[test]
    fn never_panics_on_arbitrary_text(text in any::<String>()) {
        let _ = parse_patch(&text);
    }

    #[test]
    fn never_panics_on_patch_like_text(
        lines in proptest::collection::vec(proptest::sample::select(PIECES), 0..24),
        crlf in any::<bool>(),
    ) {
        let _ = parse_patch(&lines.join(if crlf { "\r\n" } else { "\n" }));
    }

    #[test]
    fn rendered_patches_parse_back(sections in proptest::collection::vec(arb_section(), 0..4)) {
        prop_assert_eq!(parse_patch(&render(&sections)), Ok(Patch { sections }));
    }
}
