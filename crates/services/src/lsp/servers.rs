//! Which language server handles a file: the built-in table, the config's changes to it, the
//! project root a server starts in, and where its program is found. Pure functions.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// One kind of language server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerDef {
    /// Name used in config (`lsp.<id>`) and messages.
    pub id: String,
    /// File extensions without the dot.
    pub extensions: Vec<String>,
    /// Program and arguments; the program is looked up as [`find_program`] says.
    pub command: Vec<String>,
    /// Files or folders whose presence marks a project root for this server.
    pub root_markers: Vec<String>,
}

fn def(id: &str, extensions: &[&str], command: &[&str], root_markers: &[&str]) -> ServerDef {
    let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
    ServerDef {
        id: id.into(),
        extensions: owned(extensions),
        command: owned(command),
        root_markers: owned(root_markers),
    }
}

/// The servers Strata knows without configuration; each is used only when its program exists.
pub fn builtin() -> Vec<ServerDef> {
    vec![
        def(
            "clangd",
            &[
                "c", "h", "cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++",
            ],
            &["clangd"],
            &["compile_commands.json", "compile_flags.txt", ".clangd"],
        ),
        def(
            "pyright",
            &["py", "pyi"],
            &["pyright-langserver", "--stdio"],
            &[
                "pyproject.toml",
                "setup.py",
                "setup.cfg",
                "pyrightconfig.json",
            ],
        ),
        def(
            "typescript",
            &["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"],
            &["typescript-language-server", "--stdio"],
            &["tsconfig.json", "jsconfig.json", "package.json"],
        ),
        def(
            "bash",
            &["sh", "bash"],
            &["bash-language-server", "start"],
            &[],
        ),
    ]
}

/// The LSP `languageId` for a file extension.
pub fn language_id(extension: &str) -> &'static str {
    match extension {
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" => "cpp",
        "py" | "pyi" => "python",
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "typescriptreact",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "javascriptreact",
        "sh" | "bash" => "shellscript",
        _ => "plaintext",
    }
}

/// Applies the config's `lsp` key to `defs`: `false` turns every server off; an object maps a
/// server id to `{"disabled": true}` or to `{"command": [...], "extensions": [...]}` (which
/// replaces a built-in of that id or adds a new server; a new one needs both fields).
pub fn configure(mut defs: Vec<ServerDef>, lsp: Option<&Value>) -> Result<Vec<ServerDef>, String> {
    let Some(lsp) = lsp else {
        return Ok(defs);
    };
    let entries = match lsp {
        Value::Bool(false) => return Ok(Vec::new()),
        Value::Bool(true) => return Ok(defs),
        Value::Object(entries) => entries,
        other => {
            return Err(format!(
                "`lsp` must be false or an object of servers, not {other}"
            ));
        }
    };
    for (id, entry) in entries {
        let field = |name: &str| -> Result<Option<Vec<String>>, String> {
            match entry.get(name) {
                None => Ok(None),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|i| i.as_str().map(|s| s.trim_start_matches('.').to_string()))
                    .collect::<Option<Vec<_>>>()
                    .filter(|v| !v.is_empty())
                    .map(Some)
                    .ok_or_else(|| {
                        format!("`lsp.{id}.{name}` must be a non-empty list of strings")
                    }),
                Some(_) => Err(format!("`lsp.{id}.{name}` must be a list of strings")),
            }
        };
        if entry.get("disabled") == Some(&Value::Bool(true)) {
            defs.retain(|d| &d.id != id);
            continue;
        }
        let (command, extensions) = (field("command")?, field("extensions")?);
        let markers = field("rootMarkers")?;
        match defs.iter_mut().find(|d| &d.id == id) {
            Some(d) => {
                d.command = command.unwrap_or_else(|| d.command.clone());
                d.extensions = extensions.unwrap_or_else(|| d.extensions.clone());
                d.root_markers = markers.unwrap_or_else(|| d.root_markers.clone());
            }
            None => {
                let (Some(command), Some(extensions)) = (command, extensions) else {
                    return Err(format!(
                        "`lsp.{id}` is not a built-in server, so it needs both `command` and `extensions`"
                    ));
                };
                defs.push(ServerDef {
                    id: id.clone(),
                    extensions,
                    command,
                    root_markers: markers.unwrap_or_default(),
                });
            }
        }
    }
    Ok(defs)
}

/// The servers for `path`, by its extension (case-insensitive).
pub fn for_file<'a>(defs: &'a [ServerDef], path: &Path) -> Vec<&'a ServerDef> {
    let Some(ext) = path.extension().and_then(|e| e.to_str()) else {
        return Vec::new();
    };
    let ext = ext.to_ascii_lowercase();
    defs.iter()
        .filter(|d| d.extensions.iter().any(|e| e.eq_ignore_ascii_case(&ext)))
        .collect()
}

/// The root a server starts in for `file`: the nearest folder from the file's up to the
/// project directory that holds one of `markers`, else the project directory. A file outside
/// the project uses its own folder.
pub fn root_for(
    file: &Path,
    project: &Path,
    markers: &[String],
    exists: impl Fn(&Path) -> bool,
) -> PathBuf {
    let Some(start) = file.parent() else {
        return project.to_path_buf();
    };
    if !start.starts_with(project) {
        return start.to_path_buf();
    }
    for dir in start.ancestors() {
        if markers.iter().any(|m| exists(&dir.join(m))) {
            return dir.to_path_buf();
        }
        if dir == project {
            break;
        }
    }
    project.to_path_buf()
}

/// Where `program` is: a path with a `/` is taken as is (relative to the project); a bare name
/// is looked for in the project's `node_modules/.bin`, then on `path_var` (`PATH`).
pub fn find_program(
    program: &str,
    project: &Path,
    path_var: Option<&str>,
    is_file: impl Fn(&Path) -> bool,
) -> Option<PathBuf> {
    if program.contains('/') {
        let p = project.join(program);
        return is_file(&p).then_some(p);
    }
    std::iter::once(project.join("node_modules/.bin"))
        .chain(std::env::split_paths(path_var.unwrap_or_default()))
        .map(|dir| dir.join(program))
        .find(|p| is_file(p))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn files_find_their_servers_by_extension() {
        let defs = builtin();
        let ids = |p: &str| -> Vec<String> {
            for_file(&defs, Path::new(p))
                .iter()
                .map(|d| d.id.clone())
                .collect()
        };
        assert_eq!(ids("/p/main.c"), ["clangd"]);
        assert_eq!(ids("/p/A.HPP"), ["clangd"]);
        assert_eq!(ids("/p/app.py"), ["pyright"]);
        assert_eq!(ids("/p/ui.tsx"), ["typescript"]);
        assert!(ids("/p/README").is_empty());
        assert!(ids("/p/notes.txt").is_empty());
        assert_eq!(language_id("tsx"), "typescriptreact");
        assert_eq!(language_id("h"), "c");
        assert_eq!(language_id("txt"), "plaintext");
    }

    #[test]
    fn config_turns_servers_off_changes_and_adds_them() {
        assert!(
            configure(builtin(), Some(&json!(false)))
                .unwrap()
                .is_empty()
        );
        assert_eq!(configure(builtin(), None).unwrap(), builtin());
        let defs = configure(
            builtin(),
            Some(&json!({
                "pyright": {"disabled": true},
                "clangd": {"command": ["/opt/clangd-18", "--log=error"]},
                "zls": {"command": ["zls"], "extensions": [".zig"]},
            })),
        )
        .unwrap();
        assert!(defs.iter().all(|d| d.id != "pyright"));
        let clangd = defs.iter().find(|d| d.id == "clangd").unwrap();
        assert_eq!(clangd.command, ["/opt/clangd-18", "--log=error"]);
        assert!(clangd.extensions.contains(&"cpp".to_string()), "kept");
        let zls = defs.iter().find(|d| d.id == "zls").unwrap();
        assert_eq!(zls.extensions, ["zig"]);
        let err = configure(builtin(), Some(&json!({"zls": {"command": ["zls"]}}))).unwrap_err();
        assert!(
            err.contains("`lsp.zls`") && err.contains("extensions"),
            "{err}"
        );
        let err = configure(builtin(), Some(&json!({"clangd": {"command": []}}))).unwrap_err();
        assert!(err.contains("`lsp.clangd.command`"), "{err}");
        assert!(configure(builtin(), Some(&json!("yes"))).is_err());
    }

    #[test]
    fn the_root_is_the_nearest_marked_folder_inside_the_project() {
        let markers = vec!["pyproject.toml".to_string()];
        let project = Path::new("/p");
        let marked = |p: &Path| p == Path::new("/p/svc/pyproject.toml");
        assert_eq!(
            root_for(Path::new("/p/svc/pkg/a.py"), project, &markers, marked),
            Path::new("/p/svc")
        );
        assert_eq!(
            root_for(Path::new("/p/other/b.py"), project, &markers, marked),
            Path::new("/p")
        );
        // A marker above the project is not looked at.
        let above = |p: &Path| p == Path::new("/pyproject.toml");
        assert_eq!(
            root_for(Path::new("/p/c.py"), project, &markers, above),
            Path::new("/p")
        );
        assert_eq!(
            root_for(Path::new("/elsewhere/d.py"), project, &markers, marked),
            Path::new("/elsewhere")
        );
    }

    #[test]
    fn programs_are_found_in_node_modules_then_on_the_path() {
        let project = Path::new("/p");
        let local = |p: &Path| p == Path::new("/p/node_modules/.bin/pyright-langserver");
        assert_eq!(
            find_program("pyright-langserver", project, Some("/usr/bin"), local),
            Some(PathBuf::from("/p/node_modules/.bin/pyright-langserver"))
        );
        let global = |p: &Path| p == Path::new("/usr/local/bin/clangd");
        assert_eq!(
            find_program("clangd", project, Some("/usr/bin:/usr/local/bin"), global),
            Some(PathBuf::from("/usr/local/bin/clangd"))
        );
        assert_eq!(find_program("clangd", project, None, global), None);
        let relative = |p: &Path| p == Path::new("/p/tools/ls");
        assert_eq!(
            find_program("tools/ls", project, None, relative),
            Some(PathBuf::from("/p/tools/ls"))
        );
    }
}
