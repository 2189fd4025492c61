//! The queries of `pogo-server check` (`crate::check`): the database's own integrity check,
//! and every run, replay and player read back in pages, for the caller to compare.

use sqlx::{ConnectOptions, Row};

use super::{Pool, Result, Store};

/// How thorough the database's own check is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Thoroughness {
    /// SQLite `PRAGMA quick_check`: every page of the file read and its b-trees' structure
    /// checked, but not that each index agrees with its table (O(N), no sort).
    Quick,
    /// SQLite `PRAGMA integrity_check` (indexes against tables too) and
    /// `PRAGMA foreign_key_check`; PostgreSQL: `amcheck`'s `bt_index_check` on every b-tree
    /// index of the schema, when the extension is installed.
    Full,
}

/// What the database's own check did and found.
#[derive(Clone, Debug, Default)]
pub struct Integrity {
    /// What was checked, for the report (`PRAGMA integrity_check`, …).
    pub checked: String,
    /// Each problem it reported (empty: none).
    pub problems: Vec<String>,
}

/// A run as `check` compares it with its replay and player.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct RunCheck {
    pub id: i64,
    pub player_id: i64,
    /// `players.name` as stored (not the served form).
    pub name: String,
    /// Its copy (migration 0016).
    pub name_check: Option<String>,
    pub level: String,
    pub level_hash: String,
    pub tuning_hash: String,
    pub rules_version: i64,
    pub status: String,
    pub ticks: Option<i64>,
    pub finish_tick: Option<i64>,
    pub final_hash: Option<String>,
    pub replay_hash: Vec<u8>,
    /// `None`: no replay of that hash (its key or the run's damaged, or it was deleted).
    pub bytes: Option<Vec<u8>>,
}

/// A player as `check` reads it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PlayerCheck {
    pub id: i64,
    pub name: String,
    pub name_check: Option<String>,
    pub name_key: String,
}

/// A replay no run refers to.
#[derive(Clone, Debug)]
pub struct Orphan {
    pub hash: Vec<u8>,
    pub bytes: Vec<u8>,
}

impl Store {
    /// The database's own check of its files.
    pub async fn integrity(&self, how: Thoroughness) -> Result<Integrity> {
        match &self.pool {
            Pool::Sqlite(pool) => {
                let pragma = match how {
                    Thoroughness::Quick => "PRAGMA quick_check",
                    Thoroughness::Full => "PRAGMA integrity_check",
                };
                // On a connection of its own, outside the pool: the quick check at start runs
                // in the background and is dropped at shutdown, which must not wait for it.
                let mut conn = pool.connect_options().connect().await?;
                let mut problems: Vec<String> =
                    sqlx::query_scalar(pragma).fetch_all(&mut conn).await?;
                problems.retain(|p| p != "ok");
                let mut checked = pragma.to_string();
                if how == Thoroughness::Full {
                    checked.push_str(", PRAGMA foreign_key_check");
                    for row in sqlx::query("PRAGMA foreign_key_check")
                        .fetch_all(&mut conn)
                        .await?
                    {
                        let table: String = row.try_get(0)?;
                        let rowid: Option<i64> = row.try_get(1)?;
                        let parent: String = row.try_get(2)?;
                        problems.push(format!(
                            "{table} row {} refers to a missing {parent} row",
                            rowid.map_or("?".into(), |id| id.to_string())
                        ));
                    }
                }
                Ok(Integrity { checked, problems })
            }
            Pool::Postgres(pool) => {
                if how == Thoroughness::Quick {
                    return Ok(Integrity {
                        checked: "nothing (PostgreSQL checks its pages as it reads them; \
                                  `pogo-server check` runs amcheck)"
                            .into(),
                        problems: Vec::new(),
                    });
                }
                let amcheck: bool = sqlx::query_scalar(
                    "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'amcheck')",
                )
                .fetch_one(pool)
                .await?;
                if !amcheck {
                    return Ok(Integrity {
                        checked: "no index check: the amcheck extension is not installed \
                                  (`CREATE EXTENSION amcheck;` as a superuser enables it); every \
                                  table row is still read below"
                            .into(),
                        problems: Vec::new(),
                    });
                }
                const INDEXES: &str = "
                    SELECT c.relname, c.oid::BIGINT FROM pg_index i
                    JOIN pg_class c ON c.oid = i.indexrelid
                    JOIN pg_am a ON a.oid = c.relam
                    JOIN pg_namespace n ON n.oid = c.relnamespace
                    WHERE a.amname = 'btree' AND n.nspname = current_schema()
                    ORDER BY c.relname";
                let indexes: Vec<(String, i64)> = sqlx::query_as(INDEXES).fetch_all(pool).await?;
                let mut problems = Vec::new();
                for (index, oid) in &indexes {
                    let checked = sqlx::query("SELECT bt_index_check($1::BIGINT::OID::REGCLASS)")
                        .bind(oid)
                        .execute(pool)
                        .await;
                    if let Err(e) = checked {
                        problems.push(format!("index {index}: {e}"));
                    }
                }
                Ok(Integrity {
                    checked: format!("amcheck bt_index_check on {} b-tree indexes", indexes.len()),
                    problems,
                })
            }
        }
    }

    /// Up to `limit` runs after run id `after`, in id order, each with its player's stored
    /// name and its replay's bytes.
    pub async fn check_runs(&self, after: i64, limit: u32) -> Result<Vec<RunCheck>> {
        const SQL: &str = "
            SELECT r.id, r.player_id, p.name, p.name_check, r.level, r.level_hash,
                   r.tuning_hash, r.rules_version, r.status, r.ticks, r.finish_tick,
                   r.final_hash, r.replay_hash, b.bytes
            FROM runs r JOIN players p ON p.id = r.player_id
            LEFT JOIN replays b ON b.hash = r.replay_hash
            WHERE r.id > $1 ORDER BY r.id LIMIT $2";
        Ok(on_pool!(self, |pool| {
            sqlx::query_as(SQL)
                .bind(after)
                .bind(i64::from(limit))
                .fetch_all(pool)
                .await?
        }))
    }

    /// Up to `limit` players after id `after`, in id order.
    pub async fn check_players(&self, after: i64, limit: u32) -> Result<Vec<PlayerCheck>> {
        const SQL: &str = "SELECT id, name, name_check, name_key FROM players
                           WHERE id > $1 ORDER BY id LIMIT $2";
        Ok(on_pool!(self, |pool| {
            sqlx::query_as(SQL)
                .bind(after)
                .bind(i64::from(limit))
                .fetch_all(pool)
                .await?
        }))
    }

    /// Up to `limit` replays no run refers to, with keys after `after`, in key order (a
    /// replay whose key was damaged is one: its run's key no longer finds it).
    pub async fn check_orphans(&self, after: &[u8], limit: u32) -> Result<Vec<Orphan>> {
        const SQL: &str = "SELECT b.hash, b.bytes FROM replays b
                           WHERE b.hash > $1
                             AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.replay_hash = b.hash)
                           ORDER BY b.hash LIMIT $2";
        let rows: Vec<(Vec<u8>, Vec<u8>)> = on_pool!(self, |pool| {
            sqlx::query_as(SQL)
                .bind(after)
                .bind(i64::from(limit))
                .fetch_all(pool)
                .await?
        });
        Ok(rows
            .into_iter()
            .map(|(hash, bytes)| Orphan { hash, bytes })
            .collect())
    }
}
