//! `PUT /auth/{providerID}` and `DELETE /auth/{providerID}`: a client stores or removes the
//! API key of a provider in the server's data directory (`auth.json`, as `strata auth login`
//! does). The next prompt to that provider uses it; a key variable in the server's
//! environment still wins.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;

use super::Endpoint;
use crate::http::AppState;
use crate::http::error::ApiFailure;
use crate::http::json::Body;

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::put(
            "/auth/{providerID}",
            "Store a provider's API key in the server's data directory",
            set,
        )
        .body::<AuthBody>()
        .json::<bool>(),
        Endpoint::delete(
            "/auth/{providerID}",
            "Remove a provider's stored API key (false when none was stored)",
            remove,
        )
        .json::<bool>(),
    ]
}

/// `PUT /auth/{providerID}`: opencode's `Auth` body; only API keys are stored.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct AuthBody {
    /// `api`: the only kind Strata stores.
    #[serde(rename = "type")]
    pub kind: String,
    /// The API key.
    #[serde(default)]
    pub key: Option<String>,
}

async fn set(
    State(s): State<AppState>,
    Path(provider): Path<String>,
    Body(body): Body<AuthBody>,
) -> Result<Json<bool>, ApiFailure> {
    let key = api_key(&provider, &body).map_err(ApiFailure::bad_request)?;
    s.core
        .credentials()?
        .set(&provider, key)
        .map_err(unwritable)?;
    Ok(Json(true))
}

/// `DELETE /auth/{providerID}`: `true` when a key was removed, `false` when none was stored.
async fn remove(
    State(s): State<AppState>,
    Path(provider): Path<String>,
) -> Result<Json<bool>, ApiFailure> {
    let removed = s.core.credentials()?.remove(&provider);
    removed.map(Json).map_err(unwritable)
}

/// The key file could not be written (a broken file, a read-only data directory).
fn unwritable(detail: String) -> ApiFailure {
    ApiFailure::new(StatusCode::INTERNAL_SERVER_ERROR, "UnknownError", detail)
}

/// The key to store, or why the body is refused.
fn api_key<'a>(provider: &str, body: &'a AuthBody) -> Result<&'a str, String> {
    if body.kind != "api" {
        return Err(format!(
            "`type` is `{}`, but Strata stores only API keys; send {{\"type\": \"api\", \
             \"key\": \"…\"}} with the key of `{provider}`",
            body.kind
        ));
    }
    match body.key.as_deref().map(str::trim) {
        Some(key) if !key.is_empty() => Ok(key),
        _ => Err(format!(
            "the body has no `key`; send {{\"type\": \"api\", \"key\": \"…\"}} with the key of \
             `{provider}`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(kind: &str, key: Option<&str>) -> AuthBody {
        AuthBody {
            kind: kind.into(),
            key: key.map(str::to_string),
        }
    }

    #[test]
    fn only_a_non_blank_api_key_is_accepted() {
        assert_eq!(api_key("groq", &body("api", Some(" gsk-1 "))), Ok("gsk-1"));
        let oauth = api_key("groq", &body("oauth", Some("x"))).unwrap_err();
        assert!(
            oauth.contains("`oauth`") && oauth.contains("`groq`"),
            "{oauth}"
        );
        let blank = api_key("groq", &body("api", Some("  "))).unwrap_err();
        assert!(blank.contains("no `key`"), "{blank}");
        assert!(api_key("groq", &body("api", None)).is_err());
    }
}
