//! The rank index against the SQL reference ranking, on real SQLite and PostgreSQL.
//!
//! Two `Store`s on one database stand for two server processes: runs are written behind
//! their backs with plain SQL (verdicts, hides, players hidden, runs filed late), and after
//! every few changes both must answer every read — pages, sizes, each player's rank, runs'
//! ranks, on the open and the real-time board — exactly as the window functions of
//! `Store::*_sql` do. Seeded; the seed is printed (`POGO_SEED=… cargo test --test ranks`).

mod support;

use pogo_server::config::DatabaseUrl;
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

async fn raw(backend: &Backend, url: &str) -> Raw {
    match backend {
        Backend::Sqlite => Raw::Sqlite(sqlx::SqlitePool::connect(url).await.unwrap()),
        Backend::Postgres(_) => Raw::Postgres(sqlx::PgPool::connect(url).await.unwrap()),
    }
}

/// Splits as the verifier stores them (`worker::splits_json`).
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

/// Every read of `store` on `board` equals the SQL reference's.
async fn agree(
    store: &Store,
    reference: &Store,
    board: &Board,
    players: i64,
    runs: i64,
    what: &str,
) {
    let size = reference.board_size_sql(board).await.unwrap();
    assert_eq!(store.board_size(board).await.unwrap(), size, "{what}: size");
    let want = reference.leaderboard_sql(board, 100, 0).await.unwrap();
    assert_eq!(
        store.leaderboard(board, 100, 0).await.unwrap(),
        want,
        "{what}: top 100"
    );
    for offset in [1, size / 3, size / 2, size - 1, size, size + 5] {
        let offset = offset.max(0) as u64;
        let want = reference.leaderboard_sql(board, 7, offset).await.unwrap();
        let got = store.leaderboard(board, 7, offset).await.unwrap();
        assert_eq!(got, want, "{what}: a page at offset {offset}");
    }
    for player in 1..=players {
        let want = reference.player_rank_sql(board, player).await.unwrap();
        let got = store.player_rank(board, player).await.unwrap();
        assert_eq!(got, want, "{what}: player {player}'s rank");
        // The page around them: 9 entries with theirs fifth (or as near as the top allows).
        let page = store
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
                    entries: reference.leaderboard_sql(board, 9, offset).await.unwrap(),
                };
                assert_eq!(page, Some(want), "{what}: the page around player {player}");
            }
        }
    }
    for run in 1..=runs {
        let want = reference.run_rank_sql(board, run).await.unwrap();
        assert_eq!(
            store.run_rank(board, run).await.unwrap(),
            want,
            "{what}: run {run}'s rank"
        );
    }
}

#[tokio::test]
async fn the_rank_index_agrees_with_the_sql_ranking_across_processes() {
    let seed = std::env::var("POGO_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20261203u64);
    println!("seed {seed} (POGO_SEED={seed} to replay)");
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let url = DatabaseUrl::parse(&db.url);
        let one = Store::open(&url).await.unwrap();
        let two = Store::open(&url).await.unwrap();
        let sql = raw(&backend, &db.url).await;
        let mut rng = Rng(seed | 1);
        const PLAYERS: i64 = 40;
        for p in 1..=PLAYERS {
            exec!(
                sql,
                // Ids are assigned in insertion order from 1 on both backends.
                "INSERT INTO players (name, name_key, token_hash, created_ms)
                 VALUES ($1, $2, $3, 0)",
                format!("P{p}"),
                format!("p{p}"),
                p.to_be_bytes().repeat(4)
            );
        }
        let boards = [
            board("one", Category::Open),
            board("one", Category::RealTime),
            board("two", Category::Open),
        ];
        // Both processes read once before the changes, so their indexes are built early
        // and must follow the feed (not be rebuilt from scratch at the end).
        for b in &boards {
            one.board_size(b).await.unwrap();
            two.board_size(b).await.unwrap();
        }
        let mut runs = 0i64;
        for round in 0..12 {
            for _ in 0..25 {
                match rng.below(10) {
                    // A new run, verified at once (a verdict) or queued then verified.
                    0..=5 => {
                        runs += 1;
                        let player = 1 + rng.below(PLAYERS as u64) as i64;
                        let level = if rng.below(4) == 0 { "two" } else { "one" };
                        let finish = 100 + rng.below(60) as i64;
                        let realtime = rng.below(2) == 0;
                        exec!(
                            sql,
                            "INSERT INTO replays (hash, bytes, size) VALUES ($1, $2, 1)",
                            runs.to_be_bytes().to_vec(),
                            vec![0u8]
                        );
                        exec!(
                            sql,
                            "INSERT INTO runs (player_id, replay_hash, level, level_hash,
                                 tuning_hash, rules_version, uploaded_ms, status)
                             VALUES ($1, $2, $3, '00000000000000aa', '00000000000000bb', 1,
                                     $4, 'queued')",
                            player,
                            runs.to_be_bytes().to_vec(),
                            level,
                            1_700_000_000_000 + runs * 1000
                        );
                        exec!(
                            sql,
                            "UPDATE runs SET status = 'verified', finish_tick = $1,
                                 realtime = $2, ticks = $1, verified_ms = 1, splits = $4
                             WHERE id = $3",
                            finish,
                            realtime,
                            runs,
                            splits(&[(Some(0), finish / 2), (None, finish)])
                        );
                    }
                    // A run hidden or shown again.
                    6 | 7 if runs > 0 => {
                        let run = 1 + rng.below(runs as u64) as i64;
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
                        let player = 1 + rng.below(PLAYERS as u64) as i64;
                        let hidden = rng.below(3) == 0;
                        exec!(
                            sql,
                            "UPDATE players SET hidden = $1 WHERE id = $2",
                            hidden,
                            player
                        );
                    }
                    // A verified run that finishes no more (as a re-verdict would say), or
                    // whose splits are written anew (the entry stays, what a page shows moves).
                    _ if runs > 0 => {
                        let run = 1 + rng.below(runs as u64) as i64;
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
                    _ => {}
                }
            }
            for b in &boards {
                let what = format!(
                    "{} round {round} {} {:?}",
                    backend.name(),
                    b.level,
                    b.category
                );
                agree(
                    &one,
                    &two,
                    b,
                    PLAYERS,
                    runs,
                    &format!("process one, {what}"),
                )
                .await;
                agree(
                    &two,
                    &one,
                    b,
                    PLAYERS,
                    runs,
                    &format!("process two, {what}"),
                )
                .await;
            }
        }
        one.close().await;
        two.close().await;
        db.remove().await;
    }
}
