//! Tests for `replace`, the replacers and the line-ending helpers (spec §3.1–§3.5, §19 edit).

use super::replacers::{
    block_anchor, context_aware, escape_normalized, indentation_flexible, levenshtein,
    line_trimmed, multi_occurrence, trimmed_boundary, whitespace_normalized,
};
use super::*;
use proptest::prelude::*;

#[test]
fn exact_replacement() {
    let out = replace("old content here", "old content", "new content", false).unwrap();
    assert_eq!(out, "new content here");
}

#[test]
fn multi_line_replacement() {
    let out = replace(
        "line1\nline2\nline3",
        "line2",
        "new line 2\nextra line",
        false,
    )
    .unwrap();
    assert_eq!(out, "line1\nnew line 2\nextra line\nline3");
}

#[test]
fn replace_all_three_occurrences() {
    let out = replace("foo bar foo baz foo", "foo", "qux", true).unwrap();
    assert_eq!(out, "qux bar qux baz qux");
}

#[test]
fn guards_come_first() {
    assert_eq!(
        replace("abc", "abc", "abc", false),
        Err(ReplaceError::Identical)
    );
    assert_eq!(replace("abc", "", "", false), Err(ReplaceError::Identical));
    assert_eq!(replace("abc", "", "x", false), Err(ReplaceError::EmptyOld));
}

#[test]
fn absent_text_is_not_found() {
    assert_eq!(
        replace("hello world", "goodbye", "x", false),
        Err(ReplaceError::NotFound)
    );
}

#[test]
fn several_matches_need_more_context() {
    assert_eq!(
        replace("a\nx\na\n", "a", "b", false),
        Err(ReplaceError::Multiple)
    );
    assert_eq!(replace("a\nx\na\n", "a", "b", true).unwrap(), "b\nx\nb\n");
}

#[test]
fn crlf_file_keeps_crlf() {
    let out = edit_text("line1\r\nline2\r\nline3", "line2", "new", false).unwrap();
    assert_eq!(out, "line1\r\nnew\r\nline3");
}

#[test]
fn bom_is_kept_and_not_matched() {
    let out = edit_text(
        "\u{FEFF}using System;\nx\n",
        "using System;",
        "using Up;",
        false,
    )
    .unwrap();
    assert_eq!(out, "\u{FEFF}using Up;\nx\n");
}

#[test]
fn line_ending_matrix() {
    const LF: &str = "alpha\nbeta\ngamma\n";
    const CRLF: &str = "alpha\r\nbeta\r\ngamma\r\n";
    const LF2: &str = "alpha\nbeta\ngamma\nalpha\nbeta\ngamma\n";
    const CRLF2: &str = "alpha\r\nbeta\r\ngamma\r\nalpha\r\nbeta\r\ngamma\r\n";
    let cases: [(&str, &str, &str, bool, &str); 10] = [
        (
            LF,
            "alpha\nbeta",
            "alpha\nBETA",
            false,
            "alpha\nBETA\ngamma\n",
        ),
        (
            CRLF,
            "alpha\r\nbeta",
            "alpha\r\nBETA",
            false,
            "alpha\r\nBETA\r\ngamma\r\n",
        ),
        (
            LF,
            "alpha\r\nbeta",
            "alpha\r\nBETA",
            false,
            "alpha\nBETA\ngamma\n",
        ),
        (
            CRLF,
            "alpha\nbeta",
            "alpha\nBETA",
            false,
            "alpha\r\nBETA\r\ngamma\r\n",
        ),
        (
            LF,
            "beta",
            "one\r\ntwo\nthree",
            false,
            "alpha\none\ntwo\nthree\ngamma\n",
        ),
        (
            CRLF,
            "beta",
            "one\r\ntwo\nthree",
            false,
            "alpha\r\none\r\ntwo\r\nthree\r\ngamma\r\n",
        ),
        (LF, "alpha\r\nbeta", "A\nB", false, "A\nB\ngamma\n"),
        (CRLF, "beta\r\ngamma", "B\nG", false, "alpha\r\nB\r\nG\r\n"),
        (
            LF2,
            "alpha\nbeta",
            "A\nB",
            true,
            "A\nB\ngamma\nA\nB\ngamma\n",
        ),
        (
            CRLF2,
            "alpha\nbeta",
            "A\r\nB",
            true,
            "A\r\nB\r\ngamma\r\nA\r\nB\r\ngamma\r\n",
        ),
    ];
    for (i, (file, old, new, all, want)) in cases.into_iter().enumerate() {
        let got = edit_text(file, old, new, all).unwrap_or_else(|e| panic!("case {i}: {e}"));
        assert_eq!(got, want, "case {i}");
        if detect_crlf(file) {
            assert_eq!(
                got.matches('\n').count(),
                got.matches("\r\n").count(),
                "case {i}"
            );
        } else {
            assert!(!got.contains('\r'), "case {i}");
        }
    }
}

#[test]
fn block_anchor_size_filter_refuses_a_longer_function() {
    let content = "function test() {\n  const a = 1;\n  const b = 2;\n  const c = 3;\n  \
                   return a + b + c;\n}\n";
    let old = "function test() {\n  const a = 1;\n}";
    assert!(block_anchor(content, old).is_empty());
    assert_eq!(
        replace(content, old, "gone", false),
        Err(ReplaceError::NotFound)
    );
}

#[test]
fn unrelated_middle_line_is_not_found() {
    let content = "function test() {\n  return 1;\n}\n";
    let old = "function test() {\n  completely unrelated statement goes here;\n}";
    assert_eq!(
        replace(content, old, "x", false),
        Err(ReplaceError::NotFound)
    );
}

#[test]
fn block_anchor_tolerates_small_edits_in_the_middle() {
    let content = "fn a() {\n    let x = 1;\n    let y = 2;\n}\n";
    let old = "fn a() {\n    let x = 1;\n    let y = 3;\n}";
    let out = replace(content, old, "fn a() {}", false).unwrap();
    assert_eq!(out, "fn a() {}\n");
}

#[test]
fn block_anchor_allows_one_extra_line_for_small_blocks() {
    let found = block_anchor("{\n  a\n  b\n}", "{\n  a\n}");
    assert_eq!(found, vec!["{\n  a\n  b\n}".to_string()]);
}

#[test]
fn block_anchor_picks_the_most_similar_of_several() {
    let content = "begin\n  apple\nend\nbegin\n  zzzzz\nend\n";
    let found = block_anchor(content, "begin\n  apples\nend");
    assert_eq!(found, vec!["begin\n  apple\nend".to_string()]);
}

#[test]
fn line_trimmed_inserts_new_text_unindented() {
    let content = "class A:\n    def f(self):\n        return 1\n";
    let old = "def f(self):\n    return 1";
    assert_eq!(
        line_trimmed(content, old),
        vec!["    def f(self):\n        return 1".to_string()]
    );
    let out = replace(content, old, "def g(self):\n    return 2", false).unwrap();
    assert_eq!(out, "class A:\ndef g(self):\n    return 2\n");
}

#[test]
fn whitespace_normalized_finds_lines_and_fragments() {
    assert_eq!(
        whitespace_normalized("let  x =   5;", "let x = 5;"),
        vec!["let  x =   5;"]
    );
    assert_eq!(
        whitespace_normalized("if (let  x =\t5) {", "let x = 5"),
        vec!["let  x =\t5"]
    );
    let out = replace("a\n  if (let  x =\t5) {\n", "let x = 5", "y", false).unwrap();
    assert_eq!(out, "a\n  if (y) {\n");
}

#[test]
fn indentation_flexible_ignores_common_indent() {
    let found = indentation_flexible("        foo\n            bar\nz", "foo\n    bar");
    assert_eq!(found, vec!["        foo\n            bar".to_string()]);
    assert!(indentation_flexible("    foo\n    bar", "foo\n    bar").is_empty());
}

#[test]
fn escape_normalized_undoes_over_escaping() {
    let content = "say(\"hi\")\nnext\n";
    let old = r#"say(\"hi\")"#;
    // Yielded once as the unescaped text and once as the matching one-line window.
    assert_eq!(
        escape_normalized(content, old),
        vec!["say(\"hi\")".to_string(); 2]
    );
    assert_eq!(
        replace(content, old, "say(\"bye\")", false).unwrap(),
        "say(\"bye\")\nnext\n"
    );
    let tabs = replace("a\tb\n", r"a\tb", "c", false).unwrap();
    assert_eq!(tabs, "c\n");
}

#[test]
fn trimmed_boundary_drops_surrounding_blank_lines() {
    let content = "foo\nbar\nbaz";
    let old = "\n\nfoo\nbar\n\n";
    assert_eq!(trimmed_boundary(content, old), vec!["foo\nbar".to_string()]);
    assert_eq!(replace(content, old, "X", false).unwrap(), "X\nbaz");
    assert!(trimmed_boundary(content, "foo").is_empty());
}

#[test]
fn context_aware_needs_half_the_middle() {
    let content = "start\n  a\n  zzz\nend";
    assert_eq!(
        context_aware(content, "start\na\nqqqqqqqq\nend"),
        vec![content.to_string()]
    );
    assert!(context_aware(content, "start\nb\nqqqqqqqq\nend").is_empty());
    assert!(context_aware(content, "start\na\nend").is_empty());
}

#[test]
fn multi_occurrence_yields_every_exact_match() {
    assert_eq!(multi_occurrence("foo bar foo baz foo", "foo").len(), 3);
    assert_eq!(multi_occurrence("aaaa", "aa").len(), 2);
}

#[test]
fn disproportionate_matches_are_refused() {
    // One line of literal `\n` escapes unescapes to four lines.
    let escaped = replace("a\nb\nc\nd\n", r"a\nb\nc\nd", "x", false);
    assert_eq!(escaped, Err(ReplaceError::Disproportionate));
    // A two-line match whose text is far longer than `oldString`.
    let wide = format!("a{}\nb\n", " ".repeat(600));
    assert_eq!(
        replace(&wide, "a\nb", "c", false),
        Err(ReplaceError::Disproportionate)
    );
    assert!(!disproportionate("one line", &"x".repeat(5000)));
    assert!(disproportionate("a\nb", "a\nb\nc\nd\ne"));
}

#[test]
fn levenshtein_counts_edits() {
    assert_eq!(levenshtein("", ""), 0);
    assert_eq!(levenshtein("abc", ""), 3);
    assert_eq!(levenshtein("", "abc"), 3);
    assert_eq!(levenshtein("kitten", "sitting"), 3);
    assert_eq!(levenshtein("héllo", "hello"), 1);
}

#[test]
fn line_ending_helpers() {
    assert!(detect_crlf("a\r\nb"));
    assert!(!detect_crlf("a\nb\r"));
    assert_eq!(normalize_to("a\r\nb\nc", true), "a\r\nb\r\nc");
    assert_eq!(normalize_to("a\r\nb\nc", false), "a\nb\nc");
}

#[test]
fn messages_name_the_parameters() {
    assert!(ReplaceError::Identical.to_string().contains("`newString`"));
    assert!(ReplaceError::NotFound.to_string().contains("indentation"));
    assert!(ReplaceError::Multiple.to_string().contains("`replaceAll`"));
    assert!(
        ReplaceError::Disproportionate
            .to_string()
            .contains("Read the file again")
    );
    assert!(ReplaceError::EmptyOld.to_string().contains("`write`"));
}

/// Short multi-line text over a small alphabet, so the tolerant replacers get exercised.
fn lined() -> impl Strategy<Value = String> {
    proptest::string::string_regex("([ \t]{0,2}[ab{}\\\\né🙂]{0,3}[ \t]{0,2}(\r?\n)){0,7}[ab]{0,2}")
        .expect("valid regex")
}

proptest! {
    #[test]
    fn never_panics_on_arbitrary_text(content in any::<String>(), old in any::<String>(),
                                      new in any::<String>(), all in any::<bool>()) {
        let _ = replace(&content, &old, &new, all);
    }

    #[test]
    fn never_panics_on_lined_text(content in lined(), old in lined(), new in lined(),
                                  all in any::<bool>()) {
        let _ = replace(&content, &old, &new, all);
        let _ = edit_text(&content, &old, &new, all);
    }

    #[test]
    fn unique_exact_match_is_replaced_exactly(before in lined(), old in lined(), after in lined(),
                                               new in lined()) {
        let content = format!("{before}{old}{after}");
        prop_assume!(!old.is_empty() && old != new);
        prop_assume!(content.find(old.as_str()) == content.rfind(old.as_str()));
        prop_assert_eq!(replace(&content, &old, &new, false), Ok(format!("{before}{new}{after}")));
    }
}
