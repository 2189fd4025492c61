//! A run by its id: its row (status, verdict, player), its replay's bytes, hiding it.

use sha2::{Digest, Sha256};
use sqlx::Row;

use super::{FEED_END, FeedSeq, RUN_COLUMNS, RUN_FROM, Result, RunRow, Store, StoreError};

/// Runs by id: `store.runs()`.
#[derive(Clone, Copy, Debug)]
pub struct Runs<'a> {
    pub(super) store: &'a Store,
}

impl Runs<'_> {
    /// A run, with its player's name.
    pub async fn run(&self, id: i64) -> Result<Option<RunRow>> {
        let sql = format!("SELECT {RUN_COLUMNS} {RUN_FROM}");
        let row = on_pool!(self.store, |pool| {
            sqlx::query_as(&sql).bind(id).fetch_optional(pool).await?
        });
        Ok(row)
    }

    /// A run, and where the board change feed ended when it was read ([`FeedSeq`]): one
    /// statement, so that a run's status reads its row and its ranks' freshness in one round
    /// trip.
    pub async fn run_and_feed(&self, id: i64) -> Result<Option<(RunRow, FeedSeq)>> {
        #[derive(sqlx::FromRow)]
        struct Read {
            #[sqlx(flatten)]
            run: RunRow,
            feed_seq: i64,
        }
        let sql = format!("SELECT {RUN_COLUMNS}, {FEED_END} AS feed_seq {RUN_FROM}");
        let row: Option<Read> = on_pool!(self.store, |pool| {
            sqlx::query_as(&sql).bind(id).fetch_optional(pool).await?
        });
        Ok(row.map(|read| (read.run, FeedSeq(read.feed_seq))))
    }

    /// Hides a run with the admin's reason (`Some`), or shows it again and forgets the reason
    /// (`None`); `false` if there is no such run.
    pub async fn set_run_hidden(&self, run_id: i64, reason: Option<&str>) -> Result<bool> {
        const SQL: &str = "UPDATE runs SET hidden = $1, hidden_reason = $2 WHERE id = $3";
        let rows = on_pool!(self.store, |pool| {
            sqlx::query(SQL)
                .bind(reason.is_some())
                .bind(reason)
                .bind(run_id)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(rows == 1)
    }

    /// The bytes of a stored replay.
    pub async fn replay_bytes(&self, hash: &[u8]) -> Result<Option<Vec<u8>>> {
        const SQL: &str = "SELECT bytes FROM replays WHERE hash = $1";
        let bytes = on_pool!(self.store, |pool| {
            sqlx::query(SQL)
                .bind(hash)
                .fetch_optional(pool)
                .await?
                .map(|row| row.try_get::<Vec<u8>, _>(0))
                .transpose()?
        });
        Ok(bytes)
    }

    /// The replay bytes of a run, checked against their key: bytes that no longer hash to
    /// the SHA-256 they were stored under (a bit flipped on disk) are
    /// [`StoreError::CorruptReplay`], never returned. Hashing costs about a millisecond per
    /// MB, beside a read that costs more.
    pub async fn run_bytes(&self, run_id: i64) -> Result<Option<Vec<u8>>> {
        const SQL: &str = "SELECT r.replay_hash, b.bytes
                           FROM runs r JOIN replays b ON b.hash = r.replay_hash
                           WHERE r.id = $1";
        let read = on_pool!(self.store, |pool| {
            sqlx::query(SQL)
                .bind(run_id)
                .fetch_optional(pool)
                .await?
                .map(|row| -> Result<(Vec<u8>, Vec<u8>), sqlx::Error> {
                    Ok((row.try_get(0)?, row.try_get(1)?))
                })
                .transpose()?
        });
        let Some((hash, bytes)) = read else {
            return Ok(None);
        };
        if Sha256::digest(&bytes)[..] != hash[..] {
            return Err(StoreError::CorruptReplay { run_id });
        }
        Ok(Some(bytes))
    }
}
