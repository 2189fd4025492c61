//! Live rooms (migration 0012; the races themselves are `crate::live`'s): the rows that let any
//! process find a room's home and the page list the races in progress, and a live run filed
//! as verified by its room, with no upload.

use sqlx::Row;

use super::filing::{FileRun, RunFiled, RunInsert, VerdictColumns};
use super::{BeginWrite, NewRun, Result, Store, Verdict};

/// A room's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoomRow {
    pub id: String,
    pub level: String,
    /// The home process's base URL.
    pub home: String,
    pub phase: String,
    pub go_ms: Option<i64>,
    pub updated_ms: i64,
    /// The room as its members see it (JSON).
    pub view: String,
}

/// A room's row to write.
#[derive(Clone, Copy, Debug)]
pub struct RoomWrite<'a> {
    pub id: &'a str,
    pub level: &'a str,
    pub home: &'a str,
    pub phase: &'a str,
    pub go_ms: Option<i64>,
    pub now_ms: i64,
    pub view: &'a str,
}

/// Rooms' rows, `{}` their values: each inserted the first time, its phase, GO and view
/// updated after — by its home only (a room another process took up is no longer this one's
/// to write); the ids of the rows written.
const WRITE_ROOMS: &str = "
    INSERT INTO rooms (id, level, home, created_ms, updated_ms, phase, go_ms, view)
    VALUES {}
    ON CONFLICT (id) DO UPDATE SET updated_ms = excluded.updated_ms, phase = excluded.phase,
        go_ms = excluded.go_ms, view = excluded.view
    WHERE rooms.home = excluded.home
    RETURNING id";

/// Rooms' rows one statement writes at most (eight parameters each: SQLite allows 32 766).
const ROOM_ROWS_PER_STATEMENT: usize = 1000;

/// The live rooms' rows, and filing a live run: `store.room_rows()`.
#[derive(Clone, Copy, Debug)]
pub struct RoomRows<'a> {
    pub(super) store: &'a Store,
}

impl RoomRows<'_> {
    /// Writes rooms' rows (`WRITE_ROOMS`), all in one transaction and one statement for up to
    /// `ROOM_ROWS_PER_STATEMENT` (1 000) rooms: a process writes every room it holds with one
    /// commit (SQLite: one sync to disk) and a round trip or two, however many there are. A
    /// room given twice is written once, as given last. The ids of the rooms not written
    /// (another home took them up), in id order.
    pub async fn write_rooms(&self, rooms: &[RoomWrite<'_>]) -> Result<Vec<String>> {
        // One row a room (PostgreSQL refuses a statement that updates a row twice): sorted by
        // id, each id's last given first, the others dropped.
        let mut unique: Vec<(usize, &RoomWrite<'_>)> = rooms.iter().enumerate().collect();
        unique.sort_unstable_by(|a, b| a.1.id.cmp(b.1.id).then(b.0.cmp(&a.0)));
        unique.dedup_by(|later, kept| later.1.id == kept.1.id);
        let unique: Vec<&RoomWrite<'_>> = unique.into_iter().map(|(_, room)| room).collect();
        if unique.is_empty() {
            return Ok(Vec::new());
        }
        let mut written: Vec<String> = Vec::with_capacity(unique.len());
        let postgres = self.store.backend() == "postgres";
        on_pool!(self.store, |pool| {
            let mut tx = pool.begin_write().await?;
            for chunk in unique.chunks(ROOM_ROWS_PER_STATEMENT) {
                let sql = WRITE_ROOMS.replace("{}", &super::value_rows(postgres, chunk.len(), 8));
                let mut query = sqlx::query_scalar::<_, String>(&sql);
                for room in chunk {
                    query = query
                        .bind(room.id)
                        .bind(room.level)
                        .bind(room.home)
                        .bind(room.now_ms)
                        .bind(room.now_ms)
                        .bind(room.phase)
                        .bind(room.go_ms)
                        .bind(room.view);
                }
                written.extend(query.fetch_all(&mut *tx).await?);
            }
            tx.commit().await?;
        });
        written.sort_unstable();
        Ok(unique
            .iter()
            .filter(|room| {
                written
                    .binary_search_by(|w| w.as_str().cmp(room.id))
                    .is_err()
            })
            .map(|room| room.id.to_string())
            .collect())
    }

    /// A room's row, if there is one.
    pub async fn room(&self, id: &str) -> Result<Option<RoomRow>> {
        const SQL: &str = "
            SELECT id, level, home, phase, go_ms, updated_ms, view FROM rooms WHERE id = $1";
        on_pool!(self.store, |pool| {
            let row = sqlx::query(SQL).bind(id).fetch_optional(pool).await?;
            row.map(|r| room_row(&r)).transpose()
        })
    }

    /// The rooms in progress (lobby, countdown, racing) written since `since_ms`, newest
    /// first, at most `limit`; of one level, or of every level. One index range scan.
    pub async fn live_rooms(
        &self,
        level: Option<&str>,
        since_ms: i64,
        limit: i64,
    ) -> Result<Vec<RoomRow>> {
        const SQL: &str = "
            SELECT id, level, home, phase, go_ms, updated_ms, view FROM rooms
            WHERE phase IN ('lobby', 'countdown', 'racing') AND updated_ms >= $1
              AND ($2 IS NULL OR level = $2)
            ORDER BY updated_ms DESC LIMIT $3";
        on_pool!(self.store, |pool| {
            sqlx::query(SQL)
                .bind(since_ms)
                .bind(level)
                .bind(limit)
                .fetch_all(pool)
                .await?
                .iter()
                .map(room_row)
                .collect()
        })
    }

    /// Files live runs, each already verified (its `verdict`) and raced in its room: each its
    /// replay and its run row, status verified, verified at its `uploaded_ms`, all in one
    /// transaction (a wave's finishes share one sync to disk), with no queue in between
    /// (`filing.rs`). The board's change feed sees each as any verdict (the insert trigger).
    /// Each one's id, in order; for bytes filed before (a retry, or a concurrent filing), that
    /// run's (nothing written for it). If the database refuses the transaction, each run is
    /// tried again alone, so that one it refuses fails by itself.
    pub async fn file_live_runs(&self, runs: &[LiveFiling<'_>]) -> Vec<Result<i64>> {
        match self.file_live_runs_at_once(runs).await {
            Ok(ids) => ids.into_iter().map(Ok).collect(),
            Err(e) if runs.len() == 1 => vec![Err(e)],
            Err(_) => {
                let mut each = Vec::with_capacity(runs.len());
                for run in runs {
                    each.push(
                        self.file_live_runs_at_once(std::slice::from_ref(run))
                            .await
                            .map(|ids| ids[0]),
                    );
                }
                each
            }
        }
    }

    /// [`file_live_runs`](Self::file_live_runs)' one transaction: every id, or nothing filed.
    async fn file_live_runs_at_once(&self, runs: &[LiveFiling<'_>]) -> Result<Vec<i64>> {
        let rows: Vec<RunInsert<'_>> = runs
            .iter()
            .map(|filing| RunInsert {
                room_id: Some(filing.room_id),
                ..RunInsert::judged(
                    filing.run,
                    VerdictColumns::of(filing.verdict),
                    filing.run.uploaded_ms,
                )
            })
            .collect();
        on_pool!(self.store, |pool| {
            let mut tx = pool.begin_write().await?;
            let mut ids = Vec::with_capacity(rows.len());
            let mut new = false;
            for row in &rows {
                ids.push(match tx.file_run(row).await? {
                    RunFiled::New(id) => {
                        new = true;
                        id
                    }
                    RunFiled::Duplicate(id) => id,
                });
            }
            if new {
                tx.commit().await?;
            }
            Ok(ids)
        })
    }
}

/// A live run to file ([`RoomRows::file_live_runs`]).
#[derive(Clone, Copy, Debug)]
pub struct LiveFiling<'a> {
    pub run: &'a NewRun<'a>,
    /// Its verdict: verified, with the room's real-time judgment.
    pub verdict: &'a Verdict,
    /// The room it was raced in.
    pub room_id: &'a str,
}

/// A batch of journal rows to append: `(room id, body)`, in order.
pub type JournalAppend<'a> = (&'a str, &'a [u8]);

/// The recursive query's two halves that walk room `$1`'s journal chain, selecting `$cols`
/// from each row `j`: its head's row, then each row's `prev`, back to the first. Each step
/// stays in the room and goes to a smaller id, so a damaged chain ends the walk rather than
/// looping.
macro_rules! chain_sql {
    ($cols:literal) => {
        concat!(
            "SELECT ",
            $cols,
            " FROM room_journal_heads h JOIN room_journal j ON j.id = h.last_id ",
            "WHERE h.room_id = $1 AND j.room_id = $1 ",
            "UNION ALL ",
            "SELECT ",
            $cols,
            " FROM chain c JOIN room_journal j ON j.id = c.prev ",
            "WHERE j.room_id = $1 AND j.id < c.id"
        )
    };
}

/// `rows` split so that each part has at most one row a room: a room's k-th row in the k-th
/// part, in order.
fn one_row_a_room<'r, 'a>(rows: &[&'r JournalAppend<'a>]) -> Vec<Vec<&'r JournalAppend<'a>>> {
    let mut parts: Vec<Vec<&JournalAppend<'_>>> = Vec::new();
    let mut seen: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for &row in rows {
        let k = seen.entry(row.0).or_insert(0);
        if *k == parts.len() {
            parts.push(Vec::new());
        }
        parts[*k].push(row);
        *k += 1;
    }
    parts
}

/// Which of `rooms` listed rooms are this home's (PostgreSQL: those that are, locked until
/// the commit) or not (SQLite: those that are not): the rooms' ids, then the home.
///
/// On SQLite, one primary-key lookup a listed room (`NOT EXISTS`): `NOT IN (SELECT id FROM
/// rooms WHERE home = ?)` passed over every room ever made at each commit (a scan, or an
/// automatic index built by one, by SQLite's version), `home` having no index (the plan test
/// below).
fn journal_listed_sql(postgres: bool, rooms: usize) -> String {
    if postgres {
        let ids = super::numbered(1, rooms, 1);
        let home = rooms + 1;
        format!("SELECT id FROM rooms WHERE id IN ({ids}) AND home = ${home} FOR SHARE")
    } else {
        format!(
            "SELECT column1 FROM (VALUES {}) WHERE NOT EXISTS \
             (SELECT 1 FROM rooms WHERE rooms.id = column1 AND rooms.home = ?)",
            super::anonymous(rooms, 1)
        )
    }
}

/// `rows` journal rows, one a room, each chained to its room's head: the room's id and the
/// row's body, row by row.
fn journal_insert_sql(postgres: bool, rows: usize) -> String {
    format!(
        "INSERT INTO room_journal (room_id, prev, body) \
         SELECT v.column1, h.last_id, v.column2 FROM (VALUES {}) AS v \
         LEFT JOIN room_journal_heads h ON h.room_id = v.column1",
        super::value_rows(postgres, rows, 2)
    )
}

/// The new heads of `rooms` rooms: their rows above the id bound first (only these rooms':
/// another home's rows may be there too on PostgreSQL, and their heads are that home's to
/// write), then the rooms' ids.
fn journal_heads_sql(postgres: bool, rooms: usize) -> String {
    format!(
        "INSERT INTO room_journal_heads (room_id, last_id) \
         SELECT room_id, MAX(id) FROM room_journal \
         WHERE id > {} AND room_id IN ({}) GROUP BY room_id \
         ON CONFLICT (room_id) DO UPDATE SET last_id = excluded.last_id",
        super::in_list(postgres, 1, 1),
        super::in_list(postgres, 2, rooms)
    )
}

/// Room `$1`'s journal rows' bodies, in the order they were appended.
const JOURNAL_SQL: &str = concat!(
    "WITH RECURSIVE chain (id, prev, body) AS (",
    chain_sql!("j.id, j.prev, j.body"),
    ") SELECT body FROM chain ORDER BY id"
);

/// Deletes room `$1`'s journal rows (not its head).
const FORGET_JOURNAL_SQL: &str = concat!(
    "DELETE FROM room_journal WHERE id IN (WITH RECURSIVE chain (id, prev) AS (",
    chain_sql!("j.id, j.prev"),
    ") SELECT id FROM chain)"
);

/// Journal rows one insert appends at most (two parameters each: SQLite allows 32 766).
const JOURNAL_ROWS_PER_STATEMENT: usize = 1000;

/// The live rooms' journals (migrations 0015 and 0019: an append-only table, each room's
/// rows a chain from its head; what they hold is `crate::live::journal`'s).
impl RoomRows<'_> {
    /// Appends `rows` in one transaction (one commit for every room of the process), each
    /// only while its room's home is still `home`: whether each row was written (`false`:
    /// another process took the room up). The row lock the check takes (PostgreSQL's `FOR
    /// SHARE`; SQLite writes one transaction at a time) orders it with a claim, so a row
    /// appended is one the new home reads.
    pub async fn append_journal(
        &self,
        home: &str,
        rows: &[JournalAppend<'_>],
    ) -> Result<Vec<bool>> {
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let postgres = self.store.backend() == "postgres";
        let mut written = Vec::with_capacity(rows.len());
        on_pool!(journal self.store, |pool| {
            let mut tx = pool.begin_write().await?;
            // Statements a chunk, not a room: which rooms are still this home's, then every
            // row of those rooms in one insert, and those rooms' new heads in one upsert.
            for chunk in rows.chunks(JOURNAL_ROWS_PER_STATEMENT) {
                let mut rooms: Vec<&str> = chunk.iter().map(|(id, _)| *id).collect();
                rooms.sort_unstable();
                rooms.dedup();
                // PostgreSQL: the rooms that are, their rows locked until the commit (`FOR
                // SHARE`), so that a claim waits for it. SQLite: its write lock, held from
                // `BEGIN IMMEDIATE`, orders the two; the query lists the rooms that are *not*
                // (nearly always none), as each row SQLite's thread hands back can be a
                // wake-up of this task: a hundred rooms, a hundred wake-ups a commit.
                let listed_sql = journal_listed_sql(postgres, rooms.len());
                let mut listed_query = sqlx::query_scalar::<_, String>(&listed_sql);
                for id in &rooms {
                    listed_query = listed_query.bind(*id);
                }
                listed_query = listed_query.bind(home);
                let listed_are_ours = postgres;
                let mut listed: Vec<String> = listed_query.fetch_all(&mut *tx).await?;
                listed.sort_unstable();
                let is_ours = |id: &str| {
                    listed.binary_search_by(|o| o.as_str().cmp(id)).is_ok() == listed_are_ours
                };
                let keep: Vec<&JournalAppend<'_>> =
                    chunk.iter().filter(|(id, _)| is_ours(id)).collect();
                written.extend(chunk.iter().map(|(id, _)| is_ours(id)));
                // Each row names its room's row before it (`prev`, from the room's head), so a
                // statement takes one row a room: a room's k-th row of the chunk goes in its
                // k-th statement. A room hands the writer one batch at a time, so there is
                // nearly always one statement (a closing room hands its last batch over with
                // one still waiting; a test appends several rows to a room at once).
                for round in one_row_a_room(&keep) {
                    // Every row this statement adds gets a larger id (PostgreSQL's identity
                    // hands its values out in order, so any id visible now was handed out
                    // before this statement's).
                    let before: i64 =
                        sqlx::query_scalar("SELECT COALESCE(MAX(id), 0) FROM room_journal")
                            .fetch_one(&mut *tx)
                            .await?;
                    let insert_sql = journal_insert_sql(postgres, round.len());
                    let mut insert = sqlx::query(&insert_sql);
                    for (id, body) in &round {
                        insert = insert.bind(*id).bind(*body);
                    }
                    insert.execute(&mut *tx).await?;
                    // The rooms' new heads: their rows above `before`.
                    let heads_sql = journal_heads_sql(postgres, round.len());
                    let mut heads = sqlx::query(&heads_sql).bind(before);
                    for (id, _) in &round {
                        heads = heads.bind(*id);
                    }
                    heads.execute(&mut *tx).await?;
                }
            }
            tx.commit().await?;
        });
        Ok(written)
    }

    /// Room `id`'s journal rows, in the order they were appended: its chain walked back from
    /// its head, a lookup by id a row.
    pub async fn journal(&self, id: &str) -> Result<Vec<Vec<u8>>> {
        on_pool!(self.store, |pool| {
            let rows = sqlx::query(JOURNAL_SQL).bind(id).fetch_all(pool).await?;
            rows.iter()
                .map(|r| r.try_get::<Vec<u8>, _>(0).map_err(Into::into))
                .collect()
        })
    }

    /// Whether room `id` has a journal (a row in it).
    pub async fn has_journal(&self, id: &str) -> Result<bool> {
        const SQL: &str = "SELECT COUNT(*) FROM room_journal_heads WHERE room_id = $1";
        on_pool!(self.store, |pool| {
            let count: i64 = sqlx::query_scalar(SQL).bind(id).fetch_one(pool).await?;
            Ok(count > 0)
        })
    }

    /// Deletes room `id`'s journal (the room closed in the normal way): its chain, then its
    /// head, in one transaction.
    pub async fn forget_journal(&self, id: &str) -> Result<()> {
        const HEAD: &str = "DELETE FROM room_journal_heads WHERE room_id = $1";
        on_pool!(self.store, |pool| {
            let mut tx = pool.begin_write().await?;
            sqlx::query(FORGET_JOURNAL_SQL)
                .bind(id)
                .execute(&mut *tx)
                .await?;
            sqlx::query(HEAD).bind(id).execute(&mut *tx).await?;
            tx.commit().await?;
        });
        Ok(())
    }

    /// The rooms to take up: those of home `home` (this process, restarted) and those whose
    /// row was last written before `stale_before_ms` (their home stopped writing), that are
    /// in progress or still have a journal (a race over whose room had not closed). At most
    /// `limit`, oldest first.
    pub async fn orphans(
        &self,
        home: &str,
        stale_before_ms: i64,
        limit: i64,
    ) -> Result<Vec<RoomRow>> {
        // Two index lookups, never a pass over every room ever made: the rooms in progress
        // (`rooms_live`), and those with a journal (`room_journal_heads`: a row a room).
        const SQL: &str = "
            SELECT id, level, home, phase, go_ms, updated_ms, view FROM (
                SELECT id, level, home, phase, go_ms, updated_ms, view FROM rooms
                WHERE phase IN ('lobby', 'countdown', 'racing')
                  AND (home = $1 OR updated_ms < $2)
                UNION
                SELECT id, level, home, phase, go_ms, updated_ms, view FROM rooms
                WHERE id IN (SELECT room_id FROM room_journal_heads)
                  AND (home = $1 OR updated_ms < $2)
            ) AS orphans
            ORDER BY updated_ms LIMIT $3";
        on_pool!(self.store, |pool| {
            sqlx::query(SQL)
                .bind(home)
                .bind(stale_before_ms)
                .bind(limit)
                .fetch_all(pool)
                .await?
                .iter()
                .map(room_row)
                .collect()
        })
    }

    /// Claims room `row` for home `home`: `true` if its row was still as read (no other
    /// process claimed it meanwhile), and it is now `home`'s, written at `now_ms`.
    pub async fn claim(&self, row: &RoomRow, home: &str, now_ms: i64) -> Result<bool> {
        const SQL: &str = "
            UPDATE rooms SET home = $1, updated_ms = $2
            WHERE id = $3 AND home = $4 AND updated_ms = $5";
        on_pool!(self.store, |pool| {
            let done = sqlx::query(SQL)
                .bind(home)
                .bind(now_ms)
                .bind(&row.id)
                .bind(&row.home)
                .bind(row.updated_ms)
                .execute(pool)
                .await?;
            Ok(done.rows_affected() == 1)
        })
    }

    /// Hands home `home`'s rooms over: their rows are marked stale (written at 0), so any
    /// process takes them up at once. The stopping process's last write.
    pub async fn hand_over(&self, home: &str) -> Result<u64> {
        const SQL: &str = "
            UPDATE rooms SET updated_ms = 0
            WHERE home = $1 AND (phase IN ('lobby', 'countdown', 'racing')
                   OR EXISTS (SELECT 1 FROM room_journal_heads h WHERE h.room_id = rooms.id))";
        on_pool!(self.store, |pool| {
            let done = sqlx::query(SQL).bind(home).execute(pool).await?;
            Ok(done.rows_affected())
        })
    }
}

fn room_row<R: Row>(row: &R) -> Result<RoomRow>
where
    usize: sqlx::ColumnIndex<R>,
    String: for<'r> sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    i64: for<'r> sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<i64>: for<'r> sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    Ok(RoomRow {
        id: row.try_get(0)?,
        level: row.try_get(1)?,
        home: row.try_get(2)?,
        phase: row.try_get(3)?,
        go_ms: row.try_get(4)?,
        updated_ms: row.try_get(5)?,
        view: row.try_get(6)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SQLite's plan of `sql` with `params` bound: one line a step (`SEARCH …`, `SCAN …`).
    async fn plan(pool: &sqlx::SqlitePool, sql: &str, params: &[&str]) -> Vec<String> {
        let explain = format!("EXPLAIN QUERY PLAN {sql}");
        let mut query = sqlx::query(&explain);
        for param in params {
            query = query.bind(*param);
        }
        let rows = query.fetch_all(pool).await.unwrap();
        rows.iter()
            .map(|row| row.try_get::<String, _>("detail").unwrap())
            .collect()
    }

    /// A commit's statements and a room's chain walk find the journal's rows by key on
    /// SQLite, whatever the tables hold: no step scans `rooms`, `room_journal` or the heads
    /// (only the statement's own `VALUES`, or the walk's queue), and none builds an automatic
    /// index, which is a scan of its table at each commit. The rooms' check once read `NOT IN
    /// (SELECT id FROM rooms WHERE home = ?)`: a pass over every room ever made, ten times a
    /// second (it fails this test: `SCAN rooms`).
    #[tokio::test]
    async fn the_journals_statements_find_rows_by_key_on_sqlite() {
        let pool = sqlx::SqlitePool::connect("sqlite::memory:").await.unwrap();
        super::super::SQLITE_MIGRATIONS.run(&pool).await.unwrap();
        let statements: [(&str, String, &[&str]); 5] = [
            ("check", journal_listed_sql(false, 2), &["a", "b", "home"]),
            (
                "insert",
                journal_insert_sql(false, 2),
                &["a", "x", "b", "y"],
            ),
            ("heads", journal_heads_sql(false, 2), &["0", "a", "b"]),
            ("read", JOURNAL_SQL.to_string(), &["a"]),
            ("forget", FORGET_JOURNAL_SQL.to_string(), &["a"]),
        ];
        let tables = ["rooms", "room_journal", "room_journal_heads", "j", "h"];
        for (what, sql, params) in statements {
            let steps = plan(&pool, &sql, params).await;
            for step in &steps {
                let scanned = step
                    .strip_prefix("SCAN ")
                    .map(|rest| rest.split_whitespace().next().unwrap_or_default());
                assert!(
                    !step.contains("AUTOMATIC") && !scanned.is_some_and(|t| tables.contains(&t)),
                    "{what}: {step} in {steps:#?}"
                );
            }
        }
        pool.close().await;
    }
}
