//! RuntimeFlags: the settings that come from the process environment.
//!
//! Read once at start-up ([`RuntimeFlags::from_env`]); parsing is a pure function of a lookup
//! closure ([`RuntimeFlags::from_lookup`]) so tests never touch the process environment.

use std::path::{Path, PathBuf};

/// Directories and switches taken from the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeFlags {
    /// Where Strata keeps its data (saved tool output, sessions).
    pub data_dir: PathBuf,
    /// Where the user's `strata.json` lives.
    pub config_dir: PathBuf,
    /// opencode's global config folder (`$XDG_CONFIG_HOME/opencode`, else
    /// `~/.config/opencode`): its `opencode.json` is read below Strata's own.
    pub opencode_config_dir: PathBuf,
    /// The OS temporary directory.
    pub temp_dir: PathBuf,
    /// The user's home directory (`~/.claude/skills`, `~/.agents/skills`, `~/` in config paths).
    pub home_dir: PathBuf,
    /// Default `bash` timeout in ms, when set to a positive integer.
    pub bash_default_timeout_ms: Option<u64>,
    /// Shows the experimental `lsp` tool.
    pub experimental_lsp_tool: bool,
    /// `STRATA_WEBSEARCH_URL`: the web search endpoint when the config names none.
    pub websearch_url: Option<String>,
    /// `EXA_API_KEY`: the web search key when the config gives none.
    pub exa_api_key: Option<String>,
    /// `STRATA_SANDBOX` (or `--sandbox`): the sandbox mode, winning over the config.
    pub sandbox_mode: Option<String>,
}

/// A switch from the environment that a tool can be shown behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Flag {
    /// `STRATA_EXPERIMENTAL_LSP_TOOL`.
    ExperimentalLspTool,
}

impl strata_graph::Service for RuntimeFlags {
    const KEY: &'static str = "RuntimeFlags";
}

impl RuntimeFlags {
    /// Reads the real process environment.
    pub fn from_env() -> Self {
        let home = dirs::home_dir().unwrap_or_else(std::env::temp_dir);
        Self::from_lookup(|name| std::env::var(name).ok(), &home, std::env::temp_dir())
    }

    /// Builds flags from `lookup` (an environment variable reader), the home directory and the
    /// temp directory. Empty variables count as unset.
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
        home: &Path,
        temp_dir: PathBuf,
    ) -> Self {
        let var = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let dir = |own: &str, xdg: &str, fallback: &[&str]| -> PathBuf {
            if let Some(v) = var(own) {
                return PathBuf::from(v);
            }
            if let Some(v) = var(xdg) {
                return PathBuf::from(v).join("strata");
            }
            fallback
                .iter()
                .fold(home.to_path_buf(), |p, part| p.join(part))
        };
        Self {
            data_dir: dir(
                "STRATA_DATA_DIR",
                "XDG_DATA_HOME",
                &[".local", "share", "strata"],
            ),
            config_dir: dir(
                "STRATA_CONFIG_DIR",
                "XDG_CONFIG_HOME",
                &[".config", "strata"],
            ),
            opencode_config_dir: match var("XDG_CONFIG_HOME") {
                Some(xdg) => PathBuf::from(xdg).join("opencode"),
                None => home.join(".config").join("opencode"),
            },
            temp_dir,
            home_dir: home.to_path_buf(),
            bash_default_timeout_ms: var("STRATA_BASH_DEFAULT_TIMEOUT_MS")
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|ms| *ms > 0),
            experimental_lsp_tool: var("STRATA_EXPERIMENTAL_LSP_TOOL")
                .is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true")),
            websearch_url: var("STRATA_WEBSEARCH_URL").map(|v| v.trim().to_string()),
            exa_api_key: var("EXA_API_KEY").map(|v| v.trim().to_string()),
            sandbox_mode: var("STRATA_SANDBOX").map(|v| v.trim().to_string()),
        }
    }

    /// Flags for tests: the given directories, the OS temp dir, no switches set. The home
    /// directory is a `home` folder beside the config dir, so tests never read the real one.
    pub fn for_dirs(data_dir: impl Into<PathBuf>, config_dir: impl Into<PathBuf>) -> Self {
        let config_dir: PathBuf = config_dir.into();
        let home_dir = config_dir.parent().unwrap_or(&config_dir).join("home");
        Self {
            data_dir: data_dir.into(),
            config_dir,
            opencode_config_dir: home_dir.join(".config").join("opencode"),
            temp_dir: std::env::temp_dir(),
            home_dir,
            bash_default_timeout_ms: None,
            experimental_lsp_tool: false,
            websearch_url: None,
            exa_api_key: None,
            sandbox_mode: None,
        }
    }

    /// The switches that are on.
    pub fn enabled(&self) -> Vec<Flag> {
        let mut on = Vec::new();
        if self.experimental_lsp_tool {
            on.push(Flag::ExperimentalLspTool);
        }
        on
    }

    /// Where Truncate saves full tool outputs: `<data dir>/tool-output`.
    pub fn tool_output_dir(&self) -> PathBuf {
        self.data_dir.join("tool-output")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn flags(vars: &[(&str, &str)]) -> RuntimeFlags {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        RuntimeFlags::from_lookup(|k| map.get(k).cloned(), Path::new("/home/u"), "/tmp".into())
    }

    #[test]
    fn defaults_under_home() {
        let f = flags(&[]);
        assert_eq!(f.data_dir, PathBuf::from("/home/u/.local/share/strata"));
        assert_eq!(f.config_dir, PathBuf::from("/home/u/.config/strata"));
        assert_eq!(
            f.opencode_config_dir,
            PathBuf::from("/home/u/.config/opencode")
        );
        assert_eq!(f.temp_dir, PathBuf::from("/tmp"));
        assert_eq!(f.home_dir, PathBuf::from("/home/u"));
        assert_eq!(f.bash_default_timeout_ms, None);
        assert!(!f.experimental_lsp_tool);
        assert_eq!((&f.websearch_url, &f.exa_api_key), (&None, &None));
        assert_eq!(
            f.tool_output_dir(),
            PathBuf::from("/home/u/.local/share/strata/tool-output")
        );
    }

    #[test]
    fn xdg_then_own_variables_win() {
        let f = flags(&[("XDG_DATA_HOME", "/x/data"), ("XDG_CONFIG_HOME", "/x/cfg")]);
        assert_eq!(f.data_dir, PathBuf::from("/x/data/strata"));
        assert_eq!(f.config_dir, PathBuf::from("/x/cfg/strata"));
        assert_eq!(f.opencode_config_dir, PathBuf::from("/x/cfg/opencode"));
        let f = flags(&[
            ("XDG_DATA_HOME", "/x/data"),
            ("STRATA_DATA_DIR", "/s/data"),
            ("STRATA_CONFIG_DIR", "/s/cfg"),
        ]);
        assert_eq!(f.data_dir, PathBuf::from("/s/data"));
        assert_eq!(f.config_dir, PathBuf::from("/s/cfg"));
        // Empty values count as unset.
        let f = flags(&[("STRATA_DATA_DIR", ""), ("XDG_DATA_HOME", "")]);
        assert_eq!(f.data_dir, PathBuf::from("/home/u/.local/share/strata"));
    }

    #[test]
    fn bash_timeout_accepts_only_positive_integers() {
        let t = |v: &str| flags(&[("STRATA_BASH_DEFAULT_TIMEOUT_MS", v)]).bash_default_timeout_ms;
        assert_eq!(t("5000"), Some(5000));
        assert_eq!(t(" 42 "), Some(42));
        for bad in ["0", "-5", "1.5", "abc", "10s"] {
            assert_eq!(t(bad), None, "{bad:?} must be ignored");
        }
    }

    #[test]
    fn lsp_switch_takes_one_or_true() {
        let on = |v: &str| flags(&[("STRATA_EXPERIMENTAL_LSP_TOOL", v)]).experimental_lsp_tool;
        assert!(on("1"));
        assert!(on("true"));
        assert!(on("TRUE"));
        assert!(!on("0"));
        assert!(!on("false"));
        assert!(!on("yes"));
    }

    #[test]
    fn websearch_endpoint_and_key_come_from_their_variables() {
        let f = flags(&[
            ("STRATA_WEBSEARCH_URL", " http://127.0.0.1:9/mcp "),
            ("EXA_API_KEY", "secret"),
        ]);
        assert_eq!(f.websearch_url.as_deref(), Some("http://127.0.0.1:9/mcp"));
        assert_eq!(f.exa_api_key.as_deref(), Some("secret"));
        let f = flags(&[("STRATA_WEBSEARCH_URL", " "), ("EXA_API_KEY", "")]);
        assert_eq!((&f.websearch_url, &f.exa_api_key), (&None, &None));
    }

    #[test]
    fn enabled_lists_the_switches_that_are_on() {
        assert!(flags(&[]).enabled().is_empty());
        let on = flags(&[("STRATA_EXPERIMENTAL_LSP_TOOL", "1")]);
        assert_eq!(on.enabled(), [Flag::ExperimentalLspTool]);
    }

    #[test]
    fn for_dirs_sets_only_the_directories() {
        let f = RuntimeFlags::for_dirs("/d", "/t/c");
        assert_eq!(f.data_dir, PathBuf::from("/d"));
        assert_eq!(f.config_dir, PathBuf::from("/t/c"));
        assert_eq!(f.home_dir, PathBuf::from("/t/home"));
        assert_eq!(
            f.opencode_config_dir,
            PathBuf::from("/t/home/.config/opencode")
        );
        assert_eq!(f.temp_dir, std::env::temp_dir());
        assert!(!f.experimental_lsp_tool);
    }
}
