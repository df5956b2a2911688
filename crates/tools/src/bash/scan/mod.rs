//! The permission scan of a bash command line (spec §7.4): which command patterns the `bash`
//! permission must allow and which outside directories the `external_directory` permission must
//! cover, all found by parsing the command with tree-sitter before anything runs.
//!
//! It also tells whether a command line is provably read-only ([`is_read_only`], spec §7.5),
//! which lets such a `bash` call run beside other safe calls without an undo point.
//!
//! Pure: the file system is consulted only through [`ProjectView`], which the caller implements.

mod path;
mod readonly;
#[cfg(test)]
mod readonly_tests;
#[cfg(all(test, unix))]
mod tests;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, Mutex, PoisonError};

use tree_sitter::{Node, Parser, Tree};

use super::arity::arity_prefix;
pub use path::external_globs;
pub use readonly::is_read_only;

/// What the scan needs to know about the project and the machine.
pub trait ProjectView {
    /// Whether `path` (absolute, lexically normalised) is inside the project, symlinks resolved
    /// (spec §0.3, §18 g).
    fn is_inside(&self, path: &Path) -> bool;
    /// Whether `path` is an existing directory.
    fn is_dir(&self, path: &Path) -> bool;
    /// The user's home directory, for `~` arguments.
    fn home(&self) -> Option<PathBuf>;
    /// The path to build the ask's glob from for an outside `path` (§0.4): the path as given
    /// when it is lexically outside, its resolved path when only that is outside. The default
    /// keeps the path as given.
    fn glob_base(&self, path: &Path) -> PathBuf {
        path.to_path_buf()
    }
}

/// The result of a scan, in the order things were found, without duplicates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    /// `bash` permission patterns: each command's source text.
    pub patterns: Vec<String>,
    /// `bash` always-patterns: each command's arity prefix followed by ` *`.
    pub always: Vec<String>,
    /// Directories outside the project the command touches (see [`external_globs`]).
    pub external_dirs: Vec<PathBuf>,
    /// The parse found a syntax error (the whole command was added as a pattern).
    pub had_error: bool,
}

/// Commands whose non-option arguments are paths.
const PATH_COMMANDS: &[&str] = &[
    "cd", "chdir", "popd", "pushd", "rm", "cp", "mv", "mkdir", "touch", "chmod", "chown", "cat",
];
/// Commands that only change the directory: they add no command pattern.
const DIR_CHANGERS: &[&str] = &["cd", "chdir", "popd", "pushd"];
/// Child kinds of a `command` node that are its words.
const TOKEN_KINDS: &[&str] = &[
    "command_name",
    "word",
    "string",
    "raw_string",
    "concatenation",
];

static PARSER_INITS: AtomicUsize = AtomicUsize::new(0);

/// The one bash parser of the process. `Parser` is not `Sync`, so it sits behind a mutex; a scan
/// holds it only while parsing. `None` when the grammar cannot be loaded (an ABI mismatch).
static PARSER: LazyLock<Option<Mutex<Parser>>> = LazyLock::new(|| {
    PARSER_INITS.fetch_add(1, Ordering::Relaxed);
    let mut parser = Parser::new();
    match parser.set_language(&tree_sitter_bash::LANGUAGE.into()) {
        Ok(()) => Some(Mutex::new(parser)),
        Err(error) => {
            tracing::error!(%error, "cannot load the tree-sitter bash grammar; bash commands will be asked as a whole");
            None
        }
    }
});

/// How many times the parser was created in this process (at most once).
pub fn parser_inits() -> usize {
    PARSER_INITS.load(Ordering::Relaxed)
}

fn parse(command: &str) -> Option<Tree> {
    let parser = PARSER.as_ref()?;
    // A panic while another scan held the lock leaves nothing half-done that `reset` does not clear.
    let mut parser = parser.lock().unwrap_or_else(PoisonError::into_inner);
    parser.reset();
    parser.parse(command, None)
}

/// Scans `command` as run in `cwd` (absolute) and returns what must be asked (spec §7.4).
pub fn scan(command: &str, cwd: &Path, project: &dyn ProjectView) -> Scan {
    let mut collector = Collector {
        src: command,
        cwd,
        project,
        scan: Scan::default(),
        seen_patterns: HashSet::new(),
        seen_always: HashSet::new(),
    };
    match parse(command) {
        Some(tree) => {
            collector.walk(tree.root_node());
            if tree.root_node().has_error() {
                collector.add_whole_command();
            }
        }
        // No tree (grammar missing): nothing can be analysed, so the whole command is asked.
        None => collector.add_whole_command(),
    }
    if !project.is_inside(cwd) {
        let dir = project.glob_base(cwd);
        collector.add_external(dir);
    }
    collector.scan
}

struct Collector<'a> {
    src: &'a str,
    cwd: &'a Path,
    project: &'a dyn ProjectView,
    scan: Scan,
    seen_patterns: HashSet<String>,
    seen_always: HashSet<String>,
}

impl Collector<'_> {
    /// Visits every node, error nodes included, without recursion so deep nesting cannot
    /// overflow the stack.
    fn walk(&mut self, root: Node<'_>) {
        let mut cursor = root.walk();
        loop {
            let node = cursor.node();
            match node.kind() {
                "command" => self.visit_command(node),
                "file_redirect" => {
                    if let Some(target) = split_redirect(node, self.src).0 {
                        self.check_path(text(target, self.src));
                    }
                }
                _ => {}
            }
            if cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
            }
        }
    }

    fn visit_command(&mut self, node: Node<'_>) {
        let mut cursor = node.walk();
        let tokens: Vec<String> = node
            .children(&mut cursor)
            .filter(|child| TOKEN_KINDS.contains(&child.kind()))
            .map(|child| text(child, self.src).to_owned())
            .collect();
        let Some(first) = tokens.first() else { return };
        let cmd = path::unquote(first);
        // `/bin/rm` and `\rm` are still `rm`.
        let name = cmd.rsplit('/').next().unwrap_or(&cmd);
        if PATH_COMMANDS.contains(&name) {
            let args: Vec<String> = tokens[1..]
                .iter()
                .cloned()
                .chain(stray_arguments(node, self.src))
                .collect();
            for arg in args {
                let bare = path::unquote(&arg);
                if bare.starts_with('-') || (name == "chmod" && bare.starts_with('+')) {
                    continue;
                }
                self.check_path(&arg);
            }
        }
        if DIR_CHANGERS.contains(&cmd.as_str()) {
            return;
        }
        let source = match node.parent() {
            Some(parent) if parent.kind() == "redirected_statement" => parent,
            _ => node,
        };
        let always = format!("{} *", arity_prefix(&tokens).join(" "));
        self.add_pattern(text(source, self.src).trim(), always);
    }

    fn check_path(&mut self, arg: &str) {
        if let Some(dir) = path::external_dir(arg, self.cwd, self.project) {
            self.add_external(dir);
        }
    }

    /// Step 8: a command that did not parse cleanly is also asked as a whole.
    fn add_whole_command(&mut self) {
        self.scan.had_error = true;
        let whole = self.src.trim();
        if let Some(first) = whole.split_whitespace().next() {
            let always = format!("{first} *");
            self.add_pattern(whole, always);
        }
    }

    fn add_pattern(&mut self, pattern: &str, always: String) {
        if !pattern.is_empty() && self.seen_patterns.insert(pattern.to_owned()) {
            self.scan.patterns.push(pattern.to_owned());
        }
        if self.seen_always.insert(always.clone()) {
            self.scan.always.push(always);
        }
    }

    fn add_external(&mut self, dir: PathBuf) {
        if !self.scan.external_dirs.contains(&dir) {
            self.scan.external_dirs.push(dir);
        }
    }
}

/// The source text of `node`; empty if its range does not fall on character boundaries.
fn text<'s>(node: Node<'_>, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

/// Splits a `file_redirect` into its file target and the words the grammar attached to it that
/// bash treats as arguments of the command (`echo > out a b` writes `a b` to `out`). `>&2`,
/// `<&0`, `>&-` name descriptors, not files.
fn split_redirect<'t>(node: Node<'t>, src: &str) -> (Option<Node<'t>>, Vec<Node<'t>>) {
    let mut cursor = node.walk();
    let operator = node
        .children(&mut cursor)
        .find(|child| !child.is_named())
        .map(|child| child.kind())
        .unwrap_or("");
    let mut destinations = node.children_by_field_name("destination", &mut cursor);
    let first = destinations.next();
    let rest: Vec<Node<'t>> = destinations.collect();
    let Some(first) = first else {
        return (None, rest);
    };
    let names_descriptor = operator.ends_with('-')
        || (matches!(operator, ">&" | "<&") && is_descriptor(text(first, src)));
    if names_descriptor {
        // `>&-` takes no destination at all, so even its first word is an argument.
        let mut words = if operator.ends_with('-') {
            vec![first]
        } else {
            Vec::new()
        };
        words.extend(rest);
        return (None, words);
    }
    (Some(first), rest)
}

fn is_descriptor(word: &str) -> bool {
    word == "-" || (!word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()))
}

/// Words that belong to `command` but that the grammar placed inside its redirections: extra
/// redirect destinations and the words after a heredoc start (`cat <<EOF /etc/x`).
fn stray_arguments(command: Node<'_>, src: &str) -> Vec<String> {
    let mut cursor = command.walk();
    let mut redirects: Vec<Node<'_>> = command.children(&mut cursor).collect();
    if let Some(parent) = command
        .parent()
        .filter(|p| p.kind() == "redirected_statement")
    {
        redirects.extend(
            parent
                .children(&mut cursor)
                .filter(|c| c.id() != command.id()),
        );
    }
    let mut words: Vec<Node<'_>> = Vec::new();
    for redirect in redirects {
        match redirect.kind() {
            "file_redirect" => words.extend(split_redirect(redirect, src).1),
            "heredoc_redirect" => {
                let mut inner = redirect.walk();
                words.extend(redirect.children_by_field_name("argument", &mut inner));
                for child in redirect.children_by_field_name("redirect", &mut inner) {
                    if child.kind() == "file_redirect" {
                        words.extend(split_redirect(child, src).1);
                    }
                }
            }
            _ => {}
        }
    }
    words.into_iter().map(|n| text(n, src).to_owned()).collect()
}
