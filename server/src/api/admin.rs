//! Admin routes (enabled by `ADMIN_TOKEN`): hide a run or a player. A hidden run, or any run
//! of a hidden player, is off every leaderboard and answers 404 to everyone; a hidden player
//! cannot upload. Hiding is undone with `{"hidden": false}`. Nothing is deleted.

use axum::Json;
use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::AdminToken;
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Hidden {
    pub hidden: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RunHidden {
    pub id: i64,
    pub hidden: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerHidden {
    /// The name as registered.
    pub name: String,
    pub hidden: bool,
}

/// Hide (or show again) a run.
#[utoipa::path(put, path = "/api/admin/runs/{id}/hidden", tag = "admin",
    params(("id" = i64, Path, description = "Run id")),
    request_body = Hidden,
    security(("bearer" = [])),
    responses(
        (status = 200, body = RunHidden),
        (status = 400, body = ErrorBody),
        (status = 401, description = "No token", body = ErrorBody),
        (status = 403, description = "Not the admin token, or admin routes off", body = ErrorBody),
        (status = 404, description = "No such run", body = ErrorBody),
    ))]
pub async fn hide_run(
    State(state): State<AppState>,
    headers: HeaderMap,
    id: Result<Path<i64>, PathRejection>,
    body: Result<Json<Hidden>, JsonRejection>,
) -> Result<Json<RunHidden>, ApiError> {
    AdminToken::check(state.admin.as_ref(), &headers)?;
    let Path(id) = id?;
    let Json(Hidden { hidden }) = body?;
    if !state.store.set_run_hidden(id, hidden).await? {
        return Err(ApiError::UnknownRun { id });
    }
    tracing::info!(run = id, hidden, "admin: run visibility");
    Ok(Json(RunHidden { id, hidden }))
}

/// Hide (or show again) a player and all their runs; a hidden player cannot upload.
#[utoipa::path(put, path = "/api/admin/players/{name}/hidden", tag = "admin",
    params(("name" = String, Path, description = "Player name (any case)")),
    request_body = Hidden,
    security(("bearer" = [])),
    responses(
        (status = 200, body = PlayerHidden),
        (status = 400, body = ErrorBody),
        (status = 401, description = "No token", body = ErrorBody),
        (status = 403, description = "Not the admin token, or admin routes off", body = ErrorBody),
        (status = 404, description = "No such player", body = ErrorBody),
    ))]
pub async fn hide_player(
    State(state): State<AppState>,
    headers: HeaderMap,
    name: Result<Path<String>, PathRejection>,
    body: Result<Json<Hidden>, JsonRejection>,
) -> Result<Json<PlayerHidden>, ApiError> {
    AdminToken::check(state.admin.as_ref(), &headers)?;
    let Path(name) = name?;
    let Json(Hidden { hidden }) = body?;
    match state.store.set_player_hidden(&name, hidden).await? {
        Some(name) => {
            tracing::info!(player = %name, hidden, "admin: player visibility");
            Ok(Json(PlayerHidden { name, hidden }))
        }
        None => Err(ApiError::UnknownPlayer { name }),
    }
}
