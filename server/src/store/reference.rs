//! The reference ranking: a board ranked by SQL's window functions over every counting run
//! of the level (`BOARD_CTE`), and a level's seasons by grouping every run — simple,
//! obviously right, and linear in the board (2 s a read at 100 000 runs on SQLite). The
//! server answers from the rank index and the kept counts instead; `tests/ranks.rs` holds
//! every one of those reads to these, entry for entry, on random boards and random changes.
//! One of them serves: a real-time board's size while its index builds
//! (`Boards::board_size_fast`).

use sqlx::Row;

use super::board::{Boards, parse_splits};
use super::seasons::{SEASON_RUNS, SeasonRow, Seasons};
use super::{Board, Entry, Result};

/// The leaderboard, as common table expressions `best` (each player's best run: lowest
/// finish tick, then earliest upload) and `board` (those ranked, ties by earlier upload —
/// ids are assigned in upload order). `$1`…`$5` are the [`Board`]; queries append their
/// `SELECT … FROM board` with parameters from `$6`.
const BOARD_CTE: &str = concat!(
    "
WITH best AS (
    SELECT r.id, r.player_id, ",
    player_name!(),
    " AS name, r.finish_tick, r.uploaded_ms, r.splits,
           ROW_NUMBER() OVER (PARTITION BY r.player_id ORDER BY r.finish_tick, r.id) AS nth
    FROM runs r JOIN players p ON p.id = r.player_id
    WHERE r.level = $1 AND r.level_hash = $2 AND r.tuning_hash = $3 AND r.rules_version = $4
      AND r.status = 'verified' AND r.finish_tick IS NOT NULL
      AND r.hidden = FALSE AND p.hidden = FALSE AND (r.realtime = TRUE OR $5 = FALSE)
),
board AS (
    SELECT id, player_id, name, finish_tick, uploaded_ms, splits,
           ROW_NUMBER() OVER (ORDER BY finish_tick, id) AS rank
    FROM best WHERE nth = 1
)"
);

/// An entry as `BOARD_CTE` gives it, the splits still as stored.
#[derive(sqlx::FromRow)]
struct EntryRow {
    rank: i64,
    run_id: i64,
    player: String,
    finish_tick: i64,
    uploaded_ms: i64,
    splits: Option<String>,
}

impl Boards<'_> {
    /// A page of the leaderboard, best first, ranked by the window functions of `BOARD_CTE`.
    pub async fn leaderboard_sql(
        &self,
        board: &Board,
        limit: u32,
        offset: u64,
    ) -> Result<Vec<Entry>> {
        let sql = format!(
            "{BOARD_CTE} SELECT rank, id AS run_id, name AS player, finish_tick, uploaded_ms,
                    splits
             FROM board ORDER BY rank LIMIT $6 OFFSET $7"
        );
        let offset = i64::try_from(offset).unwrap_or(i64::MAX);
        let rows: Vec<EntryRow> = on_pool!(self.store, |pool| {
            bind_board!(sqlx::query_as(&sql), board)
                .bind(i64::from(limit))
                .bind(offset)
                .fetch_all(pool)
                .await?
        });
        Ok(rows
            .into_iter()
            .map(|row| Entry {
                rank: row.rank,
                run_id: row.run_id,
                player: row.player,
                finish_tick: row.finish_tick,
                uploaded_ms: row.uploaded_ms,
                splits: parse_splits(row.splits.as_deref()),
            })
            .collect())
    }

    /// How many players are on the board (counted by `BOARD_CTE`).
    pub async fn board_size_sql(&self, board: &Board) -> Result<i64> {
        let sql = format!("{BOARD_CTE} SELECT COUNT(*) FROM board");
        let count = on_pool!(self.store, |pool| {
            bind_board!(sqlx::query(&sql), board)
                .fetch_one(pool)
                .await?
                .try_get::<i64, _>(0)?
        });
        Ok(count)
    }

    /// The rank of a player's entry on the board, if they have one.
    pub async fn player_rank_sql(&self, board: &Board, player_id: i64) -> Result<Option<i64>> {
        self.rank_sql(board, "player_id", player_id).await
    }

    /// The rank of a run, if it is its player's entry on the board.
    pub async fn run_rank_sql(&self, board: &Board, run_id: i64) -> Result<Option<i64>> {
        self.rank_sql(board, "id", run_id).await
    }

    /// The rank of the entry whose `column` (of `BOARD_CTE`'s `board`) is `value`, if any.
    async fn rank_sql(&self, board: &Board, column: &str, value: i64) -> Result<Option<i64>> {
        let sql = format!("{BOARD_CTE} SELECT rank FROM board WHERE {column} = $6");
        let rank = on_pool!(self.store, |pool| {
            bind_board!(sqlx::query(&sql), board)
                .bind(value)
                .fetch_optional(pool)
                .await?
                .map(|row| row.try_get::<i64, _>(0))
                .transpose()?
        });
        Ok(rank)
    }
}

impl Seasons<'_> {
    /// [`Seasons::list`] by grouping every counting run of the level: the reference the
    /// kept counts are tested against (linear in the level's runs).
    pub async fn list_sql(&self, level: &str) -> Result<Vec<SeasonRow>> {
        let sql = format!(
            "SELECT r.rules_version, r.level_hash, r.tuning_hash, COUNT(*) AS runs,
                    COUNT(DISTINCT r.player_id) AS players,
                    MIN(r.verified_ms) AS first_ms, MAX(r.verified_ms) AS last_ms
             {SEASON_RUNS}
             GROUP BY r.rules_version, r.level_hash, r.tuning_hash"
        );
        self.season_rows(&sql, level).await
    }
}
