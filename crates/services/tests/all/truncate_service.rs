//! Truncate through its public API, with real files in a tempdir and the manual clock.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use strata_graph::Scope;
use strata_services::clock::{Clock, TestClock};
use strata_services::truncate::{
    Direction, MAX_BYTES, MAX_LINES, Truncate, TruncateOptions, name_timestamp_ms,
};
use strata_testkit::poll_with_timeout;

const DAY: Duration = Duration::from_secs(24 * 60 * 60);

fn start() -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(1_750_000_000_123)
}

fn setup() -> (tempfile::TempDir, Truncate, TestClock) {
    let tmp = tempfile::tempdir().unwrap();
    let (clock, test) = Clock::manual(start());
    let truncate = Truncate::new(tmp.path().join("tool-output"), clock);
    (tmp, truncate, test)
}

fn numbered(n: usize) -> String {
    (0..n)
        .map(|i| format!("line{i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn lines(max: usize) -> TruncateOptions {
    TruncateOptions {
        max_lines: Some(max),
        ..Default::default()
    }
}

fn files(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Waits up to 10 s for `cond` to hold.
async fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    poll_with_timeout(what, Duration::from_secs(10), || {
        let held = cond();
        async move { held.then_some(()) }
    })
    .await;
}

#[test]
fn defaults_are_2000_lines_and_50_kb() {
    assert_eq!(MAX_LINES, 2000);
    assert_eq!(MAX_BYTES, 51_200);
    let (_tmp, t, _) = setup();
    let fits = numbered(2000);
    assert!(
        !t.output(&fits, TruncateOptions::default())
            .unwrap()
            .truncated
    );
    let over = numbered(2001);
    let out = t.output(&over, TruncateOptions::default()).unwrap();
    assert!(
        out.content.contains("...1 lines truncated..."),
        "{}",
        &out.content[..200]
    );
}

#[test]
fn within_limits_is_unchanged_and_writes_nothing() {
    let (_tmp, t, _) = setup();
    let text = numbered(50);
    let out = t.output(&text, TruncateOptions::default()).unwrap();
    assert_eq!(out.content, text);
    assert!(!out.truncated);
    assert_eq!(out.output_path, None);
    assert!(files(t.dir()).is_empty());
}

#[test]
fn cut_by_lines_reports_the_lines_removed() {
    let (_tmp, t, _) = setup();
    let out = t.output(&numbered(100), lines(10)).unwrap();
    assert!(out.truncated);
    assert!(out.content.starts_with(&format!("{}\n\n", numbered(10))));
    assert!(
        out.content.contains("\n\n...90 lines truncated...\n\n"),
        "{}",
        out.content
    );
}

#[test]
fn cut_by_bytes_reports_the_bytes_removed() {
    let (_tmp, t, _) = setup();
    let text = numbered(1000); // 1000 short lines, far under the line limit
    let opts = TruncateOptions {
        max_bytes: Some(100),
        ..Default::default()
    };
    let out = t.output(&text, opts).unwrap();
    assert!(out.truncated);
    let preview = out.content.split("\n\n").next().unwrap();
    assert!(preview.len() <= 100);
    let removed = text.len() - preview.len();
    assert!(
        out.content
            .contains(&format!("...{removed} bytes truncated...")),
        "{}",
        out.content
    );
}

#[test]
fn large_json_is_cut_by_bytes() {
    let (_tmp, t, _) = setup();
    let items: Vec<_> = (0..5000)
        .map(|i| serde_json::json!({"id": i, "name": format!("item {i}")}))
        .collect();
    let text = serde_json::to_string(&items).unwrap();
    assert!(text.len() > MAX_BYTES);
    let out = t.output(&text, TruncateOptions::default()).unwrap();
    assert!(out.truncated);
    assert!(
        out.content
            .contains(&format!("...{} bytes truncated...", text.len()))
    );
}

#[test]
fn head_keeps_first_lines_and_tail_keeps_last_lines() {
    let (_tmp, t, _) = setup();
    let text = numbered(10);
    let head = t.output(&text, lines(3)).unwrap();
    assert!(
        head.content
            .starts_with("line0\nline1\nline2\n\n...7 lines truncated...")
    );
    assert!(!head.content.contains("line3"));
    let tail_opts = TruncateOptions {
        max_lines: Some(3),
        direction: Direction::Tail,
        ..Default::default()
    };
    let tail = t.output(&text, tail_opts).unwrap();
    assert!(
        tail.content.starts_with("...7 lines truncated...\n\n"),
        "{}",
        tail.content
    );
    assert!(
        tail.content.ends_with("\n\nline7\nline8\nline9"),
        "{}",
        tail.content
    );
    assert!(!tail.content.contains("line6"));
}

#[test]
fn one_huge_line_gets_a_byte_marker() {
    let (_tmp, t, _) = setup();
    let text = "q".repeat(MAX_BYTES * 2);
    let out = t.output(&text, TruncateOptions::default()).unwrap();
    assert!(out.truncated);
    assert!(
        out.content
            .starts_with(&format!("\n\n...{} bytes truncated...", text.len()))
    );
}

#[test]
fn full_text_is_saved_and_the_hint_points_at_it() {
    let (_tmp, t, _) = setup();
    let text = (1..=100_000)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    let out = t.output(&text, TruncateOptions::default()).unwrap();
    let path = out.output_path.clone().unwrap();
    assert!(path.is_absolute());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    let name = path.file_name().unwrap().to_str().unwrap();
    assert!(name.starts_with("tool_"), "{name}");
    assert!(out.content.contains(&path.display().to_string()));
    assert!(out.content.contains("grep"));
    assert!(!out.content.contains("`task`"));
    // Only the saved file is left in the directory (no temp files).
    assert_eq!(files(t.dir()), vec![name.to_string()]);
}

#[test]
fn hint_suggests_task_only_when_the_agent_may_use_it() {
    let (_tmp, t, _) = setup();
    let opts = TruncateOptions {
        max_lines: Some(1),
        agent_may_task: true,
        ..Default::default()
    };
    let out = t.output("a\nb", opts).unwrap();
    assert!(
        out.content.contains("`task`") && out.content.contains("explore"),
        "{}",
        out.content
    );
}

#[test]
fn file_names_embed_the_clock_time_and_sort_by_it() {
    let (_tmp, t, clock) = setup();
    let first = t.create_file().unwrap();
    clock.advance(Duration::from_millis(5));
    let second = t.create_file().unwrap();
    let name = |f: &strata_services::truncate::OutputFile| {
        f.path().file_name().unwrap().to_str().unwrap().to_string()
    };
    let ms = 1_750_000_000_123u64;
    assert_eq!(name_timestamp_ms(&name(&first)), Some(ms % (1 << 36)));
    assert_eq!(
        name_timestamp_ms(&name(&second)),
        Some((ms + 5) % (1 << 36))
    );
    assert!(name(&first) < name(&second));
}

#[test]
fn output_file_appends_chunks() {
    let (_tmp, t, _) = setup();
    let mut file = t.create_file().unwrap();
    file.append(b"one\n").unwrap();
    file.append(b"two\n").unwrap();
    assert_eq!(std::fs::read_to_string(file.path()).unwrap(), "one\ntwo\n");
    assert_eq!(file.path().parent().unwrap(), t.dir());
}

#[test]
fn unwritable_dir_is_an_error_naming_the_path() {
    let tmp = tempfile::tempdir().unwrap();
    let blocker = tmp.path().join("file");
    std::fs::write(&blocker, "not a dir").unwrap();
    let t = Truncate::new(blocker.join("tool-output"), Clock::manual(start()).0);
    let err = t.output(&numbered(10), lines(2)).unwrap_err();
    assert!(
        err.to_string().contains(&blocker.display().to_string()),
        "{err}"
    );
}

#[test]
fn cleanup_removes_old_files_and_keeps_recent_ones() {
    let (_tmp, t, clock) = setup();
    let old = t.create_file().unwrap().path().to_path_buf();
    clock.advance(DAY * 2);
    let recent = t.create_file().unwrap().path().to_path_buf();
    let other = t.dir().join("notes.txt");
    std::fs::write(&other, "not ours").unwrap();
    clock.advance(DAY * 5 + Duration::from_secs(1));
    // `old` is now 7 days and 1 s old, `recent` 5 days.
    assert_eq!(t.cleanup(), 1);
    assert!(!old.exists());
    assert!(recent.exists());
    assert!(other.exists());
}

#[test]
fn cleanup_of_a_missing_dir_does_nothing() {
    let (_tmp, t, _) = setup();
    assert_eq!(t.cleanup(), 0);
}

#[tokio::test]
async fn scheduled_cleanup_runs_a_minute_after_start_then_hourly() {
    let (_tmp, t, clock) = setup();
    let a = t.create_file().unwrap().path().to_path_buf();
    clock.advance(Duration::from_secs(30 * 60));
    let b = t.create_file().unwrap().path().to_path_buf();
    clock.advance(DAY * 7 - Duration::from_secs(30 * 60));

    let scope = Scope::new();
    t.spawn_cleanup(&scope);
    wait_until("the first cleanup to be scheduled", || {
        clock.pending_sleepers() == 1
    })
    .await;
    clock.advance(Duration::from_secs(59));
    assert_eq!(
        clock.pending_sleepers(),
        1,
        "cleanup woke before a minute passed"
    );
    assert!(a.exists());
    clock.advance(Duration::from_secs(1));
    // `a` is 7 days + 1 min old, `b` 30 minutes younger.
    wait_until("the first cleanup to delete `a`", || !a.exists()).await;
    assert!(b.exists());

    // `b` turns 7 days old 29 minutes later, but the next run is an hour after the first.
    wait_until("the hourly cleanup to be scheduled", || {
        clock.pending_sleepers() == 1
    })
    .await;
    clock.advance(Duration::from_secs(59 * 60));
    assert_eq!(
        clock.pending_sleepers(),
        1,
        "cleanup woke before the hour was up"
    );
    assert!(b.exists());
    clock.advance(Duration::from_secs(60));
    wait_until("the hourly cleanup to delete `b`", || !b.exists()).await;

    scope.close().await;
    assert_eq!(clock.pending_sleepers(), 0);
}
