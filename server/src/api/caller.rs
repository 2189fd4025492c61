//! Who is calling, as axum extractors (axum's `jwt` example: `impl FromRequestParts for
//! Claims`): a handler that needs a player takes a [`Player`] argument, an admin route an
//! [`Admin`] one, and there is no other way to get either from a request. A refusal is an
//! [`ApiError`] (401 or 403), so it becomes a status where every failure does.
//!
//! axum runs a handler's extractors in the order of its parameters, and answers the first
//! refusal: a handler that checks something cheaper first (a malformed ticket id is 400
//! before the token is looked at) takes that check's extractor before the `Player`
//! (`tickets::TicketId`, `tracks::TrackId`). The upload takes `Result<Player, ApiError>`
//! and applies `?` itself, to count a refused token in its metrics.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use crate::auth::{self, AdminToken, TokenRefused};
use crate::error::ApiError;
use crate::state::AppState;

/// The player behind the request's bearer token: registered, and not hidden.
///
/// Refused with 401 `missing_token` (no bearer token), 401 `bad_token` (not of a player
/// token's shape — refused without a database lookup — or no player has it), 403
/// `player_hidden` (an admin hid the player), or 503 when the database cannot answer.
#[derive(Debug)]
pub struct Player {
    id: i64,
    name: String,
}

impl Player {
    /// The player's id (`players.id`).
    pub fn id(&self) -> i64 {
        self.id
    }

    /// The name as registered.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl FromRequestParts<AppState> for Player {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Player, ApiError> {
        let token = auth::bearer(&parts.headers)?;
        let player = auth::player_of_token(&state.store, token)
            .await
            .map_err(|refused| match refused {
                TokenRefused::NotAPlayerToken | TokenRefused::Unknown => ApiError::BadToken,
                TokenRefused::Hidden { name } => ApiError::PlayerHidden { name },
                TokenRefused::Store(e) => e.into(),
            })?;
        Ok(Player {
            id: player.id,
            name: player.name,
        })
    }
}

/// A request bearing the admin token (`ADMIN_TOKEN`).
///
/// Refused with 403 `admin_disabled` (the server has no admin token), 401 (no bearer
/// token), 403 `not_admin` (another token): see [`AdminToken::check`].
#[derive(Debug)]
pub struct Admin(());

impl FromRequestParts<AppState> for Admin {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Admin, ApiError> {
        AdminToken::check(state.admin.as_ref(), &parts.headers)?;
        Ok(Admin(()))
    }
}
