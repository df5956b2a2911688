// clippy counts only a plain `cfg(test)` module as test code, not this `cfg(all(test, unix))` one.
#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Scans of real command lines against a project laid out in a temporary directory.

use std::fs;
use std::path::{Path, PathBuf};

use super::*;

/// A project view over real directories: inside = contained in `root` after resolving
/// symlinks of the nearest existing ancestor (§0.3, §18 g).
struct TestProject {
    root: PathBuf,
    home: Option<PathBuf>,
}

impl TestProject {
    fn resolve(path: &Path) -> PathBuf {
        let mut existing = path.to_path_buf();
        let mut rest = Vec::new();
        loop {
            if let Ok(real) = existing.canonicalize() {
                return rest
                    .iter()
                    .rev()
                    .fold(real, |acc, part: &std::ffi::OsString| acc.join(part));
            }
            match (existing.file_name(), existing.parent()) {
                (Some(name), Some(parent)) => {
                    rest.push(name.to_os_string());
                    existing = parent.to_path_buf();
                }
                _ => return path.to_path_buf(),
            }
        }
    }
}

impl ProjectView for TestProject {
    fn is_inside(&self, path: &Path) -> bool {
        path.starts_with(&self.root) && Self::resolve(path).starts_with(&self.root)
    }
    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }
    fn home(&self) -> Option<PathBuf> {
        self.home.clone()
    }
    fn glob_base(&self, path: &Path) -> PathBuf {
        if path.starts_with(&self.root) {
            Self::resolve(path)
        } else {
            path.to_path_buf()
        }
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    tmp: PathBuf,
    project: TestProject,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().canonicalize().unwrap();
        let root = tmp.join("outer/project");
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::write(root.join("file.txt"), "x").unwrap();
        fs::create_dir_all(tmp.join("outside")).unwrap();
        fs::write(tmp.join("outside/data.txt"), "secret").unwrap();
        fs::create_dir_all(tmp.join("home")).unwrap();
        fs::create_dir_all(tmp.join("with space")).unwrap();
        std::os::unix::fs::symlink(tmp.join("outside"), root.join("link")).unwrap();
        let project = TestProject {
            root,
            home: Some(tmp.join("home")),
        };
        Fixture {
            _dir: dir,
            tmp,
            project,
        }
    }

    /// Replaces `{tmp}` in a command line with the fixture's directory.
    fn fill(&self, text: &str) -> String {
        text.replace("{tmp}", &self.tmp.to_string_lossy())
    }

    fn scan(&self, command: &str) -> Scan {
        scan(&self.fill(command), &self.project.root, &self.project)
    }
}

/// `(command, patterns, always, external dirs, had_error)`; `{tmp}` is the fixture directory.
type Case = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
    bool,
);

fn strings(items: &[&str], fx: &Fixture) -> Vec<String> {
    items.iter().map(|s| fx.fill(s)).collect()
}

#[test]
fn exact_scans() {
    let fx = Fixture::new();
    let cases: &[Case] = &[
        (
            "echo foo && echo bar",
            &["echo foo", "echo bar"],
            &["echo *"],
            &[],
            false,
        ),
        ("ls -la", &["ls -la"], &["ls *"], &[], false),
        (
            "git log --oneline -5",
            &["git log --oneline -5"],
            &["git log *"],
            &[],
            false,
        ),
        (
            "echo test > output.txt",
            &["echo test > output.txt"],
            &["echo *"],
            &[],
            false,
        ),
        ("cat /etc/*", &["cat /etc/*"], &["cat *"], &["/etc"], false),
        (
            "cat /etc/hostname",
            &["cat /etc/hostname"],
            &["cat *"],
            &["/etc"],
            false,
        ),
        ("cd ../", &[], &[], &["{tmp}/outer"], false),
        ("cd .. && ls", &["ls"], &["ls *"], &["{tmp}/outer"], false),
        ("cd .", &[], &[], &[], false),
        ("", &[], &[], &[], false),
        ("rm file.txt", &["rm file.txt"], &["rm *"], &[], false),
        (
            "rm -rf ./sub/../file.txt sub",
            &["rm -rf ./sub/../file.txt sub"],
            &["rm *"],
            &[],
            false,
        ),
        (
            "cat /etc/passwd | grep root | wc -l",
            &["cat /etc/passwd", "grep root", "wc -l"],
            &["cat *", "grep *", "wc *"],
            &["/etc"],
            false,
        ),
        (
            "(cd {tmp}/outside && ls)",
            &["ls"],
            &["ls *"],
            &["{tmp}/outside"],
            false,
        ),
        (
            "echo $(cat /etc/passwd)",
            &["echo $(cat /etc/passwd)", "cat /etc/passwd"],
            &["echo *", "cat *"],
            &["/etc"],
            false,
        ),
        (
            "echo `cat {tmp}/outside/data.txt`",
            &[
                "echo `cat {tmp}/outside/data.txt`",
                "cat {tmp}/outside/data.txt",
            ],
            &["echo *", "cat *"],
            &["{tmp}/outside"],
            false,
        ),
        (
            "cat <<EOF > {tmp}/outside/x\nhi\nEOF",
            &["cat <<EOF > {tmp}/outside/x\nhi\nEOF"],
            &["cat *"],
            &["{tmp}/outside"],
            false,
        ),
        (
            "cat \"{tmp}/with space/f.txt\"",
            &["cat \"{tmp}/with space/f.txt\""],
            &["cat *"],
            &["{tmp}/with space"],
            false,
        ),
        (
            "cd '{tmp}/with space'",
            &[],
            &[],
            &["{tmp}/with space"],
            false,
        ),
        (
            "mkdir \"sub dir\"",
            &["mkdir \"sub dir\""],
            &["mkdir *"],
            &[],
            false,
        ),
        ("rm $HOME/x", &["rm $HOME/x"], &["rm *"], &[], false),
        (
            "rm \"${X}/y\" `pwd`/z",
            &["rm \"${X}/y\" `pwd`/z", "pwd"],
            &["rm *", "pwd *"],
            &[],
            false,
        ),
        (
            "cat ~/notes.txt",
            &["cat ~/notes.txt"],
            &["cat *"],
            &["{tmp}/home"],
            false,
        ),
        ("cd ~", &[], &[], &["{tmp}/home"], false),
        (
            "f() { rm {tmp}/outside/a; }; f",
            &["rm {tmp}/outside/a", "f"],
            &["rm *", "f *"],
            &["{tmp}/outside"],
            false,
        ),
        (
            "ls 2>/dev/null",
            &["ls 2>/dev/null"],
            &["ls *"],
            &["/dev"],
            false,
        ),
        (
            "ls 2>&1 >&2 <&0 >&-",
            &["ls 2>&1 >&2 <&0 >&-"],
            &["ls *"],
            &[],
            false,
        ),
        (
            "ls &>> {tmp}/outside/log",
            &["ls &>> {tmp}/outside/log"],
            &["ls *"],
            &["{tmp}/outside"],
            false,
        ),
        (
            "sort < {tmp}/outside/data.txt",
            &["sort < {tmp}/outside/data.txt"],
            &["sort *"],
            &["{tmp}/outside"],
            false,
        ),
        (
            "{ echo a; } > {tmp}/outside/o",
            &["echo a"],
            &["echo *"],
            &["{tmp}/outside"],
            false,
        ),
        // bash writes `{tmp}/outside/data.txt` (an argument the grammar puts in the redirect) to out.txt.
        (
            "cat > out.txt {tmp}/outside/data.txt",
            &["cat > out.txt {tmp}/outside/data.txt"],
            &["cat *"],
            &["{tmp}/outside"],
            false,
        ),
        (
            "cat <<EOF {tmp}/outside/data.txt\nEOF",
            &["cat <<EOF {tmp}/outside/data.txt\nEOF"],
            &["cat *"],
            &["{tmp}/outside"],
            false,
        ),
        ("rm * ?x [ab]", &["rm * ?x [ab]"], &["rm *"], &[], false),
        (
            "chmod +x run.sh",
            &["chmod +x run.sh"],
            &["chmod *"],
            &[],
            false,
        ),
        (
            "chmod u+x /etc/x",
            &["chmod u+x /etc/x"],
            &["chmod *"],
            &["/etc"],
            false,
        ),
        (
            "\\rm /etc/x",
            &["\\rm /etc/x"],
            &["\\rm *"],
            &["/etc"],
            false,
        ),
        (
            "/bin/rm {tmp}/outside/a",
            &["/bin/rm {tmp}/outside/a"],
            &["/bin/rm *"],
            &["{tmp}/outside"],
            false,
        ),
        // A symlink inside the project that leads outside: the glob uses the resolved path.
        (
            "cat link/data.txt",
            &["cat link/data.txt"],
            &["cat *"],
            &["{tmp}/outside"],
            false,
        ),
        (
            "echo /etc/passwd > sub/x",
            &["echo /etc/passwd > sub/x"],
            &["echo *"],
            &[],
            false,
        ),
        ("ls; ls; ls -la", &["ls", "ls -la"], &["ls *"], &[], false),
        (
            "npm run dev --port 3",
            &["npm run dev --port 3"],
            &["npm run dev *"],
            &[],
            false,
        ),
        (
            "echo \"unterminated",
            &["echo", "echo \"unterminated"],
            &["echo *"],
            &[],
            true,
        ),
        ("cmd $( ", &["cmd", "cmd $("], &["cmd *"], &[], true),
    ];
    for (command, patterns, always, external, had_error) in cases {
        let got = fx.scan(command);
        let want = Scan {
            patterns: strings(patterns, &fx),
            always: strings(always, &fx),
            external_dirs: external.iter().map(|d| PathBuf::from(fx.fill(d))).collect(),
            had_error: *had_error,
        };
        assert_eq!(got, want, "scan of {command:?}");
    }
}

#[test]
fn cwd_outside_the_project_is_external() {
    let fx = Fixture::new();
    let outside = fx.tmp.join("outside");
    let got = scan("ls", &outside, &fx.project);
    assert_eq!(got.external_dirs, vec![outside.clone()]);
    // Relative arguments resolve against that cwd.
    let got = scan("cat ../home/x", &outside, &fx.project);
    assert_eq!(got.external_dirs, vec![fx.tmp.join("home"), outside]);
}

#[test]
fn home_unknown_skips_tilde_arguments() {
    let fx = Fixture::new();
    let project = TestProject {
        root: fx.project.root.clone(),
        home: None,
    };
    let got = scan("cat ~/x ~", &project.root, &project);
    assert!(got.external_dirs.is_empty(), "{got:?}");
}

#[test]
fn unquote_follows_bash() {
    let cases = [
        ("plain", "plain"),
        ("\"a b\"", "a b"),
        ("'a b'", "a b"),
        ("a\\ b", "a b"),
        ("'$x'", "$x"),
        ("\"q\\\"x\\n\"", "q\"x\\n"),
        ("a\"b c\"d", "ab cd"),
        ("\"open", "open"),
    ];
    for (word, want) in cases {
        assert_eq!(path::unquote(word), want, "unquote({word:?})");
    }
}

#[test]
fn external_globs_use_slashes_and_dedupe() {
    let dirs = [
        PathBuf::from("/etc"),
        PathBuf::from("/"),
        PathBuf::from("/etc"),
        PathBuf::from("/a b/"),
    ];
    assert_eq!(external_globs(&dirs), vec!["/etc/*", "/*", "/a b/*"]);
    assert!(external_globs(&[]).is_empty());
}

#[test]
fn deep_nesting_is_scanned() {
    let fx = Fixture::new();
    let depth = 300;
    let command = format!("{}cat /etc/x{}", "echo $(".repeat(depth), ")".repeat(depth));
    let got = fx.scan(&command);
    assert!(!got.had_error);
    assert_eq!(got.external_dirs, vec![PathBuf::from("/etc")]);
    assert_eq!(got.always, vec!["echo *", "cat *"]);
    assert_eq!(got.patterns.len(), depth + 1);
}

#[test]
fn parser_is_created_once_and_shared_by_threads() {
    let fx = Fixture::new();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let root = fx.project.root.clone();
            std::thread::spawn(move || {
                let project = TestProject {
                    root: root.clone(),
                    home: None,
                };
                (0..25)
                    .map(|_| scan("ls -la | wc -l", &root, &project).patterns.len())
                    .sum::<usize>()
            })
        })
        .collect();
    for thread in threads {
        assert_eq!(thread.join().unwrap(), 50);
    }
    fx.scan("echo again");
    assert_eq!(parser_inits(), 1);
}
