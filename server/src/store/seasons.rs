//! Seasons' queries: which boards a level has had (`GET /api/levels/{level}/seasons`), and
//! whether one exists. A board's own entries are read with the board queries of `store`
//! (`leaderboard`, `board_size`, `board_batch`, …), given the season's `Board`.
//!
//! **Counts kept, not counted.** The list reads `season_counts` (migration 0011: each
//! season's counting runs and players, kept by triggers on `runs` and `players`) and one end
//! of `runs_season_verified` for each season's first and last verification: a few rows per
//! season whatever the board's size. Grouping every run of the level per request, as
//! [`Seasons::list_sql`] (the reference the tests hold it to) does, took 3.9–6.2 s at a
//! million runs on SQLite.

use sqlx::Row;

use super::{Board, Result, Store, StoreError};
use crate::season::SeasonId;

/// One season of a level as stored: its key and what is on it. Counts are of the runs a
/// board ranks (verified, finished, neither the run nor its player hidden), in the open
/// category.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeasonRow {
    pub season: SeasonId,
    /// Verified finished runs on the board (every run, not only each player's best).
    pub runs: i64,
    /// Players with a run on the board (the board's length).
    pub players: i64,
    /// When the first and the last of those runs were verified (Unix ms).
    pub first_verified_ms: Option<i64>,
    pub last_verified_ms: Option<i64>,
}

/// The visible verified finishes of a level (`$1`), the rows every season query counts.
pub(super) const SEASON_RUNS: &str = "
    FROM runs r JOIN players p ON p.id = r.player_id
    WHERE r.level = $1 AND r.status = 'verified' AND r.finish_tick IS NOT NULL
      AND r.hidden = FALSE AND p.hidden = FALSE";

/// A season's first (`ASC`) or last (`DESC`) verification among its counting runs of shown
/// players, for the season row `s`: the end of `runs_season_verified`, passing over hidden
/// runs and players (as many as are hidden at that end). `{index}` tells SQLite to walk that
/// index (`Store::sqlite_index`): given a season whose runs share one verification time (a
/// bulk import: the seeded boards of `pogo-loadgen seed` before they spread them), its
/// statistics made `runs_ranked` look the better walk, and it sorted the whole season for the
/// first row (27 s at a million runs). PostgreSQL picks `runs_season_verified` from the
/// `ORDER BY … LIMIT 1` (0.2 ms).
const VERIFIED_END: &str = "
    (SELECT r.verified_ms FROM runs r {index} JOIN players p ON p.id = r.player_id
     WHERE r.level = s.level AND r.rules_version = s.rules_version
       AND r.level_hash = s.level_hash AND r.tuning_hash = s.tuning_hash
       AND r.status = 'verified' AND r.finish_tick IS NOT NULL
       AND r.verified_ms IS NOT NULL AND r.hidden = FALSE AND p.hidden = FALSE
     ORDER BY r.verified_ms {order} LIMIT 1)";

/// Every season of a level (`$1`) with a counting run, from `season_counts`.
fn seasons_sql_text(store: &Store) -> String {
    let end = |order: &str| {
        VERIFIED_END
            .replace("{index}", &store.sqlite_index("runs_season_verified"))
            .replace("{order}", order)
    };
    format!(
        "SELECT s.rules_version, s.level_hash, s.tuning_hash, s.runs, s.players,
                {} AS first_ms, {} AS last_ms
         FROM season_counts s WHERE s.level = $1 AND s.runs > 0",
        end("ASC"),
        end("DESC")
    )
}

/// The seasons of a level, and re-verification onto the current one (`seasons.rs`, `reverify.rs`): `store.seasons()`.
#[derive(Clone, Copy, Debug)]
pub struct Seasons<'a> {
    pub(super) store: &'a Store,
}

impl Seasons<'_> {
    /// Every season of `level` with at least one visible verified finish, in no particular
    /// order (the API orders them): a few rows per season (see the module doc).
    pub async fn list(&self, level: &str) -> Result<Vec<SeasonRow>> {
        self.season_rows(&seasons_sql_text(self.store), level).await
    }

    pub(super) async fn season_rows(&self, sql: &str, level: &str) -> Result<Vec<SeasonRow>> {
        let rows = on_pool!(self.store, |pool| {
            sqlx::query(sql)
                .bind(level)
                .fetch_all(pool)
                .await?
                .iter()
                .map(|row| {
                    Ok::<_, sqlx::Error>((
                        row.try_get::<i64, _>("rules_version")?,
                        row.try_get::<String, _>("level_hash")?,
                        row.try_get::<String, _>("tuning_hash")?,
                        row.try_get::<i64, _>("runs")?,
                        row.try_get::<i64, _>("players")?,
                        row.try_get::<Option<i64>, _>("first_ms")?,
                        row.try_get::<Option<i64>, _>("last_ms")?,
                    ))
                })
                .collect::<Result<Vec<_>, _>>()?
        });
        rows.into_iter()
            .map(
                |(rules, level_hash, tuning_hash, runs, players, first, last)| {
                    let season = u32::try_from(rules)
                        .ok()
                        .and_then(|rules| SeasonId::from_stored(rules, &level_hash, &tuning_hash))
                        .ok_or_else(|| {
                            StoreError::Corrupt(format!(
                                "a run of {level:?} with rules version {rules}, level hash \
                             {level_hash:?}, tuning hash {tuning_hash:?}: not a board key"
                            ))
                        })?;
                    Ok(SeasonRow {
                        season,
                        runs,
                        players,
                        first_verified_ms: first,
                        last_verified_ms: last,
                    })
                },
            )
            .collect()
    }

    /// Whether `season` of `level` has a visible verified finish (is listed by
    /// [`Seasons::list`]).
    pub async fn season_exists(&self, level: &str, season: &SeasonId) -> Result<bool> {
        const SQL: &str = "SELECT 1 FROM season_counts
                           WHERE level = $1 AND level_hash = $2 AND tuning_hash = $3
                             AND rules_version = $4 AND runs > 0";
        let board = season.board(level, super::Category::Open);
        let found = on_pool!(self.store, |pool| {
            sqlx::query(SQL)
                .bind(level)
                .bind(&board.level_hash)
                .bind(&board.tuning_hash)
                .bind(i64::from(board.rules_version))
                .fetch_optional(pool)
                .await?
                .is_some()
        });
        Ok(found)
    }

    /// The players on the open board of `board`'s season (its length), as `season_counts`
    /// keeps it: one row, where counting them is a pass over the board.
    pub(super) async fn season_players(&self, board: &Board) -> Result<i64> {
        const SQL: &str = "SELECT players FROM season_counts
                           WHERE level = $1 AND level_hash = $2 AND tuning_hash = $3
                             AND rules_version = $4";
        let players = on_pool!(self.store, |pool| {
            sqlx::query(SQL)
                .bind(&board.level)
                .bind(&board.level_hash)
                .bind(&board.tuning_hash)
                .bind(i64::from(board.rules_version))
                .fetch_optional(pool)
                .await?
                .map(|row| row.try_get::<i64, _>(0))
                .transpose()?
        });
        Ok(players.unwrap_or(0))
    }
}
