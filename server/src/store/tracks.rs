//! Player-made tracks (migration 0017): publishing one with its author's run, a track by id
//! or by level name, the lists, a rename, hiding one.
//!
//! A track's runs are ordinary runs (its `level` is the track's `t-…` name): the author's
//! enters the one way every run does (`filing.rs`), in the same transaction as the track's
//! row, so a track never exists without its author time and an author run never without
//! its track. The track's row keeps the run it was published with; its author time is read
//! from the runs under the rules the server runs ([`TrackRow::listed`]).

use sqlx::Row;

use super::filing::{FileRun, RunFiled, RunInsert, VerdictColumns};
use super::{BeginWrite, NewRun, Result, Store, Verdict};

/// The tracks' queries: `store.tracks()`.
#[derive(Clone, Copy, Debug)]
pub struct Tracks<'a> {
    pub(super) store: &'a Store,
}

/// A track as the API shows it, with its author's name and its counts.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct TrackRow {
    pub id: String,
    pub level: String,
    pub level_hash: String,
    pub author_id: i64,
    pub author: String,
    pub name: String,
    pub description: String,
    pub created_ms: i64,
    pub updated_ms: i64,
    pub remix_of: Option<String>,
    /// Hidden by an admin.
    pub hidden: bool,
    /// Its author is hidden (and so are their tracks).
    pub author_hidden: bool,
    /// The author's run under the server's rules (their first verified finish on the track's
    /// current open board); `None`: the track is unlisted (see [`TrackRow::listed`]).
    pub author_run_id: Option<i64>,
    /// That run's finish tick: the author time the medals follow from.
    pub author_finish_tick: Option<i64>,
    /// Shown tracks naming this one as their original.
    pub remixes: i64,
    /// Counting runs (verified, finished, shown) on its current open board.
    pub runs: i64,
    /// Runs verified on it in the popular list's window (0 outside that list).
    pub raced: i64,
}

impl TrackRow {
    /// Shown to everyone: neither it nor its author hidden.
    pub fn visible(&self) -> bool {
        !self.hidden && !self.author_hidden
    }

    /// In the lists: its author has finished it under the rules and tuning the server runs
    /// (the publish run, or its copy `pogo-server reverify` filed on the new board after a
    /// rules change, or any later finish of theirs). A track whose author run no longer
    /// finishes is unlisted until its author finishes it again.
    pub fn listed(&self) -> bool {
        self.author_run_id.is_some()
    }
}

/// A track to publish: its row's columns (checked already).
#[derive(Clone, Debug)]
pub struct NewTrack<'a> {
    pub id: &'a str,
    pub level: &'a str,
    pub level_json: &'a str,
    pub level_hash: &'a str,
    pub author_id: i64,
    pub name: &'a str,
    pub description: &'a str,
    pub created_ms: i64,
    pub remix_of: Option<&'a str>,
    pub author_finish_tick: i64,
}

/// What publishing did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Published {
    /// A new track, and its author's run.
    New { run_id: i64 },
    /// This geometry is published already (maybe concurrently): that track; nothing written.
    Existing,
    /// `remix_of` names no track: nothing written.
    UnknownOriginal,
    /// These replay bytes are filed already, as this run: nothing written.
    ReplayFiled(i64),
}

/// The level lookup of a track (`Catalog::resolve`): whether it is shown and its level hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackLevel {
    pub visible: bool,
    pub level_hash: String,
}

/// The board a track's `runs` count is read from: the server's rules version and tuning.
#[derive(Clone, Debug)]
pub struct CurrentRules {
    pub rules_version: u32,
    pub tuning_hash: String,
}

/// How a list is ordered, and where a page of it starts (after the cursor's row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrackOrder {
    /// Newest first; after (created_ms, id).
    New(Option<(i64, String)>),
    /// Most raced first, as last counted (`track_popularity`: tracks not raced in the window,
    /// or below its top, are not listed); after (raced, id).
    Popular { after: Option<(i64, String)> },
    /// Names starting with `prefix` (lower case), in name order; after (name_key, id).
    Name {
        prefix: String,
        after: Option<(String, String)>,
    },
}

/// A list's filters.
#[derive(Clone, Debug)]
pub struct TrackQuery {
    pub order: TrackOrder,
    pub author_id: Option<i64>,
    pub limit: i64,
}

/// The author's first verified, shown finish of track `t` on its current open board (`$1`
/// the rules version, `$2` the tuning hash): `{column}` of it. One entry of the partial index
/// `runs_track_author` (migration 0018), whose predicate the query repeats word for word so
/// that both databases may use it.
fn author_run(column: &str) -> String {
    format!(
        "(SELECT a.{column} FROM runs a WHERE a.player_id = t.author_id AND a.level = t.level
            AND a.level LIKE 't-%' AND a.status = 'verified' AND a.finish_tick IS NOT NULL
            AND a.rules_version = $1 AND a.level_hash = t.level_hash AND a.tuning_hash = $2
            AND a.hidden = FALSE
          ORDER BY a.uploaded_ms, a.id LIMIT 1)"
    )
}

/// The columns of a [`TrackRow`] from `tracks t JOIN players p`; `$1` the rules version,
/// `$2` the tuning hash (of the board its `runs` counts and its author run is on), `{raced}`
/// an expression.
fn columns(raced: &str) -> String {
    format!(
        "t.id, t.level, t.level_hash, t.author_id, {name} AS author, t.name, t.description,
         t.created_ms, t.updated_ms, t.remix_of, t.hidden, p.hidden AS author_hidden,
         {author_run_id} AS author_run_id, {author_finish_tick} AS author_finish_tick,
         (SELECT COUNT(*) FROM tracks x WHERE x.remix_of = t.id AND x.hidden = FALSE) AS remixes,
         COALESCE((SELECT c.runs FROM season_counts c WHERE c.level = t.level
                   AND c.rules_version = $1 AND c.level_hash = t.level_hash
                   AND c.tuning_hash = $2), 0) AS runs,
         {raced} AS raced",
        name = player_name!(),
        author_run_id = author_run("id"),
        author_finish_tick = author_run("finish_tick"),
    )
}

/// A bind of a list query.
enum Bind {
    Int(i64),
    Text(String),
}

/// The upper end of a prefix range: every text starting with `prefix` is below it (in byte
/// order, which both databases compare `name_key` in).
fn prefix_end(prefix: &str) -> String {
    format!("{prefix}\u{10FFFF}")
}

impl Tracks<'_> {
    /// Publishes `track` with its author's run (`run`, verified as `verdict`), in one
    /// transaction.
    pub async fn publish(
        &self,
        track: &NewTrack<'_>,
        run: &NewRun<'_>,
        verdict: &Verdict,
    ) -> Result<Published> {
        const EXISTS: &str = "SELECT 1 FROM tracks WHERE id = $1";
        const INSERT: &str = "
            INSERT INTO tracks (id, level, level_json, level_hash, author_id, name, name_key,
                                description, created_ms, updated_ms, remix_of, author_run_id,
                                author_finish_tick)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12)";
        let row = RunInsert::judged(run, VerdictColumns::of(verdict), run.uploaded_ms);
        let outcome = on_pool!(self.store, |pool| {
            let mut tx = pool.begin_write().await?;
            let exists = sqlx::query(EXISTS)
                .bind(track.id)
                .fetch_optional(&mut *tx)
                .await?;
            if exists.is_some() {
                return Ok(Published::Existing);
            }
            if let Some(original) = track.remix_of {
                let found = sqlx::query(EXISTS)
                    .bind(original)
                    .fetch_optional(&mut *tx)
                    .await?;
                if found.is_none() {
                    return Ok(Published::UnknownOriginal);
                }
            }
            let run_id = match tx.file_run(&row).await? {
                RunFiled::New(id) => id,
                RunFiled::Duplicate(id) => return Ok(Published::ReplayFiled(id)),
            };
            let inserted = sqlx::query(INSERT)
                .bind(track.id)
                .bind(track.level)
                .bind(track.level_json)
                .bind(track.level_hash)
                .bind(track.author_id)
                .bind(track.name)
                .bind(super::name_key(track.name))
                .bind(track.description)
                .bind(track.created_ms)
                .bind(track.remix_of)
                .bind(run_id)
                .bind(track.author_finish_tick)
                .execute(&mut *tx)
                .await;
            match inserted {
                Ok(_) => {
                    tx.commit().await?;
                    Published::New { run_id }
                }
                // The same geometry, committed by a concurrent publish since the look
                // (PostgreSQL; SQLite's write lock orders the two): the transaction is
                // rolled back (the author's run with it) and that track stands.
                Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Published::Existing,
                Err(e) => return Err(e.into()),
            }
        });
        Ok(outcome)
    }

    /// Tracks `author_id` published since `since_ms`, and the first of them (ms).
    pub async fn published_since(&self, author_id: i64, since_ms: i64) -> Result<(i64, i64)> {
        const SQL: &str = "SELECT COUNT(*), COALESCE(MIN(created_ms), 0) FROM tracks
                           WHERE author_id = $1 AND created_ms > $2";
        let counts = on_pool!(self.store, |pool| {
            let row = sqlx::query(SQL)
                .bind(author_id)
                .bind(since_ms)
                .fetch_one(pool)
                .await?;
            (row.try_get::<i64, _>(0)?, row.try_get::<i64, _>(1)?)
        });
        Ok(counts)
    }

    /// The track of level name `level`: whether it is shown, and its level hash.
    pub async fn level(&self, level: &str) -> Result<Option<TrackLevel>> {
        const SQL: &str = "SELECT t.hidden, p.hidden, t.level_hash FROM tracks t
                           JOIN players p ON p.id = t.author_id WHERE t.level = $1";
        let found = on_pool!(self.store, |pool| {
            match sqlx::query(SQL).bind(level).fetch_optional(pool).await? {
                Some(row) => Some(TrackLevel {
                    visible: !row.try_get::<bool, _>(0)? && !row.try_get::<bool, _>(1)?,
                    level_hash: row.try_get(2)?,
                }),
                None => None,
            }
        });
        Ok(found)
    }

    /// The level file of the track of level name `level`, as published.
    pub async fn level_json_by_level(&self, level: &str) -> Result<Option<String>> {
        const SQL: &str = "SELECT level_json FROM tracks WHERE level = $1";
        self.text(SQL, level).await
    }

    /// The level file of track `id`, as published.
    pub async fn level_json(&self, id: &str) -> Result<Option<String>> {
        const SQL: &str = "SELECT level_json FROM tracks WHERE id = $1";
        self.text(SQL, id).await
    }

    async fn text(&self, sql: &str, key: &str) -> Result<Option<String>> {
        let found = on_pool!(self.store, |pool| {
            sqlx::query(sql)
                .bind(key)
                .fetch_optional(pool)
                .await?
                .map(|row| row.try_get::<String, _>(0))
                .transpose()?
        });
        Ok(found)
    }

    /// Every track's level name, hidden ones too (`pogo-server reverify`).
    pub async fn levels(&self) -> Result<Vec<String>> {
        const SQL: &str = "SELECT level FROM tracks ORDER BY created_ms, id";
        let levels = on_pool!(self.store, |pool| {
            sqlx::query_scalar::<_, String>(SQL).fetch_all(pool).await?
        });
        Ok(levels)
    }

    /// Track `id`, shown or not.
    pub async fn track(&self, id: &str, rules: &CurrentRules) -> Result<Option<TrackRow>> {
        let sql = format!(
            "SELECT {} FROM tracks t JOIN players p ON p.id = t.author_id WHERE t.id = $3",
            columns("CAST(0 AS BIGINT)")
        );
        let row = on_pool!(self.store, |pool| {
            sqlx::query_as::<_, TrackRow>(&sql)
                .bind(i64::from(rules.rules_version))
                .bind(rules.tuning_hash.as_str())
                .bind(id)
                .fetch_optional(pool)
                .await?
        });
        Ok(row)
    }

    /// A page of the shown, listed tracks, as `query` orders and filters them: one keyset walk of
    /// one index (`tracks_new`, `tracks_author`, `tracks_name`, `track_popularity_rank`),
    /// never an `OFFSET`. A cursor is a bound on the index's first column and then the tie
    /// (`a <= x AND (a < x OR id < i)`), which both databases turn into where the walk starts;
    /// written as one OR it was a filter on PostgreSQL, and a page 50 pages in read 5 000 rows.
    pub async fn list(&self, query: &TrackQuery, rules: &CurrentRules) -> Result<Vec<TrackRow>> {
        let mut binds = vec![
            Bind::Int(i64::from(rules.rules_version)),
            Bind::Text(rules.tuning_hash.clone()),
        ];
        let next = |b: Bind, binds: &mut Vec<Bind>| {
            binds.push(b);
            format!("${}", binds.len())
        };
        let mut filters = vec![
            "t.hidden = FALSE".to_string(),
            "p.hidden = FALSE".into(),
            format!("{} IS NOT NULL", author_run("id")),
        ];
        if let Some(author) = query.author_id {
            filters.push(format!(
                "t.author_id = {}",
                next(Bind::Int(author), &mut binds)
            ));
        }
        let (from, raced, order) = match &query.order {
            TrackOrder::New(after) => {
                if let Some((created, id)) = after {
                    let c = next(Bind::Int(*created), &mut binds);
                    let i = next(Bind::Text(id.clone()), &mut binds);
                    filters.push(format!(
                        "t.created_ms <= {c} AND (t.created_ms < {c} OR t.id < {i})"
                    ));
                }
                (
                    "tracks t".to_string(),
                    "CAST(0 AS BIGINT)",
                    "t.created_ms DESC, t.id DESC",
                )
            }
            TrackOrder::Popular { after } => {
                if let Some((raced, id)) = after {
                    let r = next(Bind::Int(*raced), &mut binds);
                    let i = next(Bind::Text(id.clone()), &mut binds);
                    filters.push(format!(
                        "w.raced <= {r} AND (w.raced < {r} OR w.track_id > {i})"
                    ));
                }
                filters.push("t.id = w.track_id".into());
                (
                    // CROSS JOIN: SQLite keeps the table order as written, so the walk is
                    // always of the popularity index, whatever statistics it has (with none,
                    // it scanned every track: 158 ms at 100 000).
                    "track_popularity w CROSS JOIN tracks t".to_string(),
                    "w.raced",
                    "w.raced DESC, w.track_id ASC",
                )
            }
            TrackOrder::Name { prefix, after } => {
                let lo = next(Bind::Text(prefix.clone()), &mut binds);
                let hi = next(Bind::Text(prefix_end(prefix)), &mut binds);
                filters.push(format!("t.name_key >= {lo} AND t.name_key < {hi}"));
                if let Some((key, id)) = after {
                    let k = next(Bind::Text(key.clone()), &mut binds);
                    let i = next(Bind::Text(id.clone()), &mut binds);
                    filters.push(format!(
                        "t.name_key >= {k} AND (t.name_key > {k} OR t.id > {i})"
                    ));
                }
                (
                    "tracks t".to_string(),
                    "CAST(0 AS BIGINT)",
                    "t.name_key ASC, t.id ASC",
                )
            }
        };
        let limit = next(Bind::Int(query.limit), &mut binds);
        let sql = format!(
            "SELECT {columns} FROM {from} JOIN players p ON p.id = t.author_id
             WHERE {filters} ORDER BY {order} LIMIT {limit}",
            columns = columns(raced),
            filters = filters.join(" AND "),
        );
        let rows = on_pool!(self.store, |pool| {
            let mut q = sqlx::query_as::<_, TrackRow>(&sql);
            for bind in &binds {
                q = match bind {
                    Bind::Int(v) => q.bind(*v),
                    Bind::Text(v) => q.bind(v.as_str()),
                };
            }
            q.fetch_all(pool).await?
        });
        Ok(rows)
    }

    /// Counts the verified finishes on each shown track since `since_ms` (one range of
    /// `runs_track_recent`, read outside any write) and replaces `track_popularity` with the
    /// `top` most raced, in one short transaction; how many it holds.
    pub async fn count_popular(&self, since_ms: i64, top: i64) -> Result<usize> {
        const COUNT: &str = "
            SELECT t.id, w.raced
            FROM (SELECT level, COUNT(*) AS raced FROM runs
                  WHERE status = 'verified' AND finish_tick IS NOT NULL
                    AND level LIKE 't-%' AND verified_ms >= $1
                  GROUP BY level) w
            JOIN tracks t ON t.level = w.level
            WHERE t.hidden = FALSE
            ORDER BY w.raced DESC, t.id ASC
            LIMIT $2";
        const INSERT: &str = "INSERT INTO track_popularity (track_id, raced) ";
        let counted = on_pool!(self.store, |pool| {
            let counted: Vec<(String, i64)> = sqlx::query_as(COUNT)
                .bind(since_ms)
                .bind(top)
                .fetch_all(pool)
                .await?;
            let mut tx = pool.begin_write().await?;
            sqlx::query("DELETE FROM track_popularity")
                .execute(&mut *tx)
                .await?;
            for chunk in counted.chunks(500) {
                let mut insert = sqlx::QueryBuilder::new(INSERT);
                insert.push_values(chunk, |mut row, (id, raced)| {
                    row.push_bind(id.as_str()).push_bind(*raced);
                });
                insert.build().execute(&mut *tx).await?;
            }
            tx.commit().await?;
            counted.len()
        });
        Ok(counted)
    }

    /// Renames track `id` and sets its description (`None`: unchanged); whether it exists.
    pub async fn update(
        &self,
        id: &str,
        name: Option<&str>,
        description: Option<&str>,
        now_ms: i64,
    ) -> Result<bool> {
        const SQL: &str = "
            UPDATE tracks SET name = COALESCE($2, name), name_key = COALESCE($3, name_key),
                              description = COALESCE($4, description), updated_ms = $5
            WHERE id = $1";
        let done = on_pool!(self.store, |pool| {
            sqlx::query(SQL)
                .bind(id)
                .bind(name)
                .bind(name.map(super::name_key))
                .bind(description)
                .bind(now_ms)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(done == 1)
    }

    /// Hides or shows track `id`; whether it exists.
    pub async fn set_hidden(&self, id: &str, hidden: bool) -> Result<bool> {
        const SQL: &str = "UPDATE tracks SET hidden = $2 WHERE id = $1";
        let done = on_pool!(self.store, |pool| {
            sqlx::query(SQL)
                .bind(id)
                .bind(hidden)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(done == 1)
    }
}
