//! Exact-output tests for the unified diff (spec §3.6).

use super::*;

const P: &str = "/p/f.txt";

fn header() -> String {
    format!("Index: {P}\n{}\n--- {P}\n+++ {P}\n", "=".repeat(67))
}

#[test]
fn small_edit() {
    let got = unified_diff(P, "a\nb\nc\n", "a\nB\nc\n");
    assert_eq!(got, header() + "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
}

#[test]
fn new_file_prints_both_counts() {
    assert_eq!(
        unified_diff(P, "", "hello\n"),
        header() + "@@ -0,0 +1,1 @@\n+hello\n"
    );
}

#[test]
fn deleted_content() {
    assert_eq!(
        unified_diff(P, "x\ny\n", ""),
        header() + "@@ -1,2 +0,0 @@\n-x\n-y\n"
    );
}

#[test]
fn missing_final_newline_is_marked() {
    let marker = "\\ No newline at end of file";
    let got = unified_diff(P, "a", "b");
    assert_eq!(
        got,
        header() + &format!("@@ -1,1 +1,1 @@\n-a\n{marker}\n+b\n{marker}\n")
    );
    let got = unified_diff(P, "a\nb", "a\nb\nc\n");
    assert_eq!(
        got,
        header() + &format!("@@ -1,2 +1,3 @@\n a\n-b\n{marker}\n+b\n+c\n")
    );
}

#[test]
fn equal_texts_have_no_hunk() {
    assert_eq!(unified_diff(P, "", ""), header());
    assert_eq!(unified_diff(P, "same\n", "same\n"), header());
}

#[test]
fn common_indentation_is_trimmed() {
    let old = "    if x {\n        y\n\n    }\n";
    let new = "    if x {\n        z\n\n    }\n";
    let got = unified_diff(P, old, new);
    assert_eq!(
        got,
        header() + "@@ -1,4 +1,4 @@\n if x {\n-    y\n+    z\n \n }\n"
    );
    // A line at column 0 keeps everything as it is.
    let got = unified_diff(P, "a\n    b\n", "a\n    c\n");
    assert_eq!(got, header() + "@@ -1,2 +1,2 @@\n a\n-    b\n+    c\n");
}

#[test]
fn bom_and_crlf_never_show() {
    let got = unified_diff(
        P,
        "\u{FEFF}using System;\r\nx\r\n",
        "\u{FEFF}using Up;\r\nx\r\n",
    );
    assert_eq!(
        got,
        header() + "@@ -1,2 +1,2 @@\n-using System;\n+using Up;\n x\n"
    );
}

#[test]
fn three_lines_of_context_and_separate_hunks() {
    let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
    let new = old
        .replacen("5\n", "five\n", 1)
        .replace("18\n", "eighteen\n");
    let got = unified_diff(P, &old, &new);
    let want = "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n\
                @@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+eighteen\n 19\n 20\n";
    assert_eq!(got, header() + want);
}

#[test]
fn line_counts_follow_the_line_diff() {
    assert_eq!(line_counts("a\nb\n", "a\nc\nd\n"), (2, 1));
    assert_eq!(line_counts("x\ny\n", ""), (0, 2));
    assert_eq!(line_counts("", "new\n"), (1, 0));
    assert_eq!(line_counts("a\r\nb\r\n", "a\nb\n"), (0, 0));
}
