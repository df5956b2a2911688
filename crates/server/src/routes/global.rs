//! `GET /global/health`.

use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::core::convert::VERSION;
use crate::http::AppState;

pub fn routes() -> Router<AppState> {
    Router::new().route("/global/health", get(health))
}

async fn health() -> Json<Value> {
    Json(json!({"healthy": true, "version": VERSION}))
}
