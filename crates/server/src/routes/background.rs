//! A session's background shells: list them, kill one (spec §7.6).

use axum::Json;
use axum::extract::{Path, State};

use super::Endpoint;
use crate::core::background::BackgroundShell;
use crate::http::AppState;
use crate::http::error::ApiFailure;

type Result<T> = std::result::Result<Json<T>, ApiFailure>;

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get(
            "/session/{id}/background",
            "The session's background shells: id, command, status, exit code, start time",
            list,
        )
        .json::<Vec<BackgroundShell>>(),
        Endpoint::delete(
            "/session/{id}/background/{shell}",
            "End a background shell and its whole process group",
            kill,
        )
        .json::<BackgroundShell>(),
    ]
}

async fn list(State(s): State<AppState>, Path(id): Path<String>) -> Result<Vec<BackgroundShell>> {
    Ok(Json(s.core.background(&id).await?))
}

async fn kill(
    State(s): State<AppState>,
    Path((id, shell)): Path<(String, String)>,
) -> Result<BackgroundShell> {
    Ok(Json(s.core.kill_background(&id, &shell).await?))
}
