//! The read-only classification (spec §7.5), case by case: what passes, and the tricks that
//! must not.

use super::is_read_only;

#[track_caller]
fn all(expected: bool, commands: &[&str]) {
    for c in commands {
        assert_eq!(is_read_only(c), expected, "is_read_only({c:?})");
    }
}

#[test]
fn plain_readers_are_read_only() {
    all(
        true,
        &[
            "ls",
            "ls -la src",
            "cat Cargo.toml",
            "head -n 20 src/main.rs",
            "tail -5 log.txt",
            "wc -l src/*.rs",
            "pwd",
            "echo hello",
            "echo \"a > b\"",
            "echo 'x; rm -rf /'",
            "rg -n 'fn main' crates",
            "grep -rn TODO .",
            "find . -name '*.rs' -type f",
            "find src -maxdepth 2 -print",
            "git status",
            "git status --short",
            "git diff",
            "git diff --stat HEAD~1",
            "git log --oneline -5",
            "git show HEAD:src/lib.rs",
            "git -C sub log -1",
            "git --no-pager diff",
            "git branch",
            "git branch -a",
            "sort names.txt",
            "sed -n '10,20p' src/lib.rs",
            "sed -n -e '5p' a.txt",
        ],
    );
}

#[test]
fn lists_pipelines_and_substitutions_of_readers_are_read_only() {
    all(
        true,
        &[
            "ls | wc -l",
            "cat a.txt | grep x | head -3",
            "cd src && ls",
            "git status; git diff",
            "ls || echo none",
            "echo $(pwd)",
            "echo \"dir: $(basename \"$PWD\")\"",
            "(cd src; ls)",
            "{ ls; pwd; }",
            "! grep -q x a.txt",
            "grep x a.txt 2>/dev/null",
            "ls 2>&1 | head",
            "ls >/dev/null",
            "cat < input.txt",
            "cat <<EOF\nhello\nEOF",
            "grep x <<< 'text'",
            "echo $HOME ${USER}",
            "ls # a comment > x",
        ],
    );
}

#[test]
fn redirection_into_a_file_writes() {
    all(
        false,
        &[
            "echo hi > out.txt",
            "echo hi >> out.txt",
            "ls &> all.txt",
            "ls 2> err.txt",
            "cat a > b",
            "cat <<EOF > f.txt\nx\nEOF",
            "ls | cat > copy",
            "echo x >| f",
            "cat <> f",
            "ls > $OUT",
        ],
    );
}

#[test]
fn writing_programs_and_options_are_refused() {
    all(
        false,
        &[
            "rm x",
            "touch a",
            "mkdir d",
            "tee out.txt",
            "ls | tee out.txt",
            "sed -i 's/a/b/' f",
            "sed -i.bak -n '1p' f",
            "sed -ni '1p' f",
            "sed 's/a/b/w out' f",
            "sed -n '1e rm x' f",
            "find . -exec rm {} \\;",
            "find . -execdir ls \\;",
            "find . -delete",
            "find . -fprint out.txt",
            "find . -fprintf out.txt '%p'",
            "find . -ok rm {} \\;",
            "git diff --output=x",
            "git diff --output x",
            "git log --output=log.txt",
            "git diff --ext-diff",
            "git -c core.pager=sh log",
            "git commit -m x",
            "git checkout main",
            "git branch new-branch",
            "git remote add origin x",
            "git grep -O foo",
            "git",
            "sort -o out.txt in.txt",
            "sort -uo out.txt in.txt",
            "sort --output=out.txt in.txt",
            "rg --pre ./script foo",
            "rg --pre=sh foo",
            "xargs rm",
            "awk '{print > \"f\"}' a",
            "npm test",
            "cargo build",
        ],
    );
}

#[test]
fn substitutions_lists_and_assignments_that_write_are_refused() {
    all(
        false,
        &[
            "echo $(rm x)",
            "echo `rm x`",
            "echo \"$(touch f)\"",
            "ls; rm x",
            "ls && rm -rf build",
            "ls || rm x",
            "ls | xargs rm",
            "cat <(rm x)",
            "(cd src; rm x)",
            "FOO=1 ls",
            "GIT_EXTERNAL_DIFF=./evil git diff",
            "x=1",
            "export A=b",
            "cat $(echo a; rm b)",
            "ls & rm x",
        ],
    );
}

#[test]
fn unknown_or_dynamic_programs_and_bad_syntax_are_refused() {
    all(
        false,
        &[
            "",
            "   ",
            "./ls",
            "/tmp/cat x",
            "$CMD file",
            "\"$(echo rm)\" x",
            "find . $ACTION",
            "find . -name *.rs",
            "git $SUB",
            "sed -n \"$SCRIPT\" f",
            "for f in *; do cat $f; done",
            "if true; then ls; fi",
            "f() { ls; }",
            "echo $((x=1))",
            "ls 'unterminated",
            "ls && ",
            "[[ -f x ]]",
        ],
    );
}
