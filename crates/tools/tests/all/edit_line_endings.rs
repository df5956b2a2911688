//! The `edit` line-ending matrix: whatever endings the arguments use, the file keeps its own
//! (spec §3.1 step 6, §19 edit).

use crate::edit_support::text;
use serde_json::json;
use strata_testkit::TestInstance;

const OLD: &str = "alpha\nbeta\ngamma";
const NEXT: &str = "alpha\nbeta-updated\ngamma";

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ending {
    Lf,
    Crlf,
}

fn to(text: &str, e: Ending) -> String {
    let lf = text.replace("\r\n", "\n");
    match e {
        Ending::Lf => lf,
        Ending::Crlf => lf.replace('\n', "\r\n"),
    }
}

/// (CRLF count, lone LF count)
fn endings(text: &str) -> (usize, usize) {
    let crlf = text.matches("\r\n").count();
    (crlf, text.matches('\n').count() - crlf)
}

/// Writes `content`, edits it with the given arguments (read check off) and returns the
/// result, after checking that only the file's own ending is present.
async fn run_case(
    name: &str,
    file: Ending,
    content: String,
    old: String,
    new: String,
    replace_all: bool,
) -> String {
    let mut out = String::new();
    let result = &mut out;
    TestInstance::builder()
        .config(json!({"tools": {"read_before_edit": false}}))
        .file("f.txt", content)
        .run(|t| async move {
            let cx = t.cx().build();
            t.call_with(
                "edit",
                json!({"filePath": "f.txt", "oldString": old, "newString": new,
                       "replaceAll": replace_all}),
                cx,
            )
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
            let got = text(&t, "f.txt");
            let (crlf, lf) = endings(&got);
            match file {
                Ending::Lf => assert_eq!(crlf, 0, "{name}: no CRLF in {got:?}"),
                Ending::Crlf => assert_eq!(lf, 0, "{name}: no lone LF in {got:?}"),
            }
            *result = got;
        })
        .await;
    out
}

#[tokio::test]
async fn the_file_keeps_its_own_line_ending() {
    use Ending::{Crlf, Lf};
    // (name, file ending, oldString ending, newString ending)
    let cases = [
        ("LF file, LF arguments", Lf, Lf, Lf),
        ("CRLF file, CRLF arguments", Crlf, Crlf, Crlf),
        ("LF file, CRLF arguments", Lf, Crlf, Crlf),
        ("CRLF file, LF arguments", Crlf, Lf, Lf),
        ("LF file, CRLF newString", Lf, Lf, Crlf),
        ("CRLF file, LF newString", Crlf, Crlf, Lf),
    ];
    for (name, file, old_e, new_e) in cases {
        let got = run_case(
            name,
            file,
            to(&format!("{OLD}\n"), file),
            to(OLD, old_e),
            to(NEXT, new_e),
            false,
        )
        .await;
        assert_eq!(got, to(&format!("{NEXT}\n"), file), "{name}");
    }
}

#[tokio::test]
async fn mixed_endings_inside_the_arguments() {
    for file in [Ending::Lf, Ending::Crlf] {
        let got = run_case(
            "mixed old/new",
            file,
            to(&format!("{OLD}\n"), file),
            "alpha\nbeta\r\ngamma".to_string(),
            "alpha\r\nbeta\nomega".to_string(),
            false,
        )
        .await;
        assert_eq!(got, to("alpha\nbeta\nomega\n", file), "{file:?}");
    }
}

#[tokio::test]
async fn replace_all_of_multi_line_blocks() {
    let block = "alpha\nbeta";
    let updated = "alpha\nbeta-updated";
    for file in [Ending::Lf, Ending::Crlf] {
        let got = run_case(
            "replaceAll blocks",
            file,
            to(&format!("{block}\n{block}\n"), file),
            to(block, file),
            to(updated, file),
            true,
        )
        .await;
        assert_eq!(
            got,
            to(&format!("{updated}\n{updated}\n"), file),
            "{file:?}"
        );
    }
}
