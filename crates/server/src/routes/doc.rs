//! `GET /doc`: the OpenAPI document of the routes this server serves, built once from their
//! declarations.

use std::sync::OnceLock;

use axum::Json;
use serde_json::Value;

use super::Endpoint;

pub fn endpoints() -> Vec<Endpoint> {
    vec![Endpoint::get("/doc", "This document", doc)]
}

async fn doc() -> Json<Value> {
    static DOC: OnceLock<Value> = OnceLock::new();
    Json(
        DOC.get_or_init(|| super::openapi::openapi(&super::all_routes()))
            .clone(),
    )
}
