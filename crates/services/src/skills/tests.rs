//! Discovery over real files in a temporary directory (home, config dir, a git project).

use std::path::{Path, PathBuf};

use serde_json::json;

use super::*;
use crate::instance::InstanceSeed;
use crate::permission::{Action, Rule};

struct World {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    flags: RuntimeFlags,
}

impl World {
    /// `root/{data,config,home}` and a git project `root/repo` with the instance in `repo/sub`.
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::create_dir_all(root.join("repo/.git")).unwrap();
        std::fs::create_dir_all(root.join("repo/sub")).unwrap();
        let flags = RuntimeFlags::for_dirs(root.join("data"), root.join("config"));
        assert_eq!(flags.home_dir, root.join("home"));
        World {
            _tmp: tmp,
            root,
            flags,
        }
    }

    fn skill(&self, rel: &str, frontmatter: &str, body: &str) -> PathBuf {
        let path = self.root.join(rel).join(SKILL_FILE);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("---\n{frontmatter}---\n{body}")).unwrap();
        path
    }

    async fn discover(&self, config: serde_json::Value) -> Skills {
        let info = InstanceInfo::detect(
            &InstanceSeed {
                directory: self.root.join("repo/sub"),
            },
            &self.flags,
        )
        .unwrap();
        let config = Config::from_value(config).unwrap();
        discover(&FsUtil::live(), &info, &config, &self.flags).await
    }
}

fn names(skills: &Skills) -> Vec<&str> {
    skills.all().map(|s| s.name.as_str()).collect()
}

fn fm(name: &str, description: &str) -> String {
    format!("name: {name}\ndescription: {description}\n")
}

#[tokio::test]
async fn later_sources_replace_earlier_ones_with_a_warning() {
    let w = World::new();
    w.skill("config/skills/a", &fm("shared", "from config dir"), "A");
    w.skill("home/.claude/skills/b", &fm("shared", "from claude"), "B");
    w.skill("home/.agents/skills/only-home", &fm("only-home", "h"), "H");
    w.skill(
        "repo/.claude/skills/x",
        &fm("proj", "from worktree root"),
        "R",
    );
    w.skill(
        "repo/sub/.agents/skills/x",
        &fm("proj", "from instance dir"),
        "S",
    );
    w.skill(
        "repo/sub/.strata/skills/deep/er/y",
        &fm("deep", "nested"),
        "D",
    );
    w.skill("extra/z", &fm("shared", "from skills.paths"), "Z");
    let skills = w
        .discover(json!({"skills": {"paths": [w.root.join("extra").display().to_string()]}}))
        .await;
    assert_eq!(names(&skills), ["deep", "only-home", "proj", "shared"]);
    let shared = skills.get("shared").unwrap();
    assert_eq!(shared.description.as_deref(), Some("from skills.paths"));
    assert_eq!(shared.source, SkillSource::ConfigPath);
    assert_eq!(shared.dir, w.root.join("extra/z"));
    assert_eq!(shared.body, "Z");
    // The instance directory is nearer than the worktree root, so it wins.
    let proj = skills.get("proj").unwrap();
    assert_eq!(proj.description.as_deref(), Some("from instance dir"));
    assert_eq!(proj.source, SkillSource::Project);
    assert_eq!(skills.get("only-home").unwrap().source, SkillSource::User);
    let warnings = skills.warnings().join("\n");
    // config dir → ~/.claude → skills.paths: two replacements of `shared`, one of `proj`.
    assert_eq!(skills.warnings().len(), 3, "{warnings}");
    assert!(
        warnings.contains(&format!(
            "`shared` at {} replaces the one at {}",
            w.root.join("home/.claude/skills/b/SKILL.md").display(),
            w.root.join("config/skills/a/SKILL.md").display()
        )),
        "{warnings}"
    );
    assert!(warnings.contains("`proj` at"), "{warnings}");
    assert!(skills.broken().is_empty());
    let mut dirs = skills.dirs();
    dirs.sort();
    assert!(dirs.contains(&w.root.join("repo/sub/.strata/skills/deep/er/y")));
    assert_eq!(dirs.len(), 4);
}

#[tokio::test]
async fn a_skill_without_a_name_is_skipped_with_a_warning_naming_the_file() {
    let w = World::new();
    let nameless = w.skill("repo/.claude/skills/nameless", "description: d\n", "x");
    let no_fm = w.root.join("repo/.claude/skills/plain/SKILL.md");
    std::fs::create_dir_all(no_fm.parent().unwrap()).unwrap();
    std::fs::write(&no_fm, "# just text\n").unwrap();
    w.skill("repo/.claude/skills/ok", &fm("ok", "fine"), "y");
    let skills = w.discover(json!({})).await;
    assert_eq!(names(&skills), ["ok"]);
    let warnings = skills.warnings().join("\n");
    for file in [&nameless, &no_fm] {
        assert!(warnings.contains(&file.display().to_string()), "{warnings}");
    }
    assert!(warnings.contains("no `name`"), "{warnings}");
    assert_eq!(skills.broken().len(), 2);
}

#[tokio::test]
async fn a_skill_without_a_description_loads_but_is_not_listed() {
    let w = World::new();
    w.skill("repo/.agents/skills/quiet", "name: quiet\n", "shh");
    w.skill("repo/.agents/skills/loud", &fm("loud", "talks"), "hi");
    w.skill(
        "repo/.agents/skills/blank",
        "name: blank\ndescription: '  '\n",
        "",
    );
    let skills = w.discover(json!({})).await;
    assert_eq!(names(&skills), ["blank", "loud", "quiet"]);
    assert_eq!(skills.get("quiet").unwrap().description, None);
    let listed: Vec<_> = skills.listed(&[]).map(|s| s.name.as_str()).collect();
    assert_eq!(listed, ["loud"]);
    assert!(skills.warnings().is_empty(), "{:?}", skills.warnings());
}

#[tokio::test]
async fn denied_skills_are_not_available() {
    let w = World::new();
    for name in ["alpha", "beta", "secret-one"] {
        w.skill(&format!("repo/.claude/skills/{name}"), &fm(name, "d"), "");
    }
    let skills = w.discover(json!({})).await;
    let rules = vec![
        Rule::new("*", "*", Action::Allow),
        Rule::new("skill", "secret-*", Action::Deny),
        Rule::new("skill", "beta", Action::Ask),
    ];
    let available: Vec<_> = skills.available(&rules).map(|s| s.name.as_str()).collect();
    assert_eq!(available, ["alpha", "beta"]);
    let listed: Vec<_> = skills.listed(&rules).map(|s| s.name.as_str()).collect();
    assert_eq!(listed, ["alpha", "beta"]);
    assert!(denied("secret-one", &rules));
    assert!(!denied("beta", &rules));
}

#[tokio::test]
async fn malformed_yaml_names_the_file_and_the_others_still_load() {
    let w = World::new();
    let bad = w.skill(
        "repo/.claude/skills/broken",
        "name: broken\ndescription: [oops\n",
        "",
    );
    let unclosed = w.root.join("repo/.claude/skills/unclosed/SKILL.md");
    std::fs::create_dir_all(unclosed.parent().unwrap()).unwrap();
    std::fs::write(&unclosed, "---\nname: unclosed\n").unwrap();
    w.skill("repo/.claude/skills/good", &fm("good", "works"), "body");
    let skills = w.discover(json!({})).await;
    assert_eq!(names(&skills), ["good"]);
    let warnings = skills.warnings().join("\n");
    assert!(warnings.contains(&bad.display().to_string()), "{warnings}");
    assert!(warnings.contains("not valid YAML"), "{warnings}");
    assert!(
        warnings.contains(&unclosed.display().to_string()),
        "{warnings}"
    );
    assert!(warnings.contains("never closed"), "{warnings}");
    let broken = skills.broken_named("broken").unwrap();
    assert_eq!(broken.location, bad);
    assert!(skills.broken_named("good").is_none());
}

#[tokio::test]
async fn config_paths_expand_home_resolve_relative_entries_and_warn_when_missing() {
    let w = World::new();
    w.skill("home/my-skills/one", &fm("one", "d"), "");
    w.skill("repo/sub/local/two", &fm("two", "d"), "");
    let skills = w
        .discover(json!({"skills": {"paths": ["~/my-skills", "local", "missing"]}}))
        .await;
    assert_eq!(names(&skills), ["one", "two"]);
    assert_eq!(
        skills.warnings(),
        [format!(
            "skills.paths entry {} does not exist; fix or remove it in the config",
            w.root.join("repo/sub/missing").display()
        )]
    );
}

#[tokio::test]
async fn git_and_node_modules_are_not_walked_and_symlink_loops_end() {
    let w = World::new();
    w.skill("repo/.claude/skills/node_modules/pkg", &fm("dep", "d"), "");
    w.skill("repo/.claude/skills/real", &fm("real", "d"), "");
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        w.root.join("repo/.claude/skills"),
        w.root.join("repo/.claude/skills/real/loop"),
    )
    .unwrap();
    let skills = w.discover(json!({})).await;
    assert_eq!(names(&skills), ["real"]);
    assert!(skills.warnings().is_empty(), "{:?}", skills.warnings());
}

#[test]
fn config_path_resolution() {
    let home = Path::new("/h");
    let dir = Path::new("/p/q");
    assert_eq!(resolve_config_path("~", home, dir), PathBuf::from("/h"));
    assert_eq!(resolve_config_path("~/s", home, dir), PathBuf::from("/h/s"));
    assert_eq!(
        resolve_config_path("../s", home, dir),
        PathBuf::from("/p/s")
    );
    assert_eq!(
        resolve_config_path("/abs", home, dir),
        PathBuf::from("/abs")
    );
}
