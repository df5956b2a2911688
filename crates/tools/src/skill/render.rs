//! What the model sees when a skill loads: a pure function of the skill and its file sample.

use std::path::{Path, PathBuf};

/// At most this many files beside SKILL.md are listed.
pub const FILE_SAMPLE: usize = 10;

/// The `<skill_content>` block (spec §13): heading, trimmed body, base directory, file sample.
pub fn render(name: &str, body: &str, dir: &Path, files: &[PathBuf]) -> String {
    let mut lines = vec![
        format!("<skill_content name=\"{name}\">"),
        format!("# Skill: {name}"),
        String::new(),
        body.trim().to_string(),
        String::new(),
        format!("Base directory of this skill: {}", dir.display()),
        "Paths in these instructions (scripts, references, templates) are relative to that \
         directory."
            .to_string(),
        format!(
            "The files listed below are a sample of what the directory holds (at most \
             {FILE_SAMPLE}), not necessarily all of it."
        ),
        String::new(),
        "<skill_files>".to_string(),
    ];
    lines.extend(
        files
            .iter()
            .map(|f| format!("<file>{}</file>", f.display())),
    );
    lines.push("</skill_files>".to_string());
    lines.push("</skill_content>".to_string());
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_holds_the_trimmed_body_the_directory_and_the_files() {
        let out = render(
            "pdf",
            "\n\n# Filling forms\nUse scripts/fill.py.\n\n",
            Path::new("/s/pdf"),
            &[PathBuf::from("/s/pdf/scripts/fill.py")],
        );
        assert!(out.starts_with("<skill_content name=\"pdf\">\n# Skill: pdf\n\n# Filling forms\n"));
        assert!(out.contains("Use scripts/fill.py.\n\nBase directory of this skill: /s/pdf\n"));
        assert!(out.ends_with(
            "<skill_files>\n<file>/s/pdf/scripts/fill.py</file>\n</skill_files>\n</skill_content>"
        ));
    }

    #[test]
    fn no_files_gives_an_empty_file_block() {
        let out = render("x", "body", Path::new("/d"), &[]);
        assert!(
            out.ends_with("<skill_files>\n</skill_files>\n</skill_content>"),
            "{out}"
        );
    }
}
