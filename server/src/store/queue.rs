//! The verification queue (`store.queue()`): an upload stored and queued (bytes and run in one
//! transaction), runs claimed in batches — up to N in one statement (on PostgreSQL the same
//! statement returns their replays; SQLite reads them in one more query) — and a batch's
//! verdicts written — and the runs it did not get to handed back — in one transaction; the
//! counts by status for the metrics.
//!
//! Every write is fenced by the claim it is made under: the run must still be `verifying`,
//! leased to the same owner, at the same attempt number. A claim that lost its run (its lease
//! expired and another worker claimed it again, or its verdict is written already) changes
//! nothing; the transaction goes on with the other runs of the batch.

use std::collections::HashMap;

use sqlx::Row;

use super::filing::{FileRun, RunFiled, RunInsert, VerdictColumns};
use super::{BeginWrite, Inserted, NewRun, Pool, Result, RunState, RunTicket, Store, Verdict};

/// What the claim query returns.
#[derive(sqlx::FromRow)]
struct ClaimRow {
    id: i64,
    replay_hash: Vec<u8>,
    attempts: i64,
}

/// A run claimed for verification.
#[derive(Clone, Debug)]
pub struct Claim {
    pub run_id: i64,
    pub replay_hash: Vec<u8>,
    /// The claim's number (1 for the first): the fencing token the verdict is written under.
    pub attempt: i64,
    pub owner: String,
}

/// A claimed batch and what verifying it needs ([`Queue::claim_and_read`]).
#[derive(Debug, Default)]
pub struct ClaimRead {
    /// Sorted by run id; empty if no run was waiting.
    pub claims: Vec<Claim>,
    /// The replay of each claim, by run id.
    pub bytes: HashMap<i64, Vec<u8>>,
    /// The tickets of the claims uploaded under one, by run id.
    pub tickets: HashMap<i64, RunTicket>,
}

/// The claim: the oldest `$4` runs that are queued, or being verified under a lease that
/// expired before `$3` (their claimer died or hung), leased to `$1` until `$2`, each claim
/// numbered by `attempts` (the fencing token of its verdict). Read through `runs_waiting`
/// (migration 0009: the waiting runs only, whose condition the first term states).
const CLAIM: &str = "
    UPDATE runs SET status = 'verifying', lease_owner = $1, lease_until_ms = $2,
                    attempts = attempts + 1
    WHERE id IN (SELECT id FROM runs
                 WHERE status IN ('queued', 'verifying')
                   AND (status = 'queued' OR lease_until_ms < $3)
                 ORDER BY id LIMIT $4";
const CLAIM_RETURNING: &str = ") RETURNING id, replay_hash, attempts";

/// PostgreSQL's claim, in one round trip: [`CLAIM`] with `FOR UPDATE SKIP LOCKED` (as
/// [`Queue::claim_batch`] runs it), the claimed runs' replay bytes, and whether each was
/// uploaded under a run ticket.
fn claim_read_postgres() -> String {
    format!(
        "WITH claimed AS ({CLAIM} FOR UPDATE SKIP LOCKED{CLAIM_RETURNING})
         SELECT c.id, c.replay_hash, c.attempts, b.bytes,
                EXISTS (SELECT 1 FROM tickets t WHERE t.run_id = c.id) AS ticketed
         FROM claimed c LEFT JOIN replays b ON b.hash = c.replay_hash"
    )
}

/// A verdict, fenced by its claim (`$8` run, `$9` owner, `$10` attempt). The verdict's own
/// columns are bound by [`bind_verdict!`].
const VERDICT: &str = "
    UPDATE runs SET status = $1, ticks = $2, finish_tick = $3, splits = $4,
                    reason_kind = $5, reason = $6, verified_ms = $7, final_hash = $11,
                    realtime = $12, realtime_note = $13,
                    lease_owner = NULL, lease_until_ms = NULL
    WHERE id = $8 AND status = 'verifying' AND lease_owner = $9 AND attempts = $10";

/// A batch's verdicts on PostgreSQL, in one statement (one round trip instead of one per
/// run): [`VERDICT`]'s columns and fence, row by row, from arrays (`$1` the time). Returns the
/// runs written.
const VERDICTS_POSTGRES: &str = "
    UPDATE runs AS r SET status = v.status, ticks = v.ticks, finish_tick = v.finish_tick,
                         splits = v.splits, reason_kind = v.reason_kind, reason = v.reason,
                         verified_ms = $1, final_hash = v.final_hash,
                         realtime = v.realtime, realtime_note = v.realtime_note,
                         lease_owner = NULL, lease_until_ms = NULL
    FROM UNNEST($2::BIGINT[], $3::TEXT[], $4::BIGINT[], $5::TEXT[], $6::BIGINT[], $7::BIGINT[],
                $8::TEXT[], $9::TEXT[], $10::TEXT[], $11::TEXT[], $12::BOOLEAN[], $13::TEXT[])
         AS v(id, owner, attempt, status, ticks, finish_tick, splits, reason_kind, reason,
              final_hash, realtime, realtime_note)
    WHERE r.id = v.id AND r.status = 'verifying' AND r.lease_owner = v.owner
      AND r.attempts = v.attempt
    RETURNING r.id";

/// A claim handed back unverified (fenced like a verdict): the run is queued again and the
/// claim is not counted among its attempts, since nothing of it was tried (an attempt that
/// ends without a verdict or a release is a worker that died or hung). Its number is free
/// again: whoever claims the run next is given it, and no verdict under the released claim
/// can exist (the worker releases only runs it never started).
const RELEASE: &str = "
    UPDATE runs SET status = 'queued', lease_owner = NULL, lease_until_ms = NULL,
                    attempts = attempts - 1
    WHERE id = $1 AND status = 'verifying' AND lease_owner = $2 AND attempts = $3";

/// Binds `$1`…`$13` of [`VERDICT`]: the verdict's columns, the time, the claim.
macro_rules! bind_verdict {
    ($query:expr, $columns:expr, $claim:expr, $now_ms:expr) => {
        $query
            .bind($columns.status.as_str())
            .bind($columns.ticks)
            .bind($columns.finish_tick)
            .bind($columns.splits)
            .bind($columns.reason_kind)
            .bind($columns.reason)
            .bind($now_ms)
            .bind($claim.run_id)
            .bind(&$claim.owner)
            .bind($claim.attempt)
            .bind($columns.final_hash.as_deref())
            .bind($columns.realtime)
            .bind($columns.realtime_note)
    };
}

/// Hands `release`'s claims back to the queue ([`RELEASE`]) on the open transaction `tx`.
macro_rules! release_in {
    ($tx:expr, $release:expr) => {
        for claim in $release {
            sqlx::query(RELEASE)
                .bind(claim.run_id)
                .bind(&claim.owner)
                .bind(claim.attempt)
                .execute(&mut *$tx)
                .await?;
        }
    };
}

/// Writes `verdicts` and releases `release` on one open write transaction, then commits;
/// per verdict, whether it was written (`false`: the claim was lost).
macro_rules! verdicts_in {
    ($tx:expr, $verdicts:expr, $release:expr, $now_ms:expr) => {{
        let mut tx = $tx;
        let mut written = Vec::with_capacity($verdicts.len());
        for (claim, verdict) in $verdicts {
            let columns = VerdictColumns::of(verdict);
            let rows = bind_verdict!(sqlx::query(VERDICT), columns, claim, $now_ms)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            written.push(rows == 1);
        }
        release_in!(tx, $release);
        tx.commit().await?;
        written
    }};
}

/// The verification queue: uploads in, claims, verdicts out: `store.queue()`.
#[derive(Clone, Copy, Debug)]
pub struct Queue<'a> {
    pub(super) store: &'a Store,
}

impl Queue<'_> {
    /// Stores an upload: its bytes (once per content) and a queued run (`filing.rs`), in one
    /// transaction committed before this returns — unless the same bytes were filed before,
    /// by any way in (that run is returned), or `queue_max` runs are waiting already (nothing
    /// is stored).
    pub async fn insert_run(&self, run: &NewRun<'_>, queue_max: u64) -> Result<Inserted> {
        const QUEUED: &str = "SELECT COUNT(*) FROM runs WHERE status = 'queued'";
        let queue_max = i64::try_from(queue_max).unwrap_or(i64::MAX);
        on_pool!(self.store, |pool| {
            // SQLite: `BEGIN IMMEDIATE` takes the write lock at once, so this read-then-write
            // transaction never has to upgrade a read lock (which fails at once, busy timeout
            // or not, when another writer got in between). PostgreSQL: READ COMMITTED; two
            // identical uploads racing are settled by the filing (`filing.rs`).
            let mut tx = pool.begin_write().await?;
            if let Some(id) = tx.run_by_replay(&run.replay_hash).await? {
                return Ok(Inserted::Duplicate(id));
            }
            let queued: i64 = sqlx::query(QUEUED).fetch_one(&mut *tx).await?.try_get(0)?;
            if queued >= queue_max {
                return Ok(Inserted::QueueFull { queued });
            }
            let id = match tx.insert_new(&RunInsert::queued(run)).await? {
                RunFiled::New(id) => id,
                // Committed by a concurrent filing since our look: nothing of ours is kept.
                RunFiled::Duplicate(id) => return Ok(Inserted::Duplicate(id)),
            };
            if let Some(ticket) = run.ticket {
                let consumed = sqlx::query(super::tickets::CONSUME)
                    .bind(id)
                    .bind(ticket)
                    .execute(&mut *tx)
                    .await?;
                if consumed.rows_affected() != 1 {
                    return Ok(Inserted::TicketUsed);
                }
            }
            tx.commit().await?;
            Ok(Inserted::New(id))
        })
    }

    /// Claims the oldest run waiting for verification: [`Queue::claim_batch`] of one.
    pub async fn claim(&self, owner: &str, now_ms: i64, lease_ms: i64) -> Result<Option<Claim>> {
        Ok(self
            .claim_batch(owner, now_ms, lease_ms, 1)
            .await?
            .into_iter()
            .next())
    }

    /// Runs per state (the states no run is in are absent): a pass over every run.
    pub async fn status_counts(&self) -> Result<Vec<(RunState, i64)>> {
        const SQL: &str = "SELECT status, COUNT(*) FROM runs GROUP BY status ORDER BY status";
        self.counts_by_status(SQL).await
    }

    /// The runs waiting for a verdict (`queued`, `verifying`) per state, through the claim's
    /// partial index `runs_waiting`: as cheap as the queue is short, whatever the board.
    pub async fn waiting_counts(&self) -> Result<Vec<(RunState, i64)>> {
        const SQL: &str = "SELECT status, COUNT(*) FROM runs
                           WHERE status IN ('queued', 'verifying') GROUP BY status";
        self.counts_by_status(SQL).await
    }

    async fn counts_by_status(&self, sql: &str) -> Result<Vec<(RunState, i64)>> {
        let counts = on_pool!(self.store, |pool| {
            sqlx::query(sql)
                .fetch_all(pool)
                .await?
                .iter()
                .map(|row| {
                    let status = RunState::try_from(row.try_get::<String, _>(0)?)
                        .map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
                    Ok::<_, sqlx::Error>((status, row.try_get(1)?))
                })
                .collect::<Result<Vec<_>, _>>()?
        });
        Ok(counts)
    }

    /// Claims up to `max` runs waiting for verification, oldest first — queued, or being
    /// verified under a lease that expired (its claimer died) — for `owner` until
    /// `now + lease`, in one statement; sorted by run id.
    ///
    /// PostgreSQL: `FOR UPDATE SKIP LOCKED`, so several servers claiming at once each get
    /// different runs without waiting on each other (a row another claim has locked is
    /// skipped; one it has claimed and committed is re-checked and no longer matches).
    /// SQLite: the statement runs in an `IMMEDIATE` transaction, which holds the database's
    /// write lock from its start, so two claims are serialised and cannot pick the same row.
    pub async fn claim_batch(
        &self,
        owner: &str,
        now_ms: i64,
        lease_ms: i64,
        max: u32,
    ) -> Result<Vec<Claim>> {
        let until = now_ms.saturating_add(lease_ms);
        let mut rows: Vec<ClaimRow> = match &self.store.pool {
            Pool::Sqlite(pool) => {
                let sql = format!("{CLAIM}{CLAIM_RETURNING}");
                let mut tx = pool.begin_write().await?;
                let rows = sqlx::query_as(&sql)
                    .bind(owner)
                    .bind(until)
                    .bind(now_ms)
                    .bind(i64::from(max))
                    .fetch_all(&mut *tx)
                    .await?;
                tx.commit().await?;
                rows
            }
            Pool::Postgres(pool) => {
                let sql = format!("{CLAIM} FOR UPDATE SKIP LOCKED{CLAIM_RETURNING}");
                sqlx::query_as(&sql)
                    .bind(owner)
                    .bind(until)
                    .bind(now_ms)
                    .bind(i64::from(max))
                    .fetch_all(pool)
                    .await?
            }
        };
        rows.sort_by_key(|row| row.id);
        Ok(rows
            .into_iter()
            .map(|row| Claim {
                run_id: row.id,
                replay_hash: row.replay_hash,
                attempt: row.attempts,
                owner: owner.to_string(),
            })
            .collect())
    }

    /// Claims a batch as [`Queue::claim_batch`] does and reads what verifying it needs: the
    /// replays' bytes by run id (a run whose replay is missing is absent) and the runs uploaded
    /// under a run ticket, with their commitments. One round trip on PostgreSQL (two if a run
    /// has a ticket): each round trip wakes a database backend, which competes with the
    /// re-simulation for the CPU. On SQLite, in-process: the claim, the bytes and the
    /// tickets, one query each.
    pub async fn claim_and_read(
        &self,
        owner: &str,
        now_ms: i64,
        lease_ms: i64,
        max: u32,
    ) -> Result<ClaimRead> {
        let Pool::Postgres(pool) = &self.store.pool else {
            let claims = self.claim_batch(owner, now_ms, lease_ms, max).await?;
            let bytes = self.claimed_bytes(&claims).await?;
            let ids: Vec<i64> = claims.iter().map(|c| c.run_id).collect();
            let tickets = self.store.tickets().run_tickets(&ids).await?;
            return Ok(ClaimRead {
                claims,
                bytes,
                tickets,
            });
        };
        let until = now_ms.saturating_add(lease_ms);
        let mut rows = sqlx::query(&claim_read_postgres())
            .bind(owner)
            .bind(until)
            .bind(now_ms)
            .bind(i64::from(max))
            .fetch_all(pool)
            .await?;
        rows.sort_by_key(|row| row.try_get::<i64, _>(0).unwrap_or(i64::MAX));
        let mut read = ClaimRead::default();
        let mut ticketed = Vec::new();
        for row in rows {
            let run_id: i64 = row.try_get(0)?;
            read.claims.push(Claim {
                run_id,
                replay_hash: row.try_get(1)?,
                attempt: row.try_get(2)?,
                owner: owner.to_string(),
            });
            if let Some(bytes) = row.try_get::<Option<Vec<u8>>, _>(3)? {
                read.bytes.insert(run_id, bytes);
            }
            if row.try_get::<bool, _>(4)? {
                ticketed.push(run_id);
            }
        }
        // Only runs uploaded under a ticket need its commitments (a second round trip).
        read.tickets = self.store.tickets().run_tickets(&ticketed).await?;
        Ok(read)
    }

    /// The replay bytes of the claimed runs, by run id, in one query (a run whose replay is
    /// missing is absent).
    async fn claimed_bytes(&self, claims: &[Claim]) -> Result<HashMap<i64, Vec<u8>>> {
        if claims.is_empty() {
            return Ok(HashMap::new());
        }
        // `IN ($1, …, $n)`: the one list syntax both databases take.
        let list: Vec<String> = (1..=claims.len()).map(|i| format!("${i}")).collect();
        let sql = format!(
            "SELECT r.id, b.bytes FROM runs r JOIN replays b ON b.hash = r.replay_hash
             WHERE r.id IN ({})",
            list.join(", ")
        );
        let bytes = on_pool!(self.store, |pool| {
            let mut query = sqlx::query(&sql);
            for claim in claims {
                query = query.bind(claim.run_id);
            }
            query
                .fetch_all(pool)
                .await?
                .iter()
                .map(|row| Ok::<_, sqlx::Error>((row.try_get(0)?, row.try_get(1)?)))
                .collect::<Result<HashMap<i64, Vec<u8>>, _>>()?
        });
        Ok(bytes)
    }

    /// Writes a batch's verdicts and hands its unstarted claims back to the queue, in one
    /// transaction: all of it or none. Each write is fenced by its claim (still the run's
    /// latest, the run still `verifying`), so a claim lost since — its lease expired and the
    /// run was claimed again — changes nothing. Per verdict, whether it was written.
    pub async fn write_verdicts(
        &self,
        verdicts: &[(&Claim, &Verdict)],
        release: &[&Claim],
        now_ms: i64,
    ) -> Result<Vec<bool>> {
        let written = match &self.store.pool {
            Pool::Sqlite(pool) => {
                verdicts_in!(pool.begin_write().await?, verdicts, release, now_ms)
            }
            Pool::Postgres(pool) => {
                // Without runs to hand back (every batch but a server's last or a late one),
                // the verdicts are one statement: a transaction of its own, in one round trip
                // instead of three (BEGIN, the UPDATE, COMMIT).
                let mut tx = if release.is_empty() {
                    None
                } else {
                    Some(pool.begin_write().await?)
                };
                let columns: Vec<_> = verdicts
                    .iter()
                    .map(|(_, v)| VerdictColumns::of(v))
                    .collect();
                let written = sqlx::query_scalar::<_, i64>(VERDICTS_POSTGRES)
                    .bind(now_ms)
                    .bind(verdicts.iter().map(|(c, _)| c.run_id).collect::<Vec<_>>())
                    .bind(
                        verdicts
                            .iter()
                            .map(|(c, _)| c.owner.as_str())
                            .collect::<Vec<_>>(),
                    )
                    .bind(verdicts.iter().map(|(c, _)| c.attempt).collect::<Vec<_>>())
                    .bind(
                        columns
                            .iter()
                            .map(|c| c.status.as_str())
                            .collect::<Vec<_>>(),
                    )
                    .bind(columns.iter().map(|c| c.ticks).collect::<Vec<_>>())
                    .bind(columns.iter().map(|c| c.finish_tick).collect::<Vec<_>>())
                    .bind(columns.iter().map(|c| c.splits).collect::<Vec<_>>())
                    .bind(columns.iter().map(|c| c.reason_kind).collect::<Vec<_>>())
                    .bind(columns.iter().map(|c| c.reason).collect::<Vec<_>>())
                    .bind(
                        columns
                            .iter()
                            .map(|c| c.final_hash.as_deref())
                            .collect::<Vec<_>>(),
                    )
                    .bind(columns.iter().map(|c| c.realtime).collect::<Vec<_>>())
                    .bind(columns.iter().map(|c| c.realtime_note).collect::<Vec<_>>());
                let written: Vec<i64> = match tx.as_mut() {
                    Some(tx) => written.fetch_all(&mut **tx).await?,
                    None => written.fetch_all(pool).await?,
                };
                if let Some(mut tx) = tx {
                    release_in!(tx, release);
                    tx.commit().await?;
                }
                verdicts
                    .iter()
                    .map(|(c, _)| written.contains(&c.run_id))
                    .collect()
            }
        };
        Ok(written)
    }
}
