//! Seasons' queries: which boards a level has had (`GET /api/levels/{level}/seasons`), and
//! whether one exists. A board's own entries are read with the board queries of `store`
//! (`leaderboard`, `board_size`, `board_batch`, …), given the season's `Board`.

use sqlx::Row;

use super::{Result, Store, StoreError};
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
const SEASON_RUNS: &str = "
    FROM runs r JOIN players p ON p.id = r.player_id
    WHERE r.level = $1 AND r.status = 'verified' AND r.finish_tick IS NOT NULL
      AND r.hidden = FALSE AND p.hidden = FALSE";

impl Store {
    /// Every season of `level` with at least one visible verified finish, in no particular
    /// order (the API orders them).
    pub async fn seasons(&self, level: &str) -> Result<Vec<SeasonRow>> {
        let sql = format!(
            "SELECT r.rules_version, r.level_hash, r.tuning_hash, COUNT(*) AS runs,
                    COUNT(DISTINCT r.player_id) AS players,
                    MIN(r.verified_ms) AS first_ms, MAX(r.verified_ms) AS last_ms
             {SEASON_RUNS}
             GROUP BY r.rules_version, r.level_hash, r.tuning_hash"
        );
        let rows = on_pool!(self, |pool| {
            sqlx::query(&sql)
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
    /// [`Store::seasons`]).
    pub async fn season_exists(&self, level: &str, season: &SeasonId) -> Result<bool> {
        let sql = format!(
            "SELECT 1 {SEASON_RUNS}
               AND r.level_hash = $2 AND r.tuning_hash = $3 AND r.rules_version = $4
             LIMIT 1"
        );
        let board = season.board(level, super::Category::Open);
        let found = on_pool!(self, |pool| {
            sqlx::query(&sql)
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
}
