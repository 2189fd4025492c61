//! `GET /api/levels` (what the server runs: levels with their content hashes, the tuning
//! hash, the rules version — so a client can tell before uploading that it runs the same
//! rules) and `GET /api/levels/{level}` (the geometry, for drawing).

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::http::ApiPath;
use crate::catalog::{Hidden, LevelGeometry, LevelSummary};
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;

/// The levels the server accepts runs of.
#[utoipa::path(get, path = "/api/levels", tag = "levels",
    responses((status = 200, body = Vec<LevelSummary>)))]
pub async fn list(State(state): State<AppState>) -> Json<Vec<LevelSummary>> {
    let catalog = &state.catalog;
    Json(
        catalog
            .levels()
            .map(|level| LevelSummary::new(level, catalog))
            .collect(),
    )
}

/// A level's geometry: solids, ramps, moving platforms, zones, checkpoints, finish and kill
/// volumes, in metres (x east, y up, z south), for drawing it from above (x–z) and from the
/// side (x–y). Built-in `sprawl` has 102 401 boxes: its answer is megabytes (gzip if asked).
#[utoipa::path(get, path = "/api/levels/{level}", tag = "levels",
    params(("level" = String, Path, description = "Level name")),
    responses(
        (status = 200, body = LevelGeometry),
        (status = 404, description = "No such level", body = ErrorBody),
    ))]
pub async fn geometry(
    State(state): State<AppState>,
    ApiPath(level): ApiPath<String>,
) -> Result<Response, ApiError> {
    let Some(info) = state
        .catalog
        .resolve(&state.store, &level, Hidden::Refused)
        .await?
    else {
        return Err(ApiError::UnknownLevel { name: level });
    };
    let catalog = state.catalog.clone();
    // Built once per level (sprawl's takes a while) off the async threads, then cached.
    let json = tokio::task::spawn_blocking(move || catalog.geometry_json(&info))
        .await
        .map_err(|e| ApiError::Internal(format!("geometry of {level}: {e}")))?
        .ok_or_else(|| ApiError::Internal(format!("level {level} does not build")))?;
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        axum::body::Bytes::from_owner(json),
    )
        .into_response())
}
