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

/// A room's row: inserted the first time, its phase, GO and view updated after.
const WRITE_ROOM: &str = "
    INSERT INTO rooms (id, level, home, created_ms, updated_ms, phase, go_ms, view)
    VALUES ($1, $2, $3, $4, $4, $5, $6, $7)
    ON CONFLICT (id) DO UPDATE SET updated_ms = $4, phase = $5, go_ms = $6, view = $7";

/// The live rooms' rows, and filing a live run: `store.rooms()`.
#[derive(Clone, Copy, Debug)]
pub struct Rooms<'a> {
    pub(super) store: &'a Store,
}

impl Rooms<'_> {
    /// Writes rooms' rows (`WRITE_ROOM`), all in one transaction: a process writes every
    /// room it holds with one commit (SQLite: one sync to disk), however many there are.
    pub async fn write_rooms(&self, rooms: &[RoomWrite<'_>]) -> Result<()> {
        if rooms.is_empty() {
            return Ok(());
        }
        on_pool!(self.store, |pool| {
            let mut tx = pool.begin_write().await?;
            for room in rooms {
                sqlx::query(WRITE_ROOM)
                    .bind(room.id)
                    .bind(room.level)
                    .bind(room.home)
                    .bind(room.now_ms)
                    .bind(room.phase)
                    .bind(room.go_ms)
                    .bind(room.view)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
        });
        Ok(())
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

    /// Files a live run, already verified (`verdict`), raced in room `room_id`: its replay
    /// and its run row, status verified, verified at `run.uploaded_ms`, in one transaction,
    /// with no queue in between (`filing.rs`). The board's change feed sees it as any verdict
    /// (the insert trigger). Its id; the bytes filed before (a retry), or by a concurrent
    /// filing, that run's (nothing written).
    pub async fn file_live_run(
        &self,
        run: &NewRun<'_>,
        verdict: &Verdict,
        room_id: &str,
    ) -> Result<i64> {
        let row = RunInsert {
            room_id: Some(room_id),
            ..RunInsert::judged(run, VerdictColumns::of(verdict), run.uploaded_ms)
        };
        on_pool!(self.store, |pool| {
            let mut tx = pool.begin_write().await?;
            match tx.file_run(&row).await? {
                RunFiled::New(id) => {
                    tx.commit().await?;
                    Ok(id)
                }
                RunFiled::Duplicate(id) => Ok(id),
            }
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
