//! Run tickets and their commitments (migration 0007; the protocol is `crate::realtime`'s).
//!
//! A ticket is one row of `tickets` (with its GO, migration 0010), its commitments rows of
//! `ticket_commits` numbered 0, 1, … in the order they arrived, at most one per kind and tick
//! (a repeated copy is the first one). Single use: the upload that names a ticket sets its
//! `run_id` in the transaction that stores the run (`Queue::insert_run`, through
//! [`CONSUME`]); `run_id` is `UNIQUE`, and the update only takes a ticket whose `run_id` is
//! still NULL, so two uploads naming one ticket cannot both succeed.
//!
//! A commitment is added in one write transaction that first takes the ticket's row lock
//! ([`Tickets::add_commit`]): commitments to one ticket are serialised against each other and
//! against the upload that consumes it, so two that arrive at the same moment are both
//! taken, in some order, and none is taken after the upload.

use sqlx::Row;

use super::{BeginWrite, Board, Result, Store, StoreError};
use crate::realtime::{Commit, CommitKind};

/// A ticket as stored, with where its commitments stand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ticket {
    /// 32 lowercase hex digits.
    pub id: String,
    pub player_id: i64,
    /// The board it was issued for (category: real-time).
    pub level: String,
    pub level_hash: String,
    pub tuning_hash: String,
    pub rules_version: i64,
    /// The server's clock at issue, Unix ms.
    pub issued_ms: i64,
    /// GO: the instant every commitment is measured from (the server's clock, Unix ms).
    pub go_ms: i64,
    /// The run that consumed it, once uploaded.
    pub run_id: Option<i64>,
    /// Its commitments so far, in the order received.
    pub commits: Vec<Commit>,
}

impl Ticket {
    /// Whether it was issued for `board`'s level, level version, tuning and rules.
    pub fn is_for(&self, level: &str, level_hash: &str, tuning_hash: &str, rules: u32) -> bool {
        self.level == level
            && self.level_hash == level_hash
            && self.tuning_hash == tuning_hash
            && self.rules_version == i64::from(rules)
    }
}

/// A ticket to issue ([`Tickets::mint_ticket`]).
#[derive(Clone, Copy, Debug)]
pub struct NewTicket<'a> {
    /// 32 lowercase hex digits.
    pub id: &'a str,
    pub player_id: i64,
    /// The board it is for (category: real-time).
    pub board: &'a Board,
    /// The server's clock now, Unix ms.
    pub issued_ms: i64,
    /// Its GO, Unix ms.
    pub go_ms: i64,
}

/// The result of asking for a ticket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Minted {
    Issued,
    /// The player holds `open` tickets not yet started within their start window, at or over
    /// the cap: nothing was stored.
    TooManyOpen {
        open: i64,
    },
}

/// A ticket's GO and commitments, for the verdict of the run that consumed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunTicket {
    /// GO (Unix ms, the server's clock).
    pub go_ms: i64,
    /// Its commitments, in the order they arrived.
    pub commits: Vec<Commit>,
}

/// The result of adding a commitment ([`Tickets::add_commit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Added {
    /// Stored as number `seq` (0: the first to arrive).
    New { seq: usize },
    /// The same commitment (kind, tick and hash) arrived before, as number `seq`: that one
    /// stands, with its arrival time.
    Again { seq: usize, first: Commit },
    /// A commitment of that kind and tick with another hash arrived before: nothing stored.
    Conflict { first: Commit },
    /// The ticket holds `max` commitments already: nothing stored.
    Full { max: usize },
    /// An upload has used the ticket meanwhile: nothing stored.
    Used,
}

/// Sets a ticket's run (`$1`) if no run has it yet (`$2`: the ticket id); run inside the
/// upload's transaction by `Queue::insert_run`. No row changed: another upload consumed it.
pub(super) const CONSUME: &str = "UPDATE tickets SET run_id = $1 WHERE id = $2 AND run_id IS NULL";

/// A row of `kind, tick, hash, received_ms` as a [`Commit`].
fn commit_row<R: Row>(row: &R) -> Result<Commit>
where
    usize: sqlx::ColumnIndex<R>,
    String: for<'r> sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    i64: for<'r> sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    commit_of(
        row.try_get::<String, _>(0)?.as_str(),
        row.try_get(1)?,
        row.try_get::<String, _>(2)?.as_str(),
        row.try_get(3)?,
    )
}

/// A stored commitment row back as a [`Commit`].
fn commit_of(kind: &str, tick: i64, hash: &str, received_ms: i64) -> Result<Commit> {
    let corrupt = || StoreError::Corrupt(format!("a commitment ({kind}, {tick}, {hash:?})"));
    Ok(Commit {
        kind: CommitKind::parse(kind).ok_or_else(corrupt)?,
        tick: u32::try_from(tick).map_err(|_| corrupt())?,
        hash: u64::from_str_radix(hash, 16).map_err(|_| corrupt())?,
        received_ms,
    })
}

/// Run tickets and their commitments: `store.tickets()`.
#[derive(Clone, Copy, Debug)]
pub struct Tickets<'a> {
    pub(super) store: &'a Store,
}

impl Tickets<'_> {
    /// Issues `ticket`, unless its player holds
    /// `open_max` tickets or more issued since `open_since_ms` that are neither started nor
    /// used (abandoned ones stop counting when their start window closes).
    ///
    /// One write transaction (SQLite: `BEGIN IMMEDIATE`, so count and insert are serialised).
    /// On PostgreSQL two concurrent requests of one player could both pass the count; the
    /// per-player mint rate limit in front of this bounds what that can add.
    pub async fn mint_ticket(
        &self,
        ticket: &NewTicket<'_>,
        open_since_ms: i64,
        open_max: i64,
    ) -> Result<Minted> {
        let NewTicket {
            id,
            player_id,
            board,
            issued_ms,
            go_ms,
        } = *ticket;
        const OPEN: &str = "
            SELECT COUNT(*) FROM tickets t
            WHERE t.player_id = $1 AND t.run_id IS NULL AND t.issued_ms >= $2
              AND NOT EXISTS (SELECT 1 FROM ticket_commits c WHERE c.ticket_id = t.id)";
        const INSERT: &str = "
            INSERT INTO tickets (id, player_id, level, level_hash, tuning_hash, rules_version,
                                 issued_ms, go_ms)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
        on_pool!(self.store, |pool| {
            let mut tx = pool.begin_write().await?;
            let open: i64 = sqlx::query(OPEN)
                .bind(player_id)
                .bind(open_since_ms)
                .fetch_one(&mut *tx)
                .await?
                .try_get(0)?;
            if open >= open_max {
                return Ok(Minted::TooManyOpen { open });
            }
            sqlx::query(INSERT)
                .bind(id)
                .bind(player_id)
                .bind(board.level.as_str())
                .bind(board.level_hash.as_str())
                .bind(board.tuning_hash.as_str())
                .bind(i64::from(board.rules_version))
                .bind(issued_ms)
                .bind(go_ms)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(Minted::Issued)
        })
    }

    /// A ticket with its commitments, if there is one of that id.
    pub async fn ticket(&self, id: &str) -> Result<Option<Ticket>> {
        const TICKET: &str = "
            SELECT player_id, level, level_hash, tuning_hash, rules_version, issued_ms, run_id,
                   go_ms
            FROM tickets WHERE id = $1";
        const COMMITS: &str = "
            SELECT kind, tick, hash, received_ms FROM ticket_commits
            WHERE ticket_id = $1 ORDER BY seq";
        on_pool!(self.store, |pool| {
            let Some(row) = sqlx::query(TICKET).bind(id).fetch_optional(pool).await? else {
                return Ok(None);
            };
            let commits = sqlx::query(COMMITS)
                .bind(id)
                .fetch_all(pool)
                .await?
                .iter()
                .map(commit_row)
                .collect::<Result<Vec<_>>>()?;
            Ok(Some(Ticket {
                id: id.to_string(),
                player_id: row.try_get(0)?,
                level: row.try_get(1)?,
                level_hash: row.try_get(2)?,
                tuning_hash: row.try_get(3)?,
                rules_version: row.try_get(4)?,
                issued_ms: row.try_get(5)?,
                run_id: row.try_get(6)?,
                go_ms: row.try_get(7)?,
                commits,
            }))
        })
    }

    /// Adds `commit` to ticket `id` unless it holds `max` commitments already, it holds one of
    /// the same kind and tick (the same hash: [`Added::Again`], that one stands; another:
    /// [`Added::Conflict`]), or an upload has used the ticket. One write transaction that
    /// first takes the ticket's row lock (an `UPDATE` of nothing on both databases; SQLite's
    /// `BEGIN IMMEDIATE` holds the write lock anyway), so concurrent commitments to one ticket
    /// are taken one after the other and none after the upload that consumes it.
    pub async fn add_commit(&self, id: &str, commit: &Commit, max: usize) -> Result<Added> {
        const LOCK: &str = "UPDATE tickets SET run_id = run_id WHERE id = $1 AND run_id IS NULL";
        const COMMITS: &str = "
            SELECT kind, tick, hash, received_ms FROM ticket_commits
            WHERE ticket_id = $1 ORDER BY seq";
        const INSERT: &str = "
            INSERT INTO ticket_commits (ticket_id, seq, kind, tick, hash, received_ms)
            VALUES ($1, $2, $3, $4, $5, $6)";
        on_pool!(self.store, |pool| {
            let mut tx = pool.begin_write().await?;
            let locked = sqlx::query(LOCK).bind(id).execute(&mut *tx).await?;
            if locked.rows_affected() != 1 {
                return Ok(Added::Used);
            }
            let held = sqlx::query(COMMITS)
                .bind(id)
                .fetch_all(&mut *tx)
                .await?
                .iter()
                .map(commit_row)
                .collect::<Result<Vec<_>>>()?;
            let same = |c: &&Commit| (c.kind, c.tick) == (commit.kind, commit.tick);
            if let Some((seq, first)) = held.iter().enumerate().find(|(_, c)| same(c)) {
                return Ok(if first.hash == commit.hash {
                    Added::Again { seq, first: *first }
                } else {
                    Added::Conflict { first: *first }
                });
            }
            if held.len() >= max {
                return Ok(Added::Full { max });
            }
            let seq = held.len();
            sqlx::query(INSERT)
                .bind(id)
                .bind(i64::try_from(seq).unwrap_or(i64::MAX))
                .bind(commit.kind.as_str())
                .bind(i64::from(commit.tick))
                .bind(super::hash_hex(commit.hash))
                .bind(commit.received_ms)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(Added::New { seq })
        })
    }

    /// The tickets a batch of runs consumed, by run id, each with its commitments in order
    /// (one query for the batch; runs uploaded without a ticket are absent).
    pub(super) async fn run_tickets(
        &self,
        run_ids: &[i64],
    ) -> Result<std::collections::HashMap<i64, RunTicket>> {
        let mut tickets = std::collections::HashMap::new();
        if run_ids.is_empty() {
            return Ok(tickets);
        }
        let list = (1..=run_ids.len())
            .map(|i| format!("${i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "SELECT t.run_id, t.go_ms, c.kind, c.tick, c.hash, c.received_ms
             FROM tickets t LEFT JOIN ticket_commits c ON c.ticket_id = t.id
             WHERE t.run_id IN ({list}) ORDER BY t.run_id, c.seq"
        );
        on_pool!(self.store, |pool| {
            let mut query = sqlx::query(&sql);
            for id in run_ids {
                query = query.bind(*id);
            }
            for row in query.fetch_all(pool).await? {
                let run_id: i64 = row.try_get(0)?;
                let go_ms: i64 = row.try_get(1)?;
                let ticket = tickets.entry(run_id).or_insert_with(|| RunTicket {
                    go_ms,
                    commits: Vec::new(),
                });
                let Some(kind) = row.try_get::<Option<String>, _>(2)? else {
                    continue;
                };
                ticket.commits.push(commit_of(
                    &kind,
                    row.try_get(3)?,
                    row.try_get::<String, _>(4)?.as_str(),
                    row.try_get(5)?,
                )?);
            }
        });
        Ok(tickets)
    }
}
