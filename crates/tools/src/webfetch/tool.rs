//! The `webfetch` Tool implementation: checks, permission, the request and the conversion.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use strata_services::http::{HttpClient, HttpError, HttpResponse, RequestOptions};

use super::convert;
use crate::contract::{Ask, Attachment, Effects, Tool, ToolCx, ToolError, ToolResult};

/// The largest body read: 5 MiB, enforced while the body streams in.
pub const MAX_BYTES: usize = 5 * 1024 * 1024;
/// The timeout when the call gives none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest timeout a call may ask for.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(120);

/// A mainstream desktop browser, so sites serve their normal pages.
const BROWSER_USER_AGENT: &str = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) \
    AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36";
/// Sent on the one retry after a Cloudflare challenge, which lets honest bots through.
const PLAIN_USER_AGENT: &str = "strata";

/// Image types shown as text, not attached.
const NOT_ATTACHED: &[&str] = &["image/svg+xml", "image/vnd.fastbidsheet"];

/// The form of the returned content.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Text,
    #[default]
    Markdown,
    Html,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Markdown => "markdown",
            Format::Html => "html",
        }
    }

    /// The `Accept` header: the preferred form first (spec §8 step 4).
    fn accept(self) -> &'static str {
        match self {
            Format::Markdown => {
                "text/markdown;q=1.0, text/x-markdown;q=0.9, text/plain;q=0.8, \
                 text/html;q=0.7, */*;q=0.1"
            }
            Format::Text => "text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1",
            Format::Html => {
                "text/html;q=1.0, application/xhtml+xml;q=0.9, text/plain;q=0.8, \
                 text/markdown;q=0.7, */*;q=0.1"
            }
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct WebfetchParams {
    /// The address to fetch, starting with http:// or https://.
    pub url: String,
    /// How to return the content: markdown (default), text, or html.
    #[schemars(extend("default" = "markdown"))]
    pub format: Option<Format>,
    /// Timeout in seconds (default 30, at most 120).
    pub timeout: Option<f64>,
}

#[derive(Debug)]
pub struct Webfetch {
    http: HttpClient,
}

impl Tool for Webfetch {
    const ID: &'static str = "webfetch";
    const EFFECTS: Effects = Effects {
        read_only: true,
        destructive: false,
        concurrency_safe: true,
        open_world: true,
    };
    type Params = WebfetchParams;
    type Deps = (HttpClient,);

    fn init((http,): Self::Deps) -> Self {
        Webfetch { http }
    }

    fn description(&self) -> String {
        include_str!("description.md").to_string()
    }

    async fn execute(&self, p: WebfetchParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        check_scheme(&p.url)?;
        let format = p.format.unwrap_or_default();
        let timeout = timeout_of(p.timeout)?;
        let mut metadata = json!({"url": p.url, "format": format.as_str()});
        if let Some(t) = p.timeout {
            metadata["timeout"] = json!(t);
        }
        cx.ask(
            Ask::new(Self::PERMISSION, vec![p.url.clone()], vec!["*".into()]).metadata(metadata),
        )
        .await?;
        let mut response = self
            .fetch(&p.url, format, timeout, &cx, BROWSER_USER_AGENT)
            .await?;
        if response.status == 403 && response.header("cf-mitigated") == Some("challenge") {
            response = self
                .fetch(&p.url, format, timeout, &cx, PLAIN_USER_AGENT)
                .await?;
        }
        if !response.status.is_success() {
            return Err(ToolError::model(format!(
                "The request failed: {} GET {} ({}). Check the address; the page may have moved \
                 or need a login.",
                response.status.as_u16(),
                p.url,
                response
                    .status
                    .canonical_reason()
                    .unwrap_or("no reason given"),
            )));
        }
        let content_type = response.header("content-type").unwrap_or("").to_string();
        let mime = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let title = format!("{} ({content_type})", p.url);
        if mime.starts_with("image/") && !NOT_ATTACHED.contains(&mime.as_str()) {
            return Ok(
                ToolResult::new(title, "Image fetched and attached to this message.")
                    .attach(Attachment::from_bytes(mime, &response.body, None)),
            );
        }
        let body = into_text(response);
        let html = content_type.to_ascii_lowercase().contains("text/html");
        let output = match (format, html) {
            (Format::Markdown, true) => convert_off_thread(body, convert::markdown).await?,
            (Format::Text, true) => convert_off_thread(body, convert::visible_text).await?,
            _ => body,
        };
        Ok(ToolResult::new(title, output))
    }
}

impl Webfetch {
    async fn fetch(
        &self,
        url: &str,
        format: Format,
        timeout: Duration,
        cx: &ToolCx,
        user_agent: &str,
    ) -> Result<HttpResponse, ToolError> {
        let opts = RequestOptions {
            timeout: Some(timeout),
            max_bytes: Some(MAX_BYTES),
            headers: vec![
                ("user-agent".into(), user_agent.into()),
                ("accept".into(), format.accept().into()),
                ("accept-language".into(), "en-US,en;q=0.9".into()),
            ],
            cancel: Some(cx.abort.clone()),
        };
        self.http
            .get(url, opts)
            .await
            .map_err(|e| fetch_error(url, timeout, e))
    }
}

/// Only http and https, checked before any permission ask or request.
fn check_scheme(url: &str) -> Result<(), ToolError> {
    let scheme = url.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
    if matches!(scheme.as_deref(), Some("http" | "https")) && url::Url::parse(url).is_ok() {
        return Ok(());
    }
    Err(ToolError::model(format!(
        "`{url}` cannot be fetched: only complete http:// and https:// URLs are accepted. \
         Pass the full address, for example https://example.com/page."
    )))
}

/// The call's timeout: seconds, default 30, capped at 120.
fn timeout_of(seconds: Option<f64>) -> Result<Duration, ToolError> {
    let Some(s) = seconds else {
        return Ok(DEFAULT_TIMEOUT);
    };
    if !(s.is_finite() && s > 0.0) {
        return Err(ToolError::model(format!(
            "`timeout` must be a positive number of seconds (at most {}), but it is {s}.",
            MAX_TIMEOUT.as_secs()
        )));
    }
    Ok(Duration::from_secs_f64(s.min(MAX_TIMEOUT.as_secs_f64())))
}

fn fetch_error(url: &str, timeout: Duration, e: HttpError) -> ToolError {
    match e {
        HttpError::Cancelled { .. } => ToolError::Cancelled,
        HttpError::Timeout { .. } => ToolError::model(format!(
            "No complete response arrived from {url} within {} seconds. The server may be slow \
             or unreachable; try again, or pass a larger `timeout` (at most {} seconds).",
            timeout.as_secs_f64(),
            MAX_TIMEOUT.as_secs()
        )),
        HttpError::TooLarge { .. } => ToolError::model(format!(
            "The response from {url} is larger than the 5 MB limit ({MAX_BYTES} bytes), so it \
             was not read. Fetch a smaller or more specific page."
        )),
        other => ToolError::model(format!("Fetching {url} failed: {other}.")),
    }
}

/// The body as UTF-8 text (invalid sequences replaced), without copying a valid body.
fn into_text(response: HttpResponse) -> String {
    let bytes: Vec<u8> = response.body.into();
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// HTML conversion is CPU work on up to 5 MiB: it runs on a blocking thread.
async fn convert_off_thread(
    body: String,
    convert: fn(&str) -> Result<String, String>,
) -> Result<String, ToolError> {
    tokio::task::spawn_blocking(move || convert(&body))
        .await
        .map_err(|e| ToolError::fatal(format!("the HTML conversion stopped unexpectedly: {e}")))?
        .map_err(|e| ToolError::model(format!("The page could not be converted: {e}.")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_and_https_pass() {
        for ok in [
            "http://example.com",
            "https://example.com/a?b",
            "HTTPS://example.com",
        ] {
            assert!(check_scheme(ok).is_ok(), "{ok}");
        }
        for bad in [
            "file:///etc/passwd",
            "data:text/plain,hi",
            "ftp://example.com",
            "example.com",
            "//example.com",
            "http://",
            "",
        ] {
            let e = check_scheme(bad).unwrap_err().to_string();
            assert!(
                e.contains("http://") && e.contains("https://"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn timeout_defaults_caps_and_refuses_nonsense() {
        assert_eq!(timeout_of(None).unwrap(), Duration::from_secs(30));
        assert_eq!(timeout_of(Some(5.0)).unwrap(), Duration::from_secs(5));
        assert_eq!(timeout_of(Some(0.5)).unwrap(), Duration::from_millis(500));
        assert_eq!(timeout_of(Some(600.0)).unwrap(), Duration::from_secs(120));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(timeout_of(Some(bad)).is_err(), "{bad}");
        }
    }
}
