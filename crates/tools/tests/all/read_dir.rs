//! `read` of directories through the real wrapper: entry order, trailing `/`, paging and the
//! footer (spec §1 step 6, §19 read).

use crate::wrapper_support::footer;
use serde_json::json;
use strata_testkit::{TestInstance, redacted};

/// The entries of a listing, without the footer.
fn entries(output: &str) -> Vec<&str> {
    let start = output.find("<entries>\n").unwrap() + "<entries>\n".len();
    output[start..]
        .lines()
        .take_while(|l| !l.is_empty())
        .collect()
}

fn ten_files() -> strata_testkit::TestInstanceBuilder {
    (1..=10).fold(TestInstance::builder(), |b, i| {
        b.file(format!("many/f{i:02}.txt"), "x")
    })
}

#[tokio::test]
async fn listing_matches_the_observed_layout() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .file("proj/main.rs", "fn main() {}")
        .file("proj/app.py", "print()")
        .file("proj/todos.rs", "")
        .file("proj/util/mod.rs", "")
        .run(|t| async move {
            let r = t.call("read", json!({"filePath": "proj"})).await.unwrap();
            redacted(&t).bind(|| {
                insta::assert_snapshot!("read_dir_layout", r.output);
            });
            let expected_tail =
                "<entries>\napp.py\nmain.rs\ntodos.rs\nutil/\n\n(4 entries)\n</entries>";
            assert!(r.output.ends_with(expected_tail), "{}", r.output);
            assert_eq!(r.title, "proj");
            assert_eq!(r.metadata["truncated"], false);
            let display = &r.metadata["display"];
            assert_eq!(display["type"], "directory");
            assert_eq!(display["totalEntries"], 4);
            assert_eq!(display["offset"], 1);
            assert_eq!(
                display["entries"],
                json!(["app.py", "main.rs", "todos.rs", "util/"])
            );
            assert_eq!(r.metadata["preview"], "app.py\nmain.rs\ntodos.rs\nutil/");
        })
        .await;
}

#[tokio::test]
async fn entries_sort_naturally_and_case_insensitively() {
    TestInstance::builder()
        .file("d/file10.txt", "")
        .file("d/File2.txt", "")
        .file("d/file1.txt", "")
        .file("d/Beta/x", "")
        .file("d/alpha.md", "")
        .run(|t| async move {
            let r = t.call("read", json!({"filePath": "d"})).await.unwrap();
            assert_eq!(
                entries(&r.output),
                ["alpha.md", "Beta/", "file1.txt", "File2.txt", "file10.txt"]
            );
        })
        .await;
}

#[tokio::test]
async fn a_symlink_to_a_directory_gets_a_slash() {
    TestInstance::builder()
        .file("d/real/x.txt", "")
        .file("d/plain.txt", "")
        .run(|t| async move {
            std::os::unix::fs::symlink(t.path("d/real"), t.path("d/link")).unwrap();
            let r = t.call("read", json!({"filePath": "d"})).await.unwrap();
            assert_eq!(entries(&r.output), ["link/", "plain.txt", "real/"]);
        })
        .await;
}

#[tokio::test]
async fn last_page_of_ten_entries_is_not_truncated() {
    ten_files()
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "many", "offset": 6, "limit": 5}))
                .await
                .unwrap();
            assert_eq!(
                entries(&r.output),
                ["f06.txt", "f07.txt", "f08.txt", "f09.txt", "f10.txt"]
            );
            assert_eq!(r.metadata["truncated"], false);
            assert!(!r.output.contains("Showing"), "{}", r.output);
            assert_eq!(footer(&r.output), "(10 entries)");
        })
        .await;
}

#[tokio::test]
async fn first_page_of_ten_entries_points_at_the_next_offset() {
    ten_files()
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "many", "limit": 3}))
                .await
                .unwrap();
            assert_eq!(entries(&r.output), ["f01.txt", "f02.txt", "f03.txt"]);
            assert_eq!(r.metadata["truncated"], true);
            let f = footer(&r.output);
            insta::assert_snapshot!("read_dir_paged_footer", f);
            assert!(f.contains("3 of 10") && f.contains("offset=4"), "{f}");
            assert_eq!(r.metadata["display"]["truncated"], true);
        })
        .await;
}

#[tokio::test]
async fn an_empty_directory_lists_zero_entries() {
    TestInstance::builder()
        .run(|t| async move {
            std::fs::create_dir(t.path("void")).unwrap();
            let r = t.call("read", json!({"filePath": "void"})).await.unwrap();
            assert!(
                r.output.ends_with("<entries>\n\n(0 entries)\n</entries>"),
                "{}",
                r.output
            );
            assert_eq!(r.metadata["truncated"], false);
        })
        .await;
}

#[tokio::test]
async fn a_directory_read_is_not_recorded_in_file_time() {
    TestInstance::builder()
        .file("d/a.txt", "")
        .run(|t| async move {
            t.call("read", json!({"filePath": "d"})).await.unwrap();
            let ft = t.get::<strata_services::file_time::FileTime>();
            assert!(ft.get("ses_test", &t.path("d")).is_none());
        })
        .await;
}
