//! The `websearch` config section and the one decision made from it: whether a search backend
//! is configured, which is when the `websearch` tool is shown (spec §9).
//!
//! Precedence: the config's `websearch.url` / `websearch.apiKey`, then the environment
//! (`STRATA_WEBSEARCH_URL`, `EXA_API_KEY`, read into [`RuntimeFlags`]), then Exa's public
//! endpoint without a key.

use crate::flags::RuntimeFlags;

/// Exa's public MCP endpoint, used when neither the config nor the environment names one.
pub const DEFAULT_URL: &str = "https://mcp.exa.ai/mcp";

/// The `websearch` section as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebsearchConfig {
    /// `websearch.enabled`: `true` shows the tool even without a URL or key; `false` hides it
    /// even with one; absent lets a configured URL or key decide.
    pub enabled: Option<bool>,
    /// `websearch.url`: the Exa-compatible MCP endpoint.
    pub url: Option<String>,
    /// `websearch.apiKey`: sent to the endpoint as the `exaApiKey` query parameter.
    pub api_key: Option<String>,
}

/// Where search requests go, resolved from the config and the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchBackend {
    pub url: String,
    pub api_key: Option<String>,
}

impl WebsearchConfig {
    /// Whether a search backend is configured: the `websearch` tool is shown only then.
    pub fn is_configured(&self, flags: &RuntimeFlags) -> bool {
        match self.enabled {
            Some(on) => on,
            None => {
                self.url.is_some()
                    || self.api_key.is_some()
                    || flags.websearch_url.is_some()
                    || flags.exa_api_key.is_some()
            }
        }
    }

    /// The endpoint and key to use (the public endpoint when nothing names one).
    pub fn backend(&self, flags: &RuntimeFlags) -> SearchBackend {
        SearchBackend {
            url: self
                .url
                .clone()
                .or_else(|| flags.websearch_url.clone())
                .unwrap_or_else(|| DEFAULT_URL.to_string()),
            api_key: self.api_key.clone().or_else(|| flags.exa_api_key.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(url: Option<&str>, key: Option<&str>) -> RuntimeFlags {
        let mut f = RuntimeFlags::for_dirs("/d", "/c");
        f.websearch_url = url.map(String::from);
        f.exa_api_key = key.map(String::from);
        f
    }

    fn section(enabled: Option<bool>, url: Option<&str>, key: Option<&str>) -> WebsearchConfig {
        WebsearchConfig {
            enabled,
            url: url.map(String::from),
            api_key: key.map(String::from),
        }
    }

    #[test]
    fn nothing_configured_means_hidden_and_the_public_endpoint() {
        let c = WebsearchConfig::default();
        assert!(!c.is_configured(&flags(None, None)));
        assert_eq!(
            c.backend(&flags(None, None)),
            SearchBackend {
                url: DEFAULT_URL.into(),
                api_key: None
            }
        );
    }

    #[test]
    fn a_url_or_key_from_config_or_environment_shows_the_tool() {
        let none = flags(None, None);
        assert!(section(None, Some("http://127.0.0.1:1/mcp"), None).is_configured(&none));
        assert!(section(None, None, Some("k")).is_configured(&none));
        let c = WebsearchConfig::default();
        assert!(c.is_configured(&flags(Some("http://127.0.0.1:1/mcp"), None)));
        assert!(c.is_configured(&flags(None, Some("k"))));
    }

    #[test]
    fn enabled_decides_when_given() {
        assert!(section(Some(true), None, None).is_configured(&flags(None, None)));
        assert!(
            !section(Some(false), Some("http://x/mcp"), Some("k"))
                .is_configured(&flags(Some("http://y/mcp"), Some("k2")))
        );
    }

    #[test]
    fn config_wins_over_the_environment() {
        let env = flags(Some("http://env/mcp"), Some("env-key"));
        let b = section(None, Some("http://cfg/mcp"), Some("cfg-key")).backend(&env);
        assert_eq!(b.url, "http://cfg/mcp");
        assert_eq!(b.api_key.as_deref(), Some("cfg-key"));
        let b = WebsearchConfig::default().backend(&env);
        assert_eq!(b.url, "http://env/mcp");
        assert_eq!(b.api_key.as_deref(), Some("env-key"));
    }
}
