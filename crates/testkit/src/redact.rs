//! Snapshot redaction: the temporary paths of a [`TestInstance`] become stable tokens, so a
//! snapshot of model-visible output is the same on every machine and every run.

use crate::TestInstance;

/// Insta settings whose filters turn this instance's temporary paths into stable tokens: the
/// project directory → `[DIR]`, its parent (holding `outside`, `data`, …) → `[ROOT]`, saved
/// tool-output ids → `tool_[ID]`. Use as `redacted(&t).bind(|| insta::assert_snapshot!(..))`.
pub fn redacted(t: &TestInstance) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    // The project first: it lies inside the root, and the longer match must win.
    s.add_filter(&regex::escape(&t.dir().to_string_lossy()), "[DIR]");
    if let Some(root) = t.dir().parent() {
        s.add_filter(&regex::escape(&root.to_string_lossy()), "[ROOT]");
    }
    s.add_filter(r"tool_[0-9a-zA-Z]{26}", "tool_[ID]");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn project_root_and_saved_output_ids_become_tokens() {
        TestInstance::builder()
            .run(|t| async move {
                let dir = t.dir().display().to_string();
                let root = t.dir().parent().unwrap().display().to_string();
                let text = format!(
                    "{dir}/a.txt\n{root}/outside.txt\nsaved as tool_0123456789abcdefghijABCDEF"
                );
                redacted(&t).bind(|| {
                    insta::assert_snapshot!(text, @r"
                    [DIR]/a.txt
                    [ROOT]/outside.txt
                    saved as tool_[ID]
                    ");
                });
            })
            .await;
    }
}
