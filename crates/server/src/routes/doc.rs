//! `GET /doc`: the OpenAPI document of the routes this server serves.

use axum::routing::get;
use axum::{Json, Router};
use serde_json::Value;

use crate::http::AppState;

pub fn routes() -> Router<AppState> {
    Router::new().route("/doc", get(doc))
}

async fn doc() -> Json<Value> {
    Json(super::table::openapi())
}
