//! The endpoint of one provider — wire, base URL, key, headers, timeout — from its config and
//! catalogue entries, and the provider built on it.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use super::endpoints::{Sdk, WireKind, is_local, sdk, wire_named};
use super::{KeySource, Resolver, Source};
use crate::provider::{Anthropic, OpenAiCompatible, OpenAiResponses, Provider, ProviderError};

/// Everything needed to call one provider.
#[derive(Debug)]
pub(super) struct Endpoint {
    pub wire: WireKind,
    pub base: String,
    pub key: Option<String>,
    pub headers: HeaderMap,
    pub query: Option<String>,
    pub timeout: Option<Duration>,
    /// Whether `prompt_cache_key` is sent.
    pub cache_key: bool,
}

/// The endpoint of `source`'s provider for `api_model`; the error says what to set.
pub(super) fn endpoint(
    r: &Resolver<'_>,
    source: &Source<'_>,
    api_model: &str,
) -> Result<Endpoint, String> {
    let id = source.id;
    let npm = source.npm();
    let kind = npm.map_or(Sdk::Unknown, sdk);
    let user_base = legacy_env_base(r, id)
        .or_else(|| string(source.option("baseURL")))
        .or_else(|| string(source.config_model.and_then(|m| m.pointer("/provider/api"))));
    let forced = match string(source.option("api")) {
        Some(name) => Some(wire_named(&name).ok_or_else(|| {
            format!(
                "provider.{id}.options.api is `{name}`; use \"responses\" or \"chat\" (or remove \
                 it to let Strata choose)"
            )
        })?),
        None => None,
    };
    let shape = source
        .catalogue_model
        .and_then(|m| m.shape.as_deref())
        .and_then(wire_named);
    let (wire, default_base, query) = sdk_wire(r, source, api_model, user_base.is_some())?;
    let mut headers = HeaderMap::new();
    let wire = forced.or(shape).unwrap_or(wire);
    let catalogue_base = source
        .catalogue_model
        .and_then(|m| m.api.clone())
        .or_else(|| source.catalogue.and_then(|c| c.api.clone()));
    let base = user_base
        .clone()
        .or(catalogue_base)
        .or(default_base)
        .ok_or_else(|| {
            format!(
                "the provider `{id}` has no base URL{}; set provider.{id}.options.baseURL in the \
                 config",
                npm.map(|n| format!(" (its package {n} is not one Strata knows)"))
                    .unwrap_or_default()
            )
        })?;
    let base = expand(r, &base, id)?;
    let key = r.key(source);
    if key.is_none() && user_base.is_none() && !is_local(&base) {
        return Err(missing_key(id, &source.env_names()));
    }
    let mut key = key.map(|(k, _): (String, KeySource)| k);
    if kind == Sdk::Azure
        && let Some(k) = key.take()
    {
        headers.insert("api-key", header_value(&k, id, "apiKey")?);
    }
    extra_headers(source, &mut headers)?;
    Ok(Endpoint {
        wire,
        base,
        key,
        headers,
        query,
        timeout: timeout(source.option("timeout"), id)?,
        cache_key: wire == WireKind::Responses
            || id == "openai"
            || source.option("setCacheKey").and_then(Value::as_bool) == Some(true),
    })
}

/// The wire the provider's SDK speaks, its default base URL, and the query every request
/// carries (Azure's API version); an SDK Strata does not speak is an error saying what to use.
fn sdk_wire(
    r: &Resolver<'_>,
    source: &Source<'_>,
    api_model: &str,
    user_base: bool,
) -> Result<(WireKind, Option<String>, Option<String>), String> {
    let npm = source.npm();
    Ok(match npm.map_or(Sdk::Unknown, sdk) {
        Sdk::Unsupported(what) => {
            return Err(format!(
                "the provider `{}` needs {what} (its package is {}), which Strata does not \
                 speak; use the vendor's OpenAI-compatible endpoint as a custom provider instead",
                source.id,
                npm.unwrap_or("unknown")
            ));
        }
        Sdk::Azure => {
            let (base, version) = azure(r, source, api_model)?;
            (
                WireKind::Chat,
                Some(base),
                Some(format!("api-version={version}")),
            )
        }
        // OpenAI's own SDK means Responses on OpenAI's endpoint; most servers that copy OpenAI
        // at another address only have chat completions.
        Sdk::Speaks {
            wire: WireKind::Responses,
            base,
        } if user_base => (WireKind::Chat, base.map(str::to_string), None),
        Sdk::Speaks { wire, base } => (wire, base.map(str::to_string), None),
        Sdk::Unknown => (WireKind::Chat, None, None),
    })
}

/// The config's `options.headers`, added to `headers`.
fn extra_headers(source: &Source<'_>, headers: &mut HeaderMap) -> Result<(), String> {
    let id = source.id;
    let Some(extra) = source.option("headers").and_then(Value::as_object) else {
        return Ok(());
    };
    for (name, value) in extra {
        let text = value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_string);
        let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            format!("provider.{id}.options.headers has `{name}`, which is not a header name")
        })?;
        headers.insert(header, header_value(&text, id, name)?);
    }
    Ok(())
}

/// The provider for `endpoint`, shown and stored under `id`.
pub(super) fn provider(
    endpoint: Endpoint,
    id: &str,
    _api_model: &str,
) -> Result<Box<dyn Provider>, ProviderError> {
    let Endpoint {
        wire,
        base,
        key,
        headers,
        query,
        timeout,
        cache_key,
    } = endpoint;
    Ok(match wire {
        WireKind::Anthropic => Box::new(
            Anthropic::new(base, key)?
                .named(id)
                .with_headers(headers)
                .with_query(query)
                .with_timeout(timeout)
                .with_cache_key(false),
        ),
        WireKind::Responses => Box::new(
            OpenAiResponses::new(base, key)?
                .named(id)
                .with_headers(headers)
                .with_query(query)
                .with_timeout(timeout)
                .with_cache_key(cache_key),
        ),
        WireKind::Chat => Box::new(
            OpenAiCompatible::new(base, key)?
                .named(id)
                .with_headers(headers)
                .with_query(query)
                .with_timeout(timeout)
                .with_cache_key(cache_key),
        ),
    })
}

/// `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL`, read for those two providers as before.
fn legacy_env_base(r: &Resolver<'_>, id: &str) -> Option<String> {
    match id {
        "openai" => r.env("OPENAI_BASE_URL"),
        "anthropic" => r.env("ANTHROPIC_BASE_URL"),
        _ => None,
    }
}

fn string(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// `${VAR}` in a catalogue URL, from the environment; a missing variable is named.
fn expand(r: &Resolver<'_>, url: &str, id: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = url;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[at..]);
            return Ok(out);
        };
        let var = &after[..end];
        let value = r.env(var).ok_or_else(|| {
            format!(
                "the provider `{id}`'s endpoint {url} needs the environment variable {var}; set \
                 it, or set provider.{id}.options.baseURL in the config"
            )
        })?;
        out.push_str(&value);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Azure OpenAI's deployment URL and API version.
fn azure(r: &Resolver<'_>, source: &Source<'_>, model: &str) -> Result<(String, String), String> {
    let id = source.id;
    let resource = string(source.option("resourceName")).or_else(|| r.env("AZURE_RESOURCE_NAME"));
    let version = string(source.option("apiVersion")).or_else(|| r.env("AZURE_API_VERSION"));
    match (resource, version) {
        (Some(resource), Some(version)) => Ok((
            format!("https://{resource}.openai.azure.com/openai/deployments/{model}"),
            version,
        )),
        (resource, _) => Err(format!(
            "Azure needs {} in the config: provider.{id}.options.resourceName (your resource's \
             name, or AZURE_RESOURCE_NAME) and provider.{id}.options.apiVersion (e.g. \
             \"2024-10-21\", or AZURE_API_VERSION)",
            if resource.is_none() {
                "a resource name and an API version"
            } else {
                "an API version"
            }
        )),
    }
}

fn missing_key(id: &str, names: &[String]) -> String {
    let vars = if names.is_empty() {
        String::new()
    } else {
        format!("set {} or ", names.join(" or "))
    };
    format!(
        "no API key for the provider `{id}`: {vars}run `strata auth login {id}`, or set \
         provider.{id}.options.apiKey in the config (a base URL on this machine needs no key)"
    )
}

fn header_value(text: &str, id: &str, field: &str) -> Result<HeaderValue, String> {
    HeaderValue::from_str(text).map_err(|_| {
        format!(
            "the value for `{field}` of provider `{id}` has characters an HTTP header cannot \
             carry; check it"
        )
    })
}

/// `options.timeout` in milliseconds (`false`: none).
fn timeout(v: Option<&Value>, id: &str) -> Result<Option<Duration>, String> {
    match v {
        None | Some(Value::Bool(false)) | Some(Value::Null) => Ok(None),
        Some(n) => n
            .as_u64()
            .filter(|n| *n > 0)
            .map(|ms| Some(Duration::from_millis(ms)))
            .ok_or_else(|| {
                format!(
                    "provider.{id}.options.timeout must be a number of milliseconds or false, \
                     but it is {n}"
                )
            }),
    }
}
