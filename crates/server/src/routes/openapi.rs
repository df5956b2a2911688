//! The OpenAPI document (`GET /doc`) of the declared routes ([`Endpoint`](super::Endpoint)):
//! one operation per route, its path parameters and `?directory=`, its body and answer schemas
//! from the types themselves, and the error body for 400 and 404 (and 409 where a route
//! declares what it means).

use std::collections::BTreeMap;

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};
use strata_protocol::wire::ApiError;

use super::endpoint::Answer::{Empty, Events, Json};
use super::endpoint::Route;
use crate::core::convert::VERSION;

fn params(path: &str) -> Vec<Value> {
    let mut out: Vec<Value> = path
        .split('/')
        .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
        .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
        .collect();
    out.push(json!({"name": "directory", "in": "query", "required": false, "schema": {"type": "string"}}));
    out
}

/// The OpenAPI 3.1 document of `routes`.
pub fn openapi(routes: &[Route]) -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.definitions_path = "/components/schemas".into();
    let mut g = settings.into_generator();
    let error = g.subschema_for::<ApiError>().to_value();
    let mut paths: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    for route in routes {
        let ok = match route.answer {
            Json(schema) => {
                json!({"200": {"description": "OK", "content": {"application/json": {"schema": schema(&mut g).to_value()}}}})
            }
            Empty => json!({"204": {"description": "Accepted"}}),
            Events(schema) => {
                json!({"200": {"description": "Server-sent events; each `data:` line is one item", "content": {"text/event-stream": {"schema": schema(&mut g).to_value()}}}})
            }
        };
        let mut responses = ok.as_object().cloned().unwrap_or_default();
        let errors = [("400", Some("Bad request")), ("404", Some("Not found"))]
            .into_iter()
            .chain([("409", route.conflict)]);
        for (code, what) in errors {
            let Some(what) = what else { continue };
            responses.insert(
                code.into(),
                json!({"description": what, "content": {"application/json": {"schema": error}}}),
            );
        }
        let mut op = json!({
            "summary": route.summary,
            "parameters": params(&route.doc_path()),
            "responses": responses,
        });
        if let Some(body) = route.body {
            op["requestBody"] =
                json!({"content": {"application/json": {"schema": body(&mut g).to_value()}}});
        }
        paths
            .entry(route.doc_path())
            .or_default()
            .insert(route.method.into(), op);
    }
    json!({
        "openapi": "3.1.0",
        "info": {"title": "Strata server", "version": VERSION},
        "paths": paths,
        "components": {
            "schemas": g.take_definitions(true),
            "securitySchemes": {"basic": {"type": "http", "scheme": "basic"}},
        },
    })
}
