//! `GET /api/levels/{level}/seasons`: every board a level has had (`crate::season`), and
//! [`season_board`], the one way a route turns `?season=ID` into the board it reads.

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use std::sync::Arc;

use super::http::ApiPath;
use crate::catalog::{Hidden, Level};
use crate::error::{ApiError, ErrorBody};
use crate::season::SeasonId;
use crate::state::AppState;
use crate::store::{Board, Category, RunRow};
use crate::times::rfc3339;

/// One season of a level: one board, by its key.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeasonJson {
    /// The season's id, `r{rules_version}-{level_hash}-{tuning_hash}`: give it as
    /// `?season=` to the leaderboard and the export.
    #[schema(example = "r2-5f0c61b2a9e3d417-0b7de4c2f1a85693")]
    pub id: String,
    /// The level's content hash (16 hex digits) the season's runs were recorded on.
    pub level_hash: String,
    /// The tuning hash (16 hex digits) they were verified under.
    pub tuning_hash: String,
    pub rules_version: u32,
    /// The board this server ranks now (uploads go to it); the others are past seasons,
    /// read-only.
    pub current: bool,
    /// Verified finished runs on the board (each player's runs, not only their best).
    pub runs: i64,
    /// Players on the board (its length, as the leaderboard's `total`).
    pub players: i64,
    /// When its first and its last run were verified (RFC 3339, UTC); `null` on an empty
    /// current season.
    pub first_verified_at: Option<String>,
    pub last_verified_at: Option<String>,
    pub leaderboard_url: String,
    pub export_url: String,
}

/// A level's seasons.
#[derive(Debug, Serialize, ToSchema)]
pub struct Seasons {
    pub level: String,
    /// The current season's id (also the first of `seasons`).
    pub current: String,
    /// The current season first (even with no runs yet), then every past season with a
    /// verified finish, newest first (by when its first run was verified).
    pub seasons: Vec<SeasonJson>,
}

/// The seasons of a level: its current board and every past one.
///
/// A board is a level's content under one tuning and rules version. When the server's level
/// file, tuning or rules change, uploads go to a new board (a new season); the old boards
/// are kept and read with `?season=ID` on the leaderboard and the export.
/// `pogo-server reverify` files the past seasons' runs that still verify on the current one.
#[utoipa::path(get, path = "/api/levels/{level}/seasons", tag = "leaderboards",
    params(("level" = String, Path, description = "Level name")),
    responses(
        (status = 200, body = Seasons),
        (status = 404, description = "No such level (`unknown_level`)", body = ErrorBody),
    ))]
pub async fn list_seasons(
    State(state): State<AppState>,
    ApiPath(level): ApiPath<String>,
) -> Result<Json<Seasons>, ApiError> {
    let current = current_season(&state, &level).await?;
    let mut rows = state.store.seasons().list(&level).await?;
    // Current first, then by start, newest first (ties: by id, for a stable order).
    rows.sort_by(|a, b| {
        (b.season == current)
            .cmp(&(a.season == current))
            .then(b.first_verified_ms.cmp(&a.first_verified_ms))
            .then(a.season.cmp(&b.season))
    });
    let mut seasons: Vec<SeasonJson> = Vec::with_capacity(rows.len() + 1);
    if rows.first().is_none_or(|row| row.season != current) {
        seasons.push(season_json(&level, current, true, 0, 0, None, None));
    }
    seasons.extend(rows.into_iter().map(|row| {
        season_json(
            &level,
            row.season,
            row.season == current,
            row.runs,
            row.players,
            row.first_verified_ms,
            row.last_verified_ms,
        )
    }));
    Ok(Json(Seasons {
        current: current.to_string(),
        level,
        seasons,
    }))
}

fn season_json(
    level: &str,
    season: SeasonId,
    current: bool,
    runs: i64,
    players: i64,
    first_ms: Option<i64>,
    last_ms: Option<i64>,
) -> SeasonJson {
    let id = season.to_string();
    let board = season.board(level, Category::Open);
    SeasonJson {
        leaderboard_url: format!("/api/levels/{level}/leaderboard?season={id}"),
        export_url: format!("/api/levels/{level}/export?season={id}&format=csv"),
        id,
        level_hash: board.level_hash,
        tuning_hash: board.tuning_hash,
        rules_version: season.rules_version,
        current,
        runs,
        players,
        first_verified_at: first_ms.map(rfc3339),
        last_verified_at: last_ms.map(rfc3339),
    }
}

/// The season this server ranks `level` in now; `unknown_level` if it does not run it (or
/// it is a hidden track).
pub async fn current_season(state: &AppState, level: &str) -> Result<SeasonId, ApiError> {
    Ok(current_level_season(state, level).await?.1)
}

/// [`current_season`], and the level.
async fn current_level_season(
    state: &AppState,
    level: &str,
) -> Result<(Arc<Level>, SeasonId), ApiError> {
    let unknown = || ApiError::UnknownLevel {
        name: level.to_string(),
    };
    let info = state
        .catalog
        .resolve(&state.store, level, Hidden::Refused)
        .await?
        .ok_or_else(unknown)?;
    let season = state.catalog.season(&info);
    Ok((info, season))
}

/// `past_season` unless `run` is on its level's current board (a past season's run
/// re-simulates only under its own rules, so it has no ghost here); the level.
pub async fn require_current(state: &AppState, run: &RunRow) -> Result<Arc<Level>, ApiError> {
    let (info, current) = current_level_season(state, &run.level).await?;
    let season = u32::try_from(run.rules_version)
        .ok()
        .and_then(|rules| SeasonId::from_stored(rules, &run.level_hash, &run.tuning_hash));
    match season {
        Some(season) if season == current => Ok(info),
        _ => Err(ApiError::PastSeason {
            id: run.id,
            season: season.map_or_else(|| "?".into(), |s| s.to_string()),
        }),
    }
}

/// A board a route reads: `season` (`?season=ID`, default the current one) of `level`, in
/// `category`, and whether it is the current one. A malformed id is `bad_parameter`; a
/// well-formed one that is neither the current season nor one with a verified finish is
/// `unknown_season`; a level the server does not run is `unknown_level`.
pub async fn season_board(
    state: &AppState,
    level: &str,
    season: Option<&str>,
    category: Category,
) -> Result<(Board, SeasonId, bool), ApiError> {
    let current = current_season(state, level).await?;
    let season = match season {
        None => current,
        Some(text) => text
            .parse::<SeasonId>()
            .map_err(|e| ApiError::BadParameter(e.to_string()))?,
    };
    if season != current && !state.store.seasons().season_exists(level, &season).await? {
        return Err(ApiError::UnknownSeason {
            level: level.to_string(),
            season: season.to_string(),
        });
    }
    Ok((season.board(level, category), season, season == current))
}
