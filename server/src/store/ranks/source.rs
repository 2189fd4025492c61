//! What the rank index (`ranks.rs`) is built and kept from: a board walked in board order
//! (one walk of `runs_ranked`; a player's first run met is their best), a few players' best
//! runs after a change, and the change feed (`board_changes`, written by triggers).

use futures_util::TryStreamExt;
use sqlx::Row;

use crate::store::board::{BestRun, Boards, category_filter};
use crate::store::{Board, Result};

/// One row of the change feed (`board_changes`, written by triggers).
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct BoardChange {
    pub seq: i64,
    pub player_id: i64,
    /// `None`: every level (the player was hidden or shown).
    pub level: Option<String>,
}

/// Most ids bound in one `IN (…)` list (SQLite allows 32 766 parameters, PostgreSQL 65 535).
const IDS_PER_QUERY: usize = 500;

impl Boards<'_> {
    /// Every counting run of the board of a shown player, in board order, handed to `each`
    /// as it arrives (the rank index's build: a player's first run met is their best, and a
    /// million rows never sit in memory at once). One walk of `runs_ranked`.
    pub(in crate::store) async fn board_scan(
        &self,
        board: &Board,
        mut each: impl FnMut(BestRun) -> Result<()>,
    ) -> Result<()> {
        let sql = format!(
            "SELECT r.player_id, r.id AS run_id, r.finish_tick, {name} AS player,
                    r.uploaded_ms, r.splits
             FROM runs r JOIN players p ON p.id = r.player_id
             WHERE r.level = $1 AND r.rules_version = $4 AND r.level_hash = $2
               AND r.tuning_hash = $3 AND r.status = 'verified' AND r.finish_tick IS NOT NULL
               {} AND (r.realtime = TRUE OR $5 = FALSE)
               AND r.hidden = FALSE AND p.hidden = FALSE
             ORDER BY r.finish_tick, r.id",
            category_filter(board),
            name = player_name!(),
        );
        on_pool!(self.store, |pool| {
            let mut rows = bind_board!(sqlx::query_as::<_, BestRun>(&sql), board).fetch(pool);
            while let Some(row) = rows.try_next().await? {
                each(row)?;
            }
        });
        Ok(())
    }

    /// The best run on the board of each of `players` that has one (the rank index's refresh
    /// after a change): every counted run of these players on this level, through
    /// `runs_player` (told so on SQLite, whose planner without statistics walked the whole
    /// board in `runs_ranked`: 1.2 s at a million runs), the best picked here.
    pub(in crate::store) async fn board_best_of(
        &self,
        board: &Board,
        players: &[i64],
    ) -> Result<Vec<BestRun>> {
        let mut best: Vec<BestRun> = Vec::new();
        for chunk in players.chunks(IDS_PER_QUERY) {
            let sql = format!(
                "SELECT r.player_id, r.id AS run_id, r.finish_tick, {name} AS player,
                        r.uploaded_ms, r.splits
                 FROM runs r {index} JOIN players p ON p.id = r.player_id
                 WHERE r.player_id IN ({}) AND r.level = $1 AND r.level_hash = $2
                   AND r.tuning_hash = $3 AND r.rules_version = $4
                   AND (r.realtime = TRUE OR $5 = FALSE)
                   AND r.status = 'verified' AND r.finish_tick IS NOT NULL
                   AND r.hidden = FALSE AND p.hidden = FALSE",
                crate::store::numbered(6, chunk.len(), 1),
                name = player_name!(),
                index = self.store.sqlite_index("runs_player"),
            );
            let rows: Vec<BestRun> = on_pool!(self.store, |pool| {
                let mut query = bind_board!(sqlx::query_as(&sql), board);
                for id in chunk {
                    query = query.bind(*id);
                }
                query.fetch_all(pool).await?
            });
            best.extend(rows);
        }
        best.sort_by_key(|b| (b.player_id, b.finish_tick, b.run_id));
        best.dedup_by_key(|b| b.player_id);
        Ok(best)
    }

    /// The change feed after `after` up to `upto` (both seqs; `i64::MAX`: to its end), oldest
    /// first, at most `limit` rows.
    pub(in crate::store) async fn board_changes_between(
        &self,
        after: i64,
        upto: i64,
        limit: u32,
    ) -> Result<Vec<BoardChange>> {
        const SQL: &str = "SELECT seq, player_id, level FROM board_changes
                           WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3";
        let rows = on_pool!(self.store, |pool| {
            sqlx::query_as(SQL)
                .bind(after)
                .bind(upto)
                .bind(i64::from(limit))
                .fetch_all(pool)
                .await?
        });
        Ok(rows)
    }

    /// The feed's last `seq` (0 while empty).
    pub(in crate::store) async fn board_changes_last(&self) -> Result<i64> {
        const SQL: &str = "SELECT COALESCE(MAX(seq), 0) FROM board_changes";
        let seq = on_pool!(self.store, |pool| {
            sqlx::query(SQL)
                .fetch_one(pool)
                .await?
                .try_get::<i64, _>(0)?
        });
        Ok(seq)
    }

    /// Forgets up to `limit` feed rows numbered `seq` or lower (the oldest), by the primary
    /// key; the number forgotten.
    pub(in crate::store) async fn prune_board_changes(&self, seq: i64, limit: u32) -> Result<u64> {
        const SQL: &str = "DELETE FROM board_changes WHERE seq IN (
                               SELECT seq FROM board_changes WHERE seq <= $1
                               ORDER BY seq LIMIT $2)";
        let rows = on_pool!(self.store, |pool| {
            sqlx::query(SQL)
                .bind(seq)
                .bind(i64::from(limit))
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(rows)
    }

    /// A run's player, if the run exists.
    pub(in crate::store) async fn run_player(&self, run_id: i64) -> Result<Option<i64>> {
        const SQL: &str = "SELECT player_id FROM runs WHERE id = $1";
        let player = on_pool!(self.store, |pool| {
            sqlx::query(SQL)
                .bind(run_id)
                .fetch_optional(pool)
                .await?
                .map(|row| row.try_get::<i64, _>(0))
                .transpose()?
        });
        Ok(player)
    }
}
