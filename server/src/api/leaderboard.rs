//! `GET /api/levels/{level}/leaderboard`: a level's verified finishes, one entry per player
//! (their best), fastest first, ties broken by earlier upload; paginated, or a page around a
//! player.
//!
//! **Entries per player: one, on every board.** A player's slower run never shows beside
//! their best, and a faster one replaces it (the run it replaced keeps its status but has no
//! `rank`). There is no per-board setting: a ghost race compares players, and a board of one
//! player's ten best runs would push everyone else down. `tests/api.rs`
//! (`the_leaderboard_ranks_each_players_best_ties_by_upload`: bob's slower second run, cid's
//! faster one; `the_board_exports_as_csv_and_json`: the same on the export) holds it.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::http::{ApiPath, ApiQuery};
use super::runs::{SplitJson, split_times};
use super::seasons::season_board;
use crate::error::{ApiError, ErrorBody};
use crate::limits::{LEADERBOARD_LIMIT_DEFAULT, LEADERBOARD_LIMIT_MAX};
use crate::state::AppState;
use crate::store::{BoardPage, Category, Entry, PageAt};
use crate::times::{TickTime, rfc3339};

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct BoardQuery {
    /// Entries per page, 1–100 (default 20).
    pub limit: Option<u32>,
    /// Entries to skip (default 0). Not with `around`.
    pub offset: Option<u64>,
    /// A player name (any case): the page of `limit` entries with this player's in the
    /// middle (or as near it as the top of the board allows). A registered player with no
    /// entry on this board is an ordinary answer: no entries, `offset` 0, `around` the name
    /// as registered, `total` the board's players.
    pub around: Option<String>,
    /// `open` (default: every verified run) or `realtime` (runs played in real time under a
    /// run ticket only).
    pub category: Option<Category>,
    /// A season of the level (an id from `GET /api/levels/{level}/seasons`): read that board,
    /// current or past. Default: the current one.
    pub season: Option<String>,
}

/// A board's entry, on a leaderboard page and in an export (its JSON; the CSV has the same
/// fields but `time_s`, `splits` and `ghost_url`): a player's best run.
#[derive(Debug, Serialize, ToSchema)]
pub struct EntryJson {
    /// 1 for the fastest. Distinct: equal finish ticks are ordered by upload, earlier first.
    pub rank: i64,
    pub player: String,
    pub run_id: i64,
    /// The verified finish tick (what the re-simulation showed; the ranking key).
    pub finish_tick: u32,
    /// `(finish_tick + 1) / tick_rate`, to the millisecond.
    pub time_s: f64,
    /// The same as `m:ss.mmm`.
    pub time: String,
    /// RFC 3339, UTC.
    pub uploaded_at: String,
    /// Checkpoints and finish reached, in order.
    pub splits: Vec<SplitJson>,
    pub ghost_url: String,
    pub replay_url: String,
}

impl EntryJson {
    /// `entry` as the API shows it, its times at `rate` ticks a second.
    pub fn new(entry: Entry, rate: u32) -> EntryJson {
        let finish_tick = u32::try_from(entry.finish_tick).unwrap_or(u32::MAX);
        let time = TickTime::new(finish_tick, rate);
        EntryJson {
            rank: entry.rank,
            player: entry.player,
            run_id: entry.run_id,
            finish_tick,
            time_s: time.time_s,
            time: time.time,
            uploaded_at: rfc3339(entry.uploaded_ms),
            splits: split_times(&entry.splits, rate),
            ghost_url: format!("/api/runs/{}/ghost", entry.run_id),
            replay_url: format!("/api/runs/{}/replay", entry.run_id),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Leaderboard {
    pub level: String,
    /// The level's content hash: only runs of this version of the level, under this tuning
    /// and rules version, are on the board.
    pub level_hash: String,
    pub tuning_hash: String,
    pub rules_version: u32,
    /// The board's season (`GET /api/levels/{level}/seasons`).
    pub season: String,
    /// Whether it is the current season (uploads go to it); a past one is read-only.
    pub current: bool,
    pub tick_rate: u32,
    /// Players on the board.
    pub total: i64,
    pub offset: u64,
    pub limit: u32,
    /// The `around` player, as registered, when asked for. `entries` holds their entry, or
    /// is empty when they have none on this board (not yet raced it, or no verified finish).
    pub around: Option<String>,
    pub entries: Vec<EntryJson>,
}

/// The leaderboard of a level.
#[utoipa::path(get, path = "/api/levels/{level}/leaderboard", tag = "leaderboards",
    params(("level" = String, Path, description = "Level name"), BoardQuery),
    responses(
        (status = 200, description = "The page; with `around` a player who has no entry on this board gets no entries (`entries` empty, `offset` 0), not an error", body = Leaderboard),
        (status = 400, description = "Bad `limit`/`offset`, both `offset` and `around`, or a malformed `season` (`bad_parameter`)", body = ErrorBody),
        (status = 404, description = "No such level (`unknown_level`), season (`unknown_season`) or player (`unknown_player`: no visible player has the `around` name)", body = ErrorBody),
    ))]
pub async fn leaderboard(
    State(state): State<AppState>,
    ApiPath(level): ApiPath<String>,
    ApiQuery(query): ApiQuery<BoardQuery>,
) -> Result<Json<Leaderboard>, ApiError> {
    let (board, season, current) = season_board(
        &state,
        &level,
        query.season.as_deref(),
        query.category.unwrap_or_default(),
    )
    .await?;
    let limit = query.limit.unwrap_or(LEADERBOARD_LIMIT_DEFAULT);
    if !(1..=LEADERBOARD_LIMIT_MAX).contains(&limit) {
        return Err(ApiError::BadParameter(format!(
            "limit={limit}: must be within 1..={LEADERBOARD_LIMIT_MAX}"
        )));
    }
    let (at, around, seen) = match (query.offset, query.around) {
        (Some(_), Some(_)) => {
            return Err(ApiError::BadParameter(
                "offset and around cannot be used together".into(),
            ));
        }
        (offset, None) => (PageAt::Offset(offset.unwrap_or(0)), None, None),
        (None, Some(name)) => {
            // The player and where the board change feed ends, in one round trip.
            let (player, seen) = state.store.players().player_by_name_and_feed(&name).await?;
            let player = player
                .filter(|p| !p.hidden)
                .ok_or(ApiError::UnknownPlayer { name: name.clone() })?;
            (PageAt::Around(player.id), Some(player.name), Some(seen))
        }
    };
    let rate = state.catalog.tick_rate();
    let BoardPage {
        offset,
        total,
        entries: rows,
    } = match state
        .store
        .boards()
        .board_page_at(&board, at, limit, seen)
        .await?
    {
        Some(page) => page,
        // `around` a player with no entry: absent from this board, which is an answer.
        None => BoardPage {
            offset: 0,
            total: state.store.boards().board_size(&board).await?,
            entries: Vec::new(),
        },
    };
    let entries = rows
        .into_iter()
        .map(|entry| EntryJson::new(entry, rate))
        .collect();
    Ok(Json(Leaderboard {
        level,
        level_hash: board.level_hash,
        tuning_hash: board.tuning_hash,
        rules_version: board.rules_version,
        season: season.to_string(),
        current,
        tick_rate: rate,
        total,
        offset,
        limit,
        around,
        entries,
    }))
}
