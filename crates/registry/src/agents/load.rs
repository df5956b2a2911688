//! Loading agents: the built-ins, then markdown files (found through FsUtil), then the config's
//! `agent` map, each refining or adding agents by name.

use std::path::{Path, PathBuf};

use serde_json::Value;
use strata_services::config::Config;
use strata_services::flags::RuntimeFlags;
use strata_services::frontmatter;
use strata_services::fs::{FileKind, FsUtil};
use strata_services::instance::InstanceInfo;

use super::parse::{self, Patch};
use super::{AgentError, AgentInfo, AgentMode, AgentSource, Agents, builtin_agents};

/// An agent file larger than this is not read (it would not fit a prompt anyway).
const MAX_AGENT_BYTES: u64 = 1024 * 1024;

/// The project folders holding agent files, in each directory walked, in order (later wins).
const PROJECT_FOLDERS: [&str; 3] = [".opencode/agent", ".opencode/agents", ".strata/agents"];

/// Every folder searched for `*.md` agent files, lowest precedence first.
pub fn sources(info: &InstanceInfo, flags: &RuntimeFlags) -> Vec<PathBuf> {
    let mut out = vec![flags.config_dir.join("agents")];
    let home_config = flags.home_dir.join(".config").join("strata").join("agents");
    if !out.contains(&home_config) {
        out.insert(0, home_config);
    }
    for dir in info.project_dirs() {
        for folder in PROJECT_FOLDERS {
            out.push(dir.join(folder));
        }
    }
    out
}

/// What loading has gathered so far.
#[derive(Debug)]
struct Gathered {
    agents: Vec<AgentInfo>,
    errors: Vec<AgentError>,
}

impl Gathered {
    /// Applies one definition of `name` from `source`: a new agent (mode `all` unless set)
    /// or a refinement of an existing one; `disable` removes it.
    fn define(&mut self, name: &str, patch: Patch, source: AgentSource) {
        let index = self.agents.iter().position(|a| a.name == name);
        if patch.disable {
            if let Some(i) = index {
                self.agents.remove(i);
            }
            return;
        }
        let agent = match index {
            Some(i) => &mut self.agents[i],
            None => {
                self.agents.push(AgentInfo::new(name, AgentMode::All));
                let last = self.agents.len() - 1;
                &mut self.agents[last]
            }
        };
        parse::apply(agent, patch);
        agent.source = source;
    }
}

/// Loads every agent of an instance. Never fails: what cannot be read becomes an
/// [`AgentError`] and the rest still loads.
pub(crate) async fn load(
    fs: &FsUtil,
    info: &InstanceInfo,
    config: &Config,
    flags: &RuntimeFlags,
) -> Agents {
    let mut g = Gathered {
        agents: builtin_agents(),
        errors: Vec::new(),
    };
    for dir in sources(info, flags) {
        if !matches!(fs.stat(&dir).await, Ok(Some(m)) if m.kind == FileKind::Dir) {
            continue;
        }
        let entries = match fs.read_dir(&dir).await {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!(target: "strata::agents", "could not list {}: {e}", dir.display());
                continue;
            }
        };
        for entry in entries {
            let Some(name) = entry.name.strip_suffix(".md") else {
                continue;
            };
            if entry.kind != FileKind::File || name.is_empty() {
                continue;
            }
            match read_file(fs, &entry.path, &flags.home_dir).await {
                Ok(patch) => g.define(name, patch, AgentSource::File(entry.path.clone())),
                Err((key, message)) => g.errors.push(AgentError {
                    name: name.to_string(),
                    file: Some(entry.path.clone()),
                    key,
                    message,
                }),
            }
        }
    }
    if let Some(Value::Object(map)) = config.raw.get("agent") {
        for (name, value) in map {
            let result = match value {
                Value::Object(entry) => {
                    parse::patch(entry, &flags.home_dir).map_err(|e| (e.key, e.message))
                }
                other => Err((
                    String::new(),
                    format!("it must be an object of agent settings, but it is {other}"),
                )),
            };
            match result {
                Ok(patch) => g.define(name, patch, AgentSource::Config),
                Err((key, message)) => g.errors.push(AgentError {
                    name: name.clone(),
                    file: None,
                    key,
                    message,
                }),
            }
        }
    } else if let Some(other) = config.raw.get("agent").filter(|v| !v.is_null()) {
        g.errors.push(AgentError {
            name: "*".into(),
            file: None,
            key: String::new(),
            message: format!("`agent` must be an object of agents by name, but it is {other}"),
        });
    }
    Agents::from_parts(g.agents, g.errors)
}

/// One agent file: its frontmatter as settings, its body as the prompt. An error is the key at
/// fault (empty for the whole file) and what is wrong.
async fn read_file(fs: &FsUtil, file: &Path, home: &Path) -> Result<Patch, (String, String)> {
    let whole = |m: String| (String::new(), m);
    let bytes = fs
        .read(file, MAX_AGENT_BYTES)
        .await
        .map_err(|e| whole(format!("it could not be read ({e})")))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| whole("it is not UTF-8 text; save it as UTF-8".into()))?;
    let parsed = frontmatter::parse::<Value>(&text)
        .map_err(|e| whole(format!("{e}; fix the frontmatter between the `---` lines")))?;
    let mut patch = match parsed.meta {
        None => Patch::default(),
        Some(Value::Object(map)) => parse::patch(&map, home).map_err(|e| (e.key, e.message))?,
        Some(Value::Null) => Patch::default(),
        Some(other) => {
            return Err(whole(format!(
                "its frontmatter must be a list of `key: value` lines, but it is {other}"
            )));
        }
    };
    let body = parsed.body.trim();
    if !body.is_empty() {
        patch.prompt = Some(body.to_string());
    }
    Ok(patch)
}
