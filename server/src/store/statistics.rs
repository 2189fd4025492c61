//! The query planner's statistics, kept by the server itself: no operator runs `ANALYZE`.
//!
//! - **SQLite** keeps none unless asked. The server asks with `PRAGMA optimize` (`OPTIMIZE`)
//!   at start and every [`crate::limits::STATISTICS_EVERY`] after: SQLite (3.46 and later)
//!   then analyzes each table with rows that has an index never analyzed, or whose size
//!   changed tenfold since its last analysis, reading a bounded sample of it, and does nothing
//!   otherwise. A board that grows from nothing to a million runs is analyzed at about
//!   each tenfold, so its statistics are never more than one order of magnitude behind.
//! - **PostgreSQL** analyzes by itself as tables change (autovacuum, on by default: a table
//!   once a tenth of it has changed), but not soon after a bulk load or a restore: a top-20
//!   read of a freshly loaded million-run board took 6.6 s before autovacuum came by, 10 ms
//!   after. The server analyzes each table with rows and no statistics (`ANALYZE` samples a
//!   bounded number of rows), and says so if autovacuum is off.
//!
//! On SQLite the statements seen to go wrong without statistics are also told which index to
//! walk (`Store::sqlite_index`), so a board reads as fast before its first analysis as after
//! it; PostgreSQL has no such hint, and its plans rest on the statistics gathered here
//! (PERFORMANCE.md, "Boards without an operator").

use std::time::Instant;

use super::{Pool, Result, Store};

/// `PRAGMA optimize`'s mask: analyze (0x02) the tables that need it, each from a bounded
/// sample (0x10: SQLite's own limit of 2 000 rows an index; without it, a million-run table
/// is read whole), checking every table (0x10000), not only those the connection has queried
/// (a pooled connection may have queried none). With 0x01 added it only lists what it would
/// analyze.
const OPTIMIZE: &str = "PRAGMA optimize=0x10012";
const OPTIMIZE_LIST: &str = "PRAGMA optimize=0x10013";

/// What one round of [`Store::keep_statistics`] did.
#[derive(Debug, Default)]
pub struct Gathered {
    /// The tables with rows analyzed, as the statements that analyzed them (an empty table
    /// analyzed on the way is not listed).
    pub analyzed: Vec<String>,
    /// How long the round took, in ms.
    pub ms: u64,
    /// On PostgreSQL: whether autovacuum (and with it the automatic analyze) is on.
    pub autovacuum: Option<bool>,
}

/// The PostgreSQL tables of the server's schema with something on disk and no statistics:
/// never analyzed (a bulk load, a restore), or found empty when last analyzed (analyzing an
/// empty table leaves none). Read from the catalog, not from the cumulative counters
/// (`pg_stat_user_tables`), which a crash resets and which a backend reports up to a second
/// late. Whether each has rows now is asked of the table itself.
const UNANALYZED: &str = "
    SELECT quote_ident(c.relname) FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r'
      AND pg_relation_size(c.oid) > 0
      AND NOT EXISTS (SELECT 1 FROM pg_stats s
                      WHERE s.schemaname = n.nspname AND s.tablename = c.relname)
    ORDER BY c.relname";

impl Store {
    /// Brings the planner's statistics up to date where the database leaves it to us (see the
    /// module doc): one round, cheap when nothing changed much.
    pub async fn keep_statistics(&self) -> Result<Gathered> {
        let started = Instant::now();
        let mut gathered = Gathered::default();
        match &self.pool {
            Pool::Sqlite(pool) => {
                let mut conn = pool.acquire().await?;
                let listed = sqlx::query_scalar::<_, String>(OPTIMIZE_LIST)
                    .fetch_all(&mut *conn)
                    .await?;
                if listed.is_empty() {
                    return Ok(gathered);
                }
                sqlx::query(OPTIMIZE).execute(&mut *conn).await?;
                // An empty table without an index is listed every time (it has no figures to
                // compare with, and analyzing it writes none): done, but not worth a word.
                for analyze in listed {
                    // `ANALYZE "main"."table"`, quoted by SQLite from its own schema.
                    let table = analyze.trim_start_matches("ANALYZE ");
                    let has_rows: bool =
                        sqlx::query_scalar(&format!("SELECT EXISTS (SELECT 1 FROM {table})"))
                            .fetch_one(&mut *conn)
                            .await?;
                    if has_rows {
                        gathered.analyzed.push(analyze);
                    }
                }
            }
            Pool::Postgres(pool) => {
                let on: String = sqlx::query_scalar("SHOW autovacuum")
                    .fetch_one(pool)
                    .await?;
                gathered.autovacuum = Some(on == "on");
                let tables: Vec<String> = sqlx::query_scalar(UNANALYZED).fetch_all(pool).await?;
                for table in tables {
                    // A name from the catalog, quoted by it: no input of anyone's. An empty
                    // table (a journal whose rooms all closed) would gain nothing.
                    let has_rows: bool =
                        sqlx::query_scalar(&format!("SELECT EXISTS (SELECT 1 FROM {table})"))
                            .fetch_one(pool)
                            .await?;
                    if has_rows {
                        let analyze = format!("ANALYZE {table}");
                        sqlx::query(&analyze).execute(pool).await?;
                        gathered.analyzed.push(analyze);
                    }
                }
            }
        }
        gathered.ms = started.elapsed().as_millis() as u64;
        Ok(gathered)
    }
}
