//! `POST /api/players`: register a name, get a token (shown once).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::http::ApiJson;
use crate::auth;
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;
use crate::times::now_ms;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Registration {
    /// 1–32 letters or digits of any script, space, `-`, `_`, `.` or `'`; no space at either
    /// end or two in a row (`pogo_replay::check_player_name`). Unique ignoring case.
    pub name: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Registered {
    pub name: String,
    /// The API token, `pogo_` and 64 hex digits: send it as `Authorization: Bearer TOKEN`.
    /// Shown this once; the server keeps only its hash.
    pub token: String,
}

/// Register a player name and get its API token.
///
/// The name must be exactly the `player_name` in the header of every replay uploaded with
/// the token. Names are unique ignoring case: `Bot` cannot be registered beside `bot`.
#[utoipa::path(post, path = "/api/players", tag = "players",
    request_body = Registration,
    responses(
        (status = 201, description = "Registered; the token is shown once", body = Registered),
        (status = 400, description = "Bad JSON or a name that breaks the rule (`bad_json`, `bad_name`)", body = ErrorBody),
        (status = 409, description = "The name is taken (`name_taken`)", body = ErrorBody),
        (status = 413, description = "Body over 4 KiB", body = ErrorBody),
        (status = 415, description = "Not `application/json`", body = ErrorBody),
        (status = 429, description = "Rate limited (per address)", body = ErrorBody),
    ))]
pub async fn register(
    State(state): State<AppState>,
    ApiJson(registration): ApiJson<Registration>,
) -> Result<Response, ApiError> {
    let name = registration.name;
    pogo_replay::check_player_name(&name).map_err(ApiError::BadName)?;
    let (token, hash) = auth::new_token()?;
    match state
        .store
        .players()
        .register(&name, &hash, now_ms())
        .await?
    {
        Some(player) => {
            tracing::info!(player = %player.name, id = player.id, "registered");
            Ok(super::http::with_status(
                StatusCode::CREATED,
                Registered {
                    name: player.name,
                    token,
                },
            ))
        }
        None => Err(ApiError::NameTaken { name }),
    }
}
