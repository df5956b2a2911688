//! The `websearch` Tool implementation: permission, the JSON-RPC request and its answer.

use std::time::{Duration, SystemTime};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value, json};
use strata_services::clock::Clock;
use strata_services::clock::{civil_date, epoch_ms};
use strata_services::config::{Config, SearchBackend};
use strata_services::flags::RuntimeFlags;
use strata_services::http::{HttpClient, HttpError, RequestOptions};

use super::reply::{Reply, parse_reply};
use crate::contract::{Ask, Effects, Tool, ToolCx, ToolError, ToolResult, Visibility};

/// The limit for the whole exchange with the search endpoint.
pub const TIMEOUT: Duration = Duration::from_secs(25);
/// Search answers are text for a model; anything larger is refused.
const MAX_BYTES: usize = 5 * 1024 * 1024;
const DEFAULT_RESULTS: u64 = 8;
/// Names the backend in titles and metadata.
const PROVIDER: &str = "exa";
const LABEL: &str = "Exa web search";

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Livecrawl {
    #[default]
    Fallback,
    Preferred,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SearchType {
    #[default]
    Auto,
    Fast,
    Deep,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebsearchParams {
    /// What to search for.
    pub query: String,
    /// How many results to return (default 8).
    pub num_results: Option<Number>,
    /// `fallback` (default): crawl a page live only when no cached copy exists; `preferred`:
    /// crawl live first.
    pub livecrawl: Option<Livecrawl>,
    /// `auto` (default, balanced), `fast` (quick) or `deep` (thorough).
    #[serde(rename = "type")]
    pub kind: Option<SearchType>,
    /// Upper bound on the length of the returned text, in characters.
    pub context_max_characters: Option<Number>,
}

#[derive(Debug)]
pub struct Websearch {
    http: HttpClient,
    backend: SearchBackend,
    year: i64,
}

impl Tool for Websearch {
    const ID: &'static str = "websearch";
    const VISIBILITY: Visibility = Visibility::Backend("websearch");
    const EFFECTS: Effects = Effects {
        read_only: true,
        destructive: false,
        concurrency_safe: true,
        open_world: true,
    };
    type Params = WebsearchParams;
    type Deps = (HttpClient, Config, RuntimeFlags, Clock);

    fn init((http, config, flags, clock): Self::Deps) -> Self {
        Websearch {
            http,
            backend: config.websearch.backend(&flags),
            year: year_of(clock.now()),
        }
    }

    fn description(&self) -> String {
        include_str!("description.md").replace("{year}", &self.year.to_string())
    }

    async fn execute(&self, p: WebsearchParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        if p.query.trim().is_empty() {
            return Err(ToolError::model(
                "`query` is empty. Send the words to search for.",
            ));
        }
        let mut arguments = Map::new();
        arguments.insert("query".into(), json!(p.query));
        arguments.insert("type".into(), json!(p.kind.unwrap_or_default()));
        let results = p.num_results.clone().unwrap_or(DEFAULT_RESULTS.into());
        arguments.insert("numResults".into(), Value::Number(results));
        arguments.insert("livecrawl".into(), json!(p.livecrawl.unwrap_or_default()));
        if let Some(n) = &p.context_max_characters {
            arguments.insert("contextMaxCharacters".into(), Value::Number(n.clone()));
        }

        let mut provider = Map::new();
        provider.insert("provider".into(), json!(PROVIDER));
        cx.metadata(Some(format!("{LABEL} \"{}\"", p.query)), provider);
        let mut ask_meta = arguments.clone();
        ask_meta.insert("provider".into(), json!(PROVIDER));
        cx.ask(
            Ask::new(Self::PERMISSION, vec![p.query.clone()], vec!["*".into()])
                .metadata(Value::Object(ask_meta)),
        )
        .await?;

        let body = json!({
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "web_search_exa", "arguments": arguments},
        });
        let text = self.call(&body, &cx).await?;
        let output = match parse_reply(&text) {
            Reply::Text(t) => t,
            Reply::Empty => {
                "No search results were found. Try a different or broader query.".to_string()
            }
            Reply::Error(message) => {
                return Err(ToolError::model(format!(
                    "The search service reported an error: {message}"
                )));
            }
        };
        Ok(ToolResult::new(format!("{LABEL}: {}", p.query), output).meta("provider", PROVIDER))
    }
}

impl Websearch {
    /// POSTs the request and returns the body of a successful answer. The key never appears
    /// in a message: errors name the endpoint without it.
    async fn call(&self, body: &Value, cx: &ToolCx) -> Result<String, ToolError> {
        let endpoint = &self.backend.url;
        let url = with_key(endpoint, self.backend.api_key.as_deref())?;
        let opts = RequestOptions {
            timeout: Some(TIMEOUT),
            max_bytes: Some(MAX_BYTES),
            headers: vec![(
                "accept".into(),
                "application/json, text/event-stream".into(),
            )],
            cancel: Some(cx.abort.clone()),
        };
        let response = self.http.post_json(&url, body, opts).await.map_err(|e| {
            let message = e.to_string().replace(&url, endpoint);
            match e {
                HttpError::Cancelled { .. } => ToolError::Cancelled,
                HttpError::Timeout { .. } => ToolError::model(format!(
                    "The search service at {endpoint} did not answer within {} seconds. Try \
                     again, or search for something narrower.",
                    TIMEOUT.as_secs()
                )),
                _ => ToolError::model(format!("The web search failed: {message}.")),
            }
        })?;
        let text = response.text();
        if !response.status.is_success() {
            let excerpt: String = text.chars().take(300).collect();
            return Err(ToolError::model(format!(
                "The search service answered {} to POST {endpoint}: {}",
                response.status,
                excerpt.trim()
            )));
        }
        Ok(text)
    }
}

/// The endpoint with the key as the `exaApiKey` query parameter (URL-encoded).
fn with_key(endpoint: &str, key: Option<&str>) -> Result<String, ToolError> {
    let Some(key) = key else {
        return Ok(endpoint.to_string());
    };
    let mut url = url::Url::parse(endpoint).map_err(|e| {
        ToolError::model(format!(
            "The web search endpoint `{endpoint}` is not a valid URL ({e}); fix `websearch.url` \
             in strata.json or STRATA_WEBSEARCH_URL."
        ))
    })?;
    url.query_pairs_mut().append_pair("exaApiKey", key);
    Ok(url.to_string())
}

/// The calendar year of `t` (UTC), for the description.
fn year_of(t: SystemTime) -> i64 {
    civil_date(epoch_ms(t)).0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years_from_timestamps() {
        let at = |s: u64| year_of(std::time::UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), 1970);
        assert_eq!(at(951_782_400), 2000); // 2000-02-29
        assert_eq!(at(1_735_689_599), 2024); // 2024-12-31 23:59:59
        assert_eq!(at(1_735_689_600), 2025); // 2025-01-01
        assert_eq!(at(1_798_761_599), 2026); // 2026-12-31 23:59:59
    }

    #[test]
    fn the_key_is_an_encoded_query_parameter() {
        assert_eq!(with_key("http://h/mcp", None).unwrap(), "http://h/mcp");
        assert_eq!(
            with_key("http://h/mcp", Some("a b&c")).unwrap(),
            "http://h/mcp?exaApiKey=a+b%26c"
        );
        assert_eq!(
            with_key("http://h/mcp?x=1", Some("k")).unwrap(),
            "http://h/mcp?x=1&exaApiKey=k"
        );
    }
}
