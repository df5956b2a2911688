//! The event streams: `GET /event` (one project) and `GET /global/event` (all of them), both
//! resumable with `Last-Event-ID`.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use strata_protocol::wire::{Envelope, GlobalEnvelope};

use super::Endpoint;
use crate::core::EventFilter;
use crate::http::AppState;
use crate::http::dir::Directory;
use crate::http::error::ApiFailure;
use crate::http::sse::{self, Shape};

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get(
            "/event",
            "The project's events (SSE, resumable with Last-Event-ID)",
            project,
        )
        .events::<Envelope>(),
        Endpoint::get(
            "/global/event",
            "Every project's events (SSE, resumable with Last-Event-ID)",
            global,
        )
        .events::<GlobalEnvelope>(),
    ]
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
