//! Admin routes (enabled by `ADMIN_TOKEN`): hide a run (with a reason) or a player, and look
//! at a run as the admin sees it. A hidden run, or any run of a hidden player, is off every
//! leaderboard and export and answers 404 to everyone else; a hidden player cannot upload.
//! Hiding is undone with `{"hidden": false}`. Nothing is deleted.
//!
//! The reason for hiding a run is the admin's note, shown only on the admin routes: public
//! routes answer a hidden run with the same 404 as a run that never existed, so they do not
//! reveal that a run was moderated, nor why (a reason may name a cheat's method, which would
//! teach it, or another player's report). A player who asks is told by the operator.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::caller::Admin;
use super::http::{ApiJson, ApiPath};
use super::runs::{RunStatus, run_status};
use crate::error::{ApiError, ErrorBody};
use crate::limits::HIDDEN_REASON_CHARS_MAX;
use crate::state::AppState;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Hidden {
    /// `true` hides, `false` shows again.
    pub hidden: bool,
}

/// Hide a run (`{"hidden": true, "reason": "…"}`) or show it again (`{"hidden": false}`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HideRun {
    pub hidden: bool,
    /// Why: required when hiding (1–500 characters, no control characters, not only spaces);
    /// not allowed when showing again (the reason is cleared).
    #[schema(
        min_length = 1,
        max_length = 500,
        example = "desync found by hand at 1:02"
    )]
    pub reason: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RunHidden {
    pub id: i64,
    pub hidden: bool,
    /// The reason stored (`null` when shown).
    pub reason: Option<String>,
}

/// A run as the admin sees it: the public status document (even while hidden) and the
/// moderation state.
#[derive(Debug, Serialize, ToSchema)]
pub struct AdminRun {
    pub run: RunStatus,
    /// The run itself is hidden.
    pub hidden: bool,
    /// Why (`null` when shown, or hidden before reasons were stored).
    pub hidden_reason: Option<String>,
    /// Its player is hidden (so the run is off the boards whatever `hidden` says).
    pub player_hidden: bool,
}

/// The reason of a hide request: `Some` when hiding, `None` when showing, or why the request
/// is refused.
fn checked_reason(request: HideRun) -> Result<Option<String>, ApiError> {
    match (request.hidden, request.reason) {
        (true, None) => Err(ApiError::BadJson(
            "hiding a run needs a `reason` (1–500 characters), e.g. \
             {\"hidden\": true, \"reason\": \"desync at 1:02\"}"
                .into(),
        )),
        (false, Some(_)) => Err(ApiError::BadJson(
            "`reason` is for hiding; showing a run again clears it: send {\"hidden\": false}"
                .into(),
        )),
        (false, None) => Ok(None),
        (true, Some(reason)) => {
            let chars = reason.chars().count();
            if chars == 0 || chars > HIDDEN_REASON_CHARS_MAX {
                return Err(ApiError::BadJson(format!(
                    "`reason` has {chars} characters: it must have 1–{HIDDEN_REASON_CHARS_MAX}"
                )));
            }
            if let Some(c) = reason.chars().find(|c| c.is_control()) {
                return Err(ApiError::BadJson(format!(
                    "`reason` must be printable: it holds the control character {c:?}"
                )));
            }
            if reason.trim().is_empty() {
                return Err(ApiError::BadJson("`reason` is only spaces".into()));
            }
            Ok(Some(reason))
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerHidden {
    /// The name as registered.
    pub name: String,
    pub hidden: bool,
}

/// Hide a run, with the admin's reason, or show it again.
///
/// Hiding needs `reason` (1–500 printable characters); `{"hidden": false}` shows the run and
/// clears the reason. A request without a reason, with a reason when showing, or with a bad
/// one is answered 400 (`bad_json`) and changes nothing. The reason is shown on
/// `GET /api/admin/runs/{id}` only, never publicly (see the module's documentation).
#[utoipa::path(put, path = "/api/admin/runs/{id}/hidden", tag = "admin",
    params(("id" = i64, Path, description = "Run id")),
    request_body = HideRun,
    security(("bearer" = [])),
    responses(
        (status = 200, body = RunHidden),
        (status = 400, description = "Not JSON of this shape, no `reason` when hiding, a `reason` when showing, or a bad `reason` (`bad_json`); a bad id (`bad_parameter`)", body = ErrorBody),
        (status = 401, description = "No token", body = ErrorBody),
        (status = 403, description = "Not the admin token, or admin routes off", body = ErrorBody),
        (status = 404, description = "No such run", body = ErrorBody),
    ))]
pub async fn hide_run(
    State(state): State<AppState>,
    _admin: Admin,
    ApiPath(id): ApiPath<i64>,
    ApiJson(request): ApiJson<HideRun>,
) -> Result<Json<RunHidden>, ApiError> {
    let reason = checked_reason(request)?;
    if !state
        .store
        .runs()
        .set_run_hidden(id, reason.as_deref())
        .await?
    {
        return Err(ApiError::UnknownRun { id });
    }
    let hidden = reason.is_some();
    tracing::info!(
        run = id,
        hidden,
        reason = reason.as_deref(),
        "admin: run visibility"
    );
    Ok(Json(RunHidden { id, hidden, reason }))
}

/// A run as the admin sees it, hidden or not: its status and why it is hidden.
#[utoipa::path(get, path = "/api/admin/runs/{id}", tag = "admin",
    params(("id" = i64, Path, description = "Run id")),
    security(("bearer" = [])),
    responses(
        (status = 200, body = AdminRun),
        (status = 400, description = "Not a run id", body = ErrorBody),
        (status = 401, description = "No token", body = ErrorBody),
        (status = 403, description = "Not the admin token, or admin routes off", body = ErrorBody),
        (status = 404, description = "No such run", body = ErrorBody),
    ))]
pub async fn run(
    State(state): State<AppState>,
    _admin: Admin,
    ApiPath(id): ApiPath<i64>,
) -> Result<Json<AdminRun>, ApiError> {
    let row = state
        .store
        .runs()
        .run(id)
        .await?
        .ok_or(ApiError::UnknownRun { id })?;
    let (hidden, hidden_reason, player_hidden) =
        (row.run_hidden, row.hidden_reason.clone(), row.player_hidden);
    Ok(Json(AdminRun {
        run: run_status(&state, row).await?,
        hidden,
        hidden_reason,
        player_hidden,
    }))
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
    _admin: Admin,
    ApiPath(name): ApiPath<String>,
    ApiJson(Hidden { hidden }): ApiJson<Hidden>,
) -> Result<Json<PlayerHidden>, ApiError> {
    match state
        .store
        .players()
        .set_player_hidden(&name, hidden)
        .await?
    {
        Some(name) => {
            tracing::info!(player = %name, hidden, "admin: player visibility");
            Ok(Json(PlayerHidden { name, hidden }))
        }
        None => Err(ApiError::UnknownPlayer { name }),
    }
}
