//! Whether a command line is provably read-only (spec §7.5): every command in it comes from an
//! allow-list of programs that only read (with the options that would make them write refused),
//! nothing is redirected into a file, no variable is assigned, and every substitution inside it
//! is read-only too. Anything the scan does not recognise counts as writing: a wrong "no" only
//! costs parallelism and an undo point, a wrong "yes" would skip them for a change.
//!
//! Pure: it parses the text and looks at nothing else.

use tree_sitter::Node;

use super::path::unquote;
use super::{parse, split_redirect, stray_arguments, text};

/// Node kinds that cannot change anything by themselves; their children are checked too.
const NEUTRAL_KINDS: &[&str] = &[
    "program",
    "list",
    "pipeline",
    "subshell",
    "compound_statement",
    "negated_command",
    "redirected_statement",
    "command_name",
    "word",
    "string",
    "string_content",
    "raw_string",
    "ansi_c_string",
    "concatenation",
    "number",
    "simple_expansion",
    "expansion",
    "variable_name",
    "special_variable_name",
    "command_substitution",
    "brace_expression",
    "comment",
    "file_descriptor",
    "heredoc_redirect",
    "heredoc_start",
    "heredoc_body",
    "heredoc_content",
    "heredoc_end",
    "herestring_redirect",
];

/// How a program's arguments are judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// Reads or prints, whatever its arguments.
    Any,
    Find,
    Git,
    Sort,
    Rg,
    Sed,
}

/// The allow-list: programs (and shell builtins) that only read, with the rule for their
/// arguments. `cd` and friends change only the shell's own directory.
fn rule(name: &str) -> Option<Rule> {
    let any = [
        "ls",
        "cat",
        "head",
        "tail",
        "wc",
        "pwd",
        "echo",
        "printf",
        "grep",
        "egrep",
        "fgrep",
        "true",
        "false",
        "test",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "stat",
        "du",
        "df",
        "which",
        "type",
        "nl",
        "cut",
        "tr",
        "cmp",
        "diff",
        "tac",
        "rev",
        "seq",
        "od",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "sha512sum",
        "uname",
        "whoami",
        "id",
        "printenv",
        "cd",
        "pushd",
        "popd",
    ];
    match name {
        n if any.contains(&n) => Some(Rule::Any),
        "find" => Some(Rule::Find),
        "git" => Some(Rule::Git),
        "sort" => Some(Rule::Sort),
        "rg" => Some(Rule::Rg),
        "sed" => Some(Rule::Sed),
        _ => None,
    }
}

/// Whether running `command` can only read: see the module docs.
pub fn is_read_only(command: &str) -> bool {
    if command.trim().is_empty() {
        return false;
    }
    let Some(tree) = parse(command) else {
        return false;
    };
    let root = tree.root_node();
    if root.has_error() {
        return false;
    }
    let mut cursor = root.walk();
    // Every node, without recursion so deep nesting cannot overflow the stack.
    loop {
        let node = cursor.node();
        if node.is_named() && !node_ok(node, command) {
            return false;
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return true;
            }
        }
    }
}

fn node_ok(node: Node<'_>, src: &str) -> bool {
    match node.kind() {
        "command" => command_ok(node, src),
        "file_redirect" => redirect_ok(node, src),
        kind => NEUTRAL_KINDS.contains(&kind),
    }
}

/// A redirect that reads (`<`), duplicates or closes a descriptor (`2>&1`, `>&-`), or writes
/// into `/dev/null`. Any other output target is a file the command would write.
fn redirect_ok(node: Node<'_>, src: &str) -> bool {
    let mut cursor = node.walk();
    let operator = node
        .children(&mut cursor)
        .find(|child| !child.is_named())
        .map(|child| child.kind())
        .unwrap_or("");
    let (target, _) = split_redirect(node, src);
    let Some(target) = target else {
        // A descriptor (`>&2`) or a close (`>&-`): no file.
        return true;
    };
    match operator {
        "<" => true,
        ">" | ">>" | "&>" | "&>>" | ">|" | ">&" => {
            literal(target, src).as_deref() == Some("/dev/null")
        }
        _ => false,
    }
}

/// A simple command: a literal program name on the allow-list, arguments that its rule allows.
fn command_ok(node: Node<'_>, src: &str) -> bool {
    let Some(name) = node
        .child_by_field_name("name")
        .and_then(|n| literal(n, src))
    else {
        return false;
    };
    // A path (`./ls`, `/tmp/cat`) may be any program.
    if name.contains('/') {
        return false;
    }
    let Some(rule) = rule(&name) else {
        return false;
    };
    if rule == Rule::Any {
        return true;
    }
    // The other rules read the options: each argument must be known before it runs.
    let mut cursor = node.walk();
    let mut args: Vec<String> = Vec::new();
    for child in node.children_by_field_name("argument", &mut cursor) {
        match literal(child, src) {
            Some(arg) => args.push(arg),
            None => return false,
        }
    }
    for stray in stray_arguments(node, src) {
        match literal_text(&stray) {
            Some(arg) => args.push(arg),
            None => return false,
        }
    }
    match rule {
        Rule::Any => true,
        Rule::Find => find_ok(&args),
        Rule::Git => git_ok(&args),
        Rule::Sort => sort_ok(&args),
        Rule::Rg => !args.iter().any(|a| a.starts_with("--pre")),
        Rule::Sed => sed_ok(&args),
    }
}

/// The text of a word the shell passes on unchanged (quotes removed), or `None` when an
/// expansion, a substitution or a glob could make it something else when it runs.
fn literal(node: Node<'_>, src: &str) -> Option<String> {
    match node.kind() {
        "command_name" => literal(node.named_child(0)?, src),
        "word" | "number" => literal_text(text(node, src)),
        "raw_string" => Some(unquote(text(node, src))),
        "string" => {
            let mut cursor = node.walk();
            let plain = node
                .named_children(&mut cursor)
                .all(|c| c.kind() == "string_content");
            plain.then(|| unquote(text(node, src)))
        }
        "concatenation" => {
            let mut cursor = node.walk();
            let parts: Option<Vec<String>> = node
                .named_children(&mut cursor)
                .map(|c| literal(c, src))
                .collect();
            parts.map(|p| p.concat())
        }
        _ => None,
    }
}

/// An unquoted word's text, unless it holds a glob or an expansion (`~` only expands at the
/// start: `HEAD~1` is literal).
fn literal_text(word: &str) -> Option<String> {
    if word.contains(['*', '?', '[', '$', '`', '{']) || word.starts_with('~') {
        return None;
    }
    Some(unquote(word))
}

/// `find` without the actions that run programs, delete or write files.
fn find_ok(args: &[String]) -> bool {
    const WRITING: &[&str] = &[
        "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
    ];
    !args.iter().any(|a| WRITING.contains(&a.as_str()))
}

/// `sort` without an output file (`-o`, also inside `-uo`) or a compression program.
fn sort_ok(args: &[String]) -> bool {
    !args.iter().any(|a| {
        let short_o = a.starts_with('-') && !a.starts_with("--") && a.contains('o');
        short_o || a.starts_with("--output") || a.starts_with("--compress-program")
    })
}

/// `sed` only as a printer: `-n`/`-E`-style options and scripts made of line addresses and the
/// `p`, `d`, `q`, `n`, `=` commands. `-i`, `w` and `e` (write, execute) never pass.
fn sed_ok(args: &[String]) -> bool {
    const OPTIONS: &[&str] = &[
        "-n",
        "-E",
        "-r",
        "-s",
        "-u",
        "-z",
        "--quiet",
        "--silent",
        "--regexp-extended",
    ];
    let script_ok = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_digit() || ",$;pdqn=! ".contains(c))
    };
    let mut script_seen = false;
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        if a == "-e" {
            match iter.next() {
                Some(s) if script_ok(s) => script_seen = true,
                _ => return false,
            }
        } else if a.starts_with('-') {
            if !OPTIONS.contains(&a.as_str()) {
                return false;
            }
        } else if !script_seen {
            if !script_ok(a) {
                return false;
            }
            script_seen = true;
        }
        // Anything after the script is a file to read.
    }
    script_seen
}

/// `git` with global options that change nothing and a subcommand that only reads.
fn git_ok(args: &[String]) -> bool {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "--no-pager" | "-P" | "--no-optional-locks" | "--literal-pathspecs" => i += 1,
            "-C" => i += 2,
            // `-c` can name a pager or a diff program; other options are not needed to read.
            s if s.starts_with('-') => return false,
            _ => break,
        }
    }
    let Some(sub) = args.get(i) else {
        return false;
    };
    let rest = &args[i + 1..];
    let any = |pred: &dyn Fn(&str) -> bool| rest.iter().any(|a| pred(a));
    match sub.as_str() {
        "status" | "blame" | "rev-parse" | "ls-files" | "ls-tree" | "cat-file" | "describe"
        | "shortlog" => true,
        // `--output` writes a file; `--ext-diff` runs a program.
        "diff" | "log" | "show" => !any(&|a| a.starts_with("--output") || a == "--ext-diff"),
        // `-O` opens the matches in a program.
        "grep" => !any(&|a| a.starts_with("-O") || a.starts_with("--open-files-in-pager")),
        // Listing only: any other argument names a branch or a remote to change.
        "branch" => rest.iter().all(|a| {
            [
                "-a",
                "-r",
                "-v",
                "-vv",
                "--all",
                "--remotes",
                "--list",
                "--show-current",
                "--verbose",
            ]
            .contains(&a.as_str())
        }),
        "remote" => rest.iter().all(|a| a == "-v" || a == "--verbose"),
        _ => false,
    }
}
