//! The rank index against the SQL reference ranking, on real SQLite and PostgreSQL.
//!
//! Two `Store`s on one database stand for two server processes: runs are written behind
//! their backs with plain SQL (verdicts, hides, players hidden, runs filed late, runs of
//! other seasons, runs deleted), and after every few changes both must answer every read —
//! pages, sizes, each player's rank, runs' ranks, on the open and the real-time board —
//! exactly as the window functions of `Boards::*_sql` do, and the seasons list (its counts kept
//! by triggers) exactly as grouping every run does (`Seasons::list_sql`). The same reads are
//! checked while a board's index is held mid-build (answered from SQL, another path). Seeded;
//! the seed is printed (`POGO_SEED=… cargo test --test ranks`).

mod support;

use pogo_server::config::DatabaseUrl;
use std::time::Duration;

use pogo_server::store::{Board, BoardPage, Category, PageAt, Store};
use support::{Backend, TestDb, backends};

/// Runs one statement with its binds on whichever backend the test database is.
macro_rules! exec {
    ($db:expr, $sql:expr $(, $bind:expr)*) => {
        match &$db {
            Raw::Sqlite(pool) => {
                sqlx::query($sql)$(.bind($bind))*.execute(pool).await.unwrap();
            }
            Raw::Postgres(pool) => {
                sqlx::query($sql)$(.bind($bind))*.execute(pool).await.unwrap();
            }
        }
    };
}

enum Raw {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
}

/// Inserts a queued run (its replay first); its id. Ids come back from the database: SQLite
/// hands a deleted last run's id to the next insert, so counting inserts would not give them.
async fn insert_run(sql: &Raw, player: i64, hash: Vec<u8>, level: &str, level_hash: &str) -> i64 {
    const RUN: &str = "INSERT INTO runs (player_id, replay_hash, level, level_hash,
                           tuning_hash, rules_version, uploaded_ms, status)
                       VALUES ($1, $2, $3, $4, '00000000000000bb', 1, 1700000000000, 'queued')
                       RETURNING id";
    exec!(
        sql,
        "INSERT INTO replays (hash, bytes, size) VALUES ($1, $2, 1)",
        hash.clone(),
        vec![0u8]
    );
    match sql {
        Raw::Sqlite(pool) => sqlx::query_scalar(RUN)
            .bind(player)
            .bind(hash)
            .bind(level)
            .bind(level_hash)
            .fetch_one(pool)
            .await
            .unwrap(),
        Raw::Postgres(pool) => sqlx::query_scalar(RUN)
            .bind(player)
            .bind(hash)
            .bind(level)
            .bind(level_hash)
            .fetch_one(pool)
            .await
            .unwrap(),
    }
}

async fn raw(backend: &Backend, url: &str) -> Raw {
    match backend {
        Backend::Sqlite => Raw::Sqlite(sqlx::SqlitePool::connect(url).await.unwrap()),
        Backend::Postgres(_) => Raw::Postgres(sqlx::PgPool::connect(url).await.unwrap()),
    }
}

/// Splits as the verifier stores them (`verdict::splits_json`).
fn splits(pairs: &[(Option<u32>, i64)]) -> String {
    let list: Vec<String> = pairs
        .iter()
        .map(|(checkpoint, tick)| {
            let checkpoint = checkpoint.map_or("null".to_string(), |c| c.to_string());
            format!(r#"{{"checkpoint":{checkpoint},"tick":{tick}}}"#)
        })
        .collect();
    format!("[{}]", list.join(","))
}

/// xorshift64*: the test's reproducible sequence.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

fn board(level: &str, category: Category) -> Board {
    Board {
        level: level.into(),
        level_hash: "00000000000000aa".into(),
        tuning_hash: "00000000000000bb".into(),
        rules_version: 1,
        category,
    }
}

/// How long a read may take before the test calls it stuck (a read must never wait for a
/// build).
const READ_WAIT: Duration = Duration::from_secs(30);

/// Every read of `store` on `board` equals the SQL reference's, and `store` answers from its
/// index (`indexed`) or from SQL (not).
async fn agree(
    store: &Store,
    reference: &Store,
    board: &Board,
    players: i64,
    runs: i64,
    indexed: bool,
    what: &str,
) {
    let reads = agree_reads(store, reference, board, players, runs, what);
    tokio::time::timeout(READ_WAIT, reads)
        .await
        .unwrap_or_else(|_| panic!("{what}: the reads did not answer within {READ_WAIT:?}"));
    assert_eq!(
        store.boards().rank_index_built(board),
        indexed,
        "{what}: answered from the index"
    );
}

async fn agree_reads(
    store: &Store,
    reference: &Store,
    board: &Board,
    players: i64,
    runs: i64,
    what: &str,
) {
    let size = reference.boards().board_size_sql(board).await.unwrap();
    assert_eq!(
        store.boards().board_size(board).await.unwrap(),
        size,
        "{what}: size"
    );
    let want = reference
        .boards()
        .leaderboard_sql(board, 100, 0)
        .await
        .unwrap();
    assert_eq!(
        store.boards().leaderboard(board, 100, 0).await.unwrap(),
        want,
        "{what}: top 100"
    );
    for offset in [1, size / 3, size / 2, size - 1, size, size + 5] {
        let offset = offset.max(0) as u64;
        let want = reference
            .boards()
            .leaderboard_sql(board, 7, offset)
            .await
            .unwrap();
        let got = store.boards().leaderboard(board, 7, offset).await.unwrap();
        assert_eq!(got, want, "{what}: a page at offset {offset}");
    }
    for player in 1..=players {
        let want = reference
            .boards()
            .player_rank_sql(board, player)
            .await
            .unwrap();
        let got = store.boards().player_rank(board, player).await.unwrap();
        assert_eq!(got, want, "{what}: player {player}'s rank");
        // The page around them: 9 entries with theirs fifth (or as near as the top allows).
        let page = store
            .boards()
            .board_page(board, PageAt::Around(player), 9)
            .await
            .unwrap();
        match want {
            None => assert_eq!(page, None, "{what}: a page around unranked player {player}"),
            Some(rank) => {
                let offset = (rank - 1 - 4).max(0) as u64;
                let want = BoardPage {
                    offset,
                    total: size,
                    entries: reference
                        .boards()
                        .leaderboard_sql(board, 9, offset)
                        .await
                        .unwrap(),
                };
                assert_eq!(page, Some(want), "{what}: the page around player {player}");
            }
        }
    }
    for run in 1..=runs {
        let want = reference.boards().run_rank_sql(board, run).await.unwrap();
        assert_eq!(
            store.boards().run_rank(board, run).await.unwrap(),
            want,
            "{what}: run {run}'s rank"
        );
    }
}

/// Registers `count` players `P1`… (ids 1… on both backends: assigned in insertion order).
async fn players(sql: &Raw, count: i64) {
    for p in 1..=count {
        exec!(
            sql,
            "INSERT INTO players (name, name_key, token_hash, created_ms)
             VALUES ($1, $2, $3, 0)",
            format!("P{p}"),
            format!("p{p}"),
            p.to_be_bytes().repeat(4)
        );
    }
}

/// One random change written behind the stores' backs, as plain SQL: a run verified (on one
/// of two levels, now and then of another season), a run hidden or shown, a player hidden or
/// shown, a finish taken away, splits rewritten under a standing entry, a run deleted.
/// `runs` is the highest run id so far, `inserted` the runs inserted (their replays' hashes).
async fn change(sql: &Raw, rng: &mut Rng, runs: &mut i64, inserted: &mut i64, players: i64) {
    match rng.below(11) {
        // A new run, queued then verified (a verdict).
        0..=5 => {
            *inserted += 1;
            let player = 1 + rng.below(players as u64) as i64;
            let level = if rng.below(4) == 0 { "two" } else { "one" };
            let level_hash = if rng.below(6) == 0 {
                "00000000000000cc"
            } else {
                "00000000000000aa"
            };
            let finish = 100 + rng.below(60) as i64;
            let realtime = rng.below(2) == 0;
            let verified_ms = 1_700_000_000_000 + rng.below(1_000_000) as i64;
            let hash = inserted.to_be_bytes().to_vec();
            let run = insert_run(sql, player, hash, level, level_hash).await;
            *runs = (*runs).max(run);
            exec!(
                sql,
                "UPDATE runs SET status = 'verified', finish_tick = $1, realtime = $2,
                     ticks = $1, verified_ms = $5, splits = $4, uploaded_ms = $6
                 WHERE id = $3",
                finish,
                realtime,
                run,
                splits(&[(Some(0), finish / 2), (None, finish)]),
                verified_ms,
                1_700_000_000_000 + run * 1000
            );
        }
        // A run hidden or shown again.
        6 | 7 if *runs > 0 => {
            let run = 1 + rng.below(*runs as u64) as i64;
            let hidden = rng.below(2) == 0;
            exec!(
                sql,
                "UPDATE runs SET hidden = $1 WHERE id = $2",
                hidden,
                run
            );
        }
        // A player hidden or shown.
        8 => {
            let player = 1 + rng.below(players as u64) as i64;
            let hidden = rng.below(3) == 0;
            exec!(
                sql,
                "UPDATE players SET hidden = $1 WHERE id = $2",
                hidden,
                player
            );
        }
        // A verified run that finishes no more (as a re-verdict would say), or whose splits
        // are written anew (the entry stays, what a page shows moves).
        9 if *runs > 0 => {
            let run = 1 + rng.below(*runs as u64) as i64;
            if rng.below(2) == 0 {
                exec!(sql, "UPDATE runs SET finish_tick = NULL WHERE id = $1", run);
            } else {
                let split = 1 + rng.below(50) as i64;
                exec!(
                    sql,
                    "UPDATE runs SET splits = $1 WHERE id = $2",
                    splits(&[(Some(0), split), (Some(1), split + 1)]),
                    run
                );
            }
        }
        // A run deleted (a retention policy's, by hand).
        10 if *runs > 0 => {
            let run = 1 + rng.below(*runs as u64) as i64;
            exec!(sql, "DELETE FROM runs WHERE id = $1", run);
        }
        _ => {}
    }
}

/// The whole board walked from the index in batches of three, as an export does, equals the
/// reference's ranking.
async fn export_agrees(store: &Store, reference: &Store, board: &Board, what: &str) {
    let want = reference
        .boards()
        .leaderboard_sql(board, 100_000, 0)
        .await
        .unwrap();
    let (mut got, mut since, mut offset) = (Vec::new(), None, 0u64);
    loop {
        let (version, rows) = store
            .boards()
            .board_rows_indexed(board, since, offset, 3)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("{what}: the export left the index of an unchanged board"));
        since = Some(version);
        offset += rows.len() as u64;
        let short = rows.len() < 3;
        got.extend(rows);
        if short {
            break;
        }
    }
    assert_eq!(got, want, "{what}: the export from the index");
}

/// The seasons list from the kept counts equals the one grouping every run.
async fn seasons_agree(store: &Store, level: &str, what: &str) {
    let order = |mut rows: Vec<pogo_server::store::seasons::SeasonRow>| {
        rows.sort_by_key(|row| row.season);
        rows
    };
    let want = order(store.seasons().list_sql(level).await.unwrap());
    let got = order(store.seasons().list(level).await.unwrap());
    assert_eq!(got, want, "{what}: the seasons of {level}");
}

fn seed() -> u64 {
    let seed = std::env::var("POGO_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20261203u64);
    println!("seed {seed} (POGO_SEED={seed} to replay)");
    seed
}

#[tokio::test]
async fn the_rank_index_agrees_with_the_sql_ranking_across_processes() {
    let seed = seed();
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let url = DatabaseUrl::parse(&db.url);
        let one = Store::open(&url).await.unwrap();
        let two = Store::open(&url).await.unwrap();
        let sql = raw(&backend, &db.url).await;
        let mut rng = Rng(seed | 1);
        const PLAYERS: i64 = 40;
        players(&sql, PLAYERS).await;
        let boards = [
            board("one", Category::Open),
            board("one", Category::RealTime),
            board("two", Category::Open),
        ];
        // Both processes build their indexes early, so that they must follow the feed (not
        // be rebuilt from scratch at the end).
        one.boards().keep_ranks_up(&boards).await.unwrap();
        two.boards().keep_ranks_up(&boards).await.unwrap();
        let (mut runs, mut inserted) = (0i64, 0i64);
        for round in 0..12 {
            // What an export of each board began on: the index's version, and the board.
            let mut began = Vec::new();
            for b in &boards {
                let (version, _) = one
                    .boards()
                    .board_rows_indexed(b, None, 0, 1)
                    .await
                    .unwrap()
                    .unwrap();
                began.push((
                    version,
                    two.boards().leaderboard_sql(b, 100_000, 0).await.unwrap(),
                ));
            }
            for _ in 0..25 {
                change(&sql, &mut rng, &mut runs, &mut inserted, PLAYERS).await;
            }
            for (b, (version, board_then)) in boards.iter().zip(began) {
                let now = two.boards().leaderboard_sql(b, 100_000, 0).await.unwrap();
                let next = one
                    .boards()
                    .board_rows_indexed(b, Some(version), 0, 1)
                    .await
                    .unwrap();
                if now != board_then {
                    let what = format!("{} round {round} {b:?}", backend.name());
                    assert!(next.is_none(), "{what}: an export read on past a change");
                }
            }
            for b in &boards {
                let what = format!(
                    "{} round {round} {} {:?}",
                    backend.name(),
                    b.level,
                    b.category
                );
                let (p, r) = (PLAYERS, runs);
                agree(&one, &two, b, p, r, true, &format!("process one, {what}")).await;
                agree(&two, &one, b, p, r, true, &format!("process two, {what}")).await;
                export_agrees(&one, &two, b, &what).await;
            }
            for level in ["one", "two"] {
                seasons_agree(&one, level, &format!("{} round {round}", backend.name())).await;
            }
        }
        // Not vacuous: the changes landed (a run id miscounted once left every run queued).
        let size = one.boards().board_size_sql(&boards[0]).await.unwrap();
        assert!(
            size >= PLAYERS / 4,
            "{}: {size} entries at the end",
            backend.name()
        );
        one.close().await;
        two.close().await;
        db.remove().await;
    }
}

/// While a board's index is being built (its build held before it is published), its reads
/// answer — from SQL, exactly as the reference does, changes included — and once it is
/// published they answer from the index, with the changes made during the build (the feed
/// having been read past them meanwhile).
#[tokio::test]
async fn reads_during_a_build_answer_from_sql_and_agree() {
    let seed = seed();
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let url = DatabaseUrl::parse(&db.url);
        let store = Store::open(&url).await.unwrap();
        let reference = Store::open(&url).await.unwrap();
        let sql = raw(&backend, &db.url).await;
        let mut rng = Rng(seed.rotate_left(17) | 1);
        const PLAYERS: i64 = 30;
        players(&sql, PLAYERS).await;
        let (mut runs, mut inserted) = (0i64, 0i64);
        for _ in 0..60 {
            change(&sql, &mut rng, &mut runs, &mut inserted, PLAYERS).await;
        }
        let boards = [
            board("one", Category::Open),
            board("one", Category::RealTime),
        ];
        let size = reference.boards().board_size_sql(&boards[0]).await.unwrap();
        assert!(size >= PLAYERS / 4, "{}: {size} entries", backend.name());
        let hold = store.boards().hold_rank_builds().await;
        for round in 0..4 {
            for b in &boards {
                let what = format!("{} held, round {round}, {:?}", backend.name(), b.category);
                agree(&store, &reference, b, PLAYERS, runs, false, &what).await;
            }
            for _ in 0..20 {
                change(&sql, &mut rng, &mut runs, &mut inserted, PLAYERS).await;
            }
            // The feed read past where the held builds began: publishing must apply the rows
            // in between, which no later catch-up will.
            store.boards().keep_ranks_up(&[]).await.unwrap();
        }
        drop(hold);
        store.boards().keep_ranks_up(&boards).await.unwrap();
        for b in &boards {
            let what = format!("{} built, {:?}", backend.name(), b.category);
            agree(&store, &reference, b, PLAYERS, runs, true, &what).await;
        }
        store.close().await;
        reference.close().await;
        db.remove().await;
    }
}

/// The tables of the database that have planner statistics: SQLite's `sqlite_stat1`, and
/// PostgreSQL's `pg_stats`, among `players`, `runs` and `replays`.
async fn analyzed(sql: &Raw) -> Vec<String> {
    const SQLITE: &str = "SELECT DISTINCT tbl FROM sqlite_stat1
                          WHERE tbl IN ('players', 'runs', 'replays') ORDER BY tbl";
    const POSTGRES: &str = "SELECT DISTINCT tablename::TEXT FROM pg_stats
                            WHERE schemaname = current_schema()
                              AND tablename IN ('players', 'runs', 'replays') ORDER BY 1";
    match sql {
        // No `sqlite_stat1` at all until something was analyzed.
        Raw::Sqlite(pool) => sqlx::query_scalar(SQLITE)
            .fetch_all(pool)
            .await
            .unwrap_or_default(),
        Raw::Postgres(pool) => sqlx::query_scalar(POSTGRES).fetch_all(pool).await.unwrap(),
    }
}

/// Three rounds of statistics that report nothing.
async fn quiet_rounds(store: &Store, what: &str) {
    for round in 0..3 {
        let gathered = store.keep_statistics().await.unwrap();
        assert_eq!(
            gathered.analyzed,
            Vec::<String>::new(),
            "{what}: round {round}"
        );
    }
}

/// Issue 38: the planner's statistics need no operator. A round on a new database analyzes
/// no empty table; once the tables have rows it analyzes each of them (SQLite's `PRAGMA optimize`:
/// never analyzed; PostgreSQL: no statistics), the next rounds, with nothing changed, analyze
/// nothing, and tables emptied (one never analyzed, one analyzed) are nothing to report. (Without the server's round, neither database has any: the
/// assertion in the middle fails on both.)
#[tokio::test]
async fn the_store_gathers_the_planners_statistics_itself() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let store = Store::open(&DatabaseUrl::parse(&db.url)).await.unwrap();
        let sql = raw(&backend, &db.url).await;
        let what = backend.name();
        // A replay stored and deleted: `replays` has a page and no row.
        exec!(
            sql,
            "INSERT INTO replays (hash, bytes, size) VALUES ($1, $2, 1)",
            vec![7u8; 32],
            vec![0u8]
        );
        exec!(sql, "DELETE FROM replays");
        // The migrations' own rows are analyzed; the empty tables are not listed.
        let round = store.keep_statistics().await.unwrap();
        for table in ["players", "replays", "runs"] {
            assert!(
                !round.analyzed.iter().any(|a| a.contains(table)),
                "{what}: {table} (empty) in {:?}",
                round.analyzed
            );
        }
        players(&sql, 50).await;
        for p in 1..=50 {
            insert_run(
                &sql,
                p,
                p.to_be_bytes().repeat(4),
                "one",
                "00000000000000aa",
            )
            .await;
        }
        assert_eq!(analyzed(&sql).await, Vec::<String>::new(), "{what}: before");
        let round = store.keep_statistics().await.unwrap();
        for table in ["players", "replays", "runs"] {
            assert!(
                round.analyzed.iter().any(|a| a.contains(table)),
                "{what}: {table} not in {:?}",
                round.analyzed
            );
        }
        assert_eq!(
            analyzed(&sql).await,
            ["players", "replays", "runs"],
            "{what}"
        );
        quiet_rounds(&store, &format!("{what}, nothing changed")).await;
        // Emptied: nothing to say, then or later.
        exec!(sql, "DELETE FROM runs");
        exec!(sql, "DELETE FROM replays");
        quiet_rounds(&store, &format!("{what}, emptied")).await;
        store.close().await;
        db.remove().await;
    }
}
