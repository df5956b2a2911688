//! The event streams: `GET /event` (one project) and `GET /global/event` (all of them), both
//! resumable with `Last-Event-ID`.

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;

use crate::core::EventFilter;
use crate::http::AppState;
use crate::http::dir::Directory;
use crate::http::error::ApiFailure;
use crate::http::sse::{self, Shape};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/event", get(project))
        .route("/global/event", get(global))
}

async fn project(
    State(s): State<AppState>,
    Directory(dir): Directory,
    headers: HeaderMap,
) -> Result<Response, ApiFailure> {
    let entry = s.core.instance(&dir).await?;
    let sub = s.core.subscribe(
        EventFilter::Directory(entry.directory.clone()),
        sse::last_event_id(&headers),
    );
    Ok(sse::response(sub, Shape::Instance))
}

async fn global(State(s): State<AppState>, headers: HeaderMap) -> Response {
    let sub = s
        .core
        .subscribe(EventFilter::All, sse::last_event_id(&headers));
    sse::response(sub, Shape::Global)
}
