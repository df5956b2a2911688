//! `GET /global/health`.

use axum::Json;
use serde_json::{Value, json};

use super::Endpoint;
use crate::core::convert::VERSION;

pub fn endpoints() -> Vec<Endpoint> {
    vec![Endpoint::get(
        "/global/health",
        "Health and version",
        health,
    )]
}

async fn health() -> Json<Value> {
    Json(json!({"healthy": true, "version": VERSION}))
}
