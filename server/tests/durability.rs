//! Durability and scale-out, with the real binary: `kill -9` in the middle of a burst of
//! uploads loses no acknowledged run and verifies each exactly once after a restart (SQLite
//! and PostgreSQL); two servers on one PostgreSQL share the work, and when one dies the
//! other takes over its claims once their leases expire. Also, on the store, both backends:
//! the claim/lease/verdict protocol itself, two identical replays filed at once through any
//! two ways in (a live room, reverify, an upload) are one run, and a live room's rows (its
//! row, its journal) are written only by its home.

mod support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use pogo_server::store::reverify::{Candidate, Filed, Recheck};
use pogo_server::store::{Board, Category, Claim, Inserted, LiveFiling, NewRun, Store, Verdict};
use serde_json::Value;
use sha2::{Digest, Sha256};
use sqlx::Connection;
use support::*;

/// Player `p`, registered on `store`.
async fn player_p(store: &Store) -> pogo_server::store::PlayerRow {
    store
        .players()
        .register("p", &[7; 32], 0)
        .await
        .unwrap()
        .unwrap()
}

/// The claim protocol: a claim is exclusive; an expired lease is claimed again (attempt 2);
/// the stale claim's verdict is refused, the new one's written, and only once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claims_are_exclusive_leases_expire_and_a_verdict_is_written_once() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let store = store_on(&db).await;
        let player = player_p(&store).await;
        assert!(
            store
                .players()
                .register("P", &[8; 32], 0)
                .await
                .unwrap()
                .is_none(),
            "case-insensitive"
        );
        let mut ids = Vec::new();
        for i in 0..2u8 {
            let bytes = vec![i; 10];
            let run = NewRun {
                player_id: player.id,
                bytes: &bytes,
                replay_hash: Sha256::digest(&bytes).into(),
                level: "flat",
                level_hash: "0".into(),
                tuning_hash: "0".into(),
                rules_version: 1,
                uploaded_ms: 0,
                ticket: None,
            };
            match store.queue().insert_run(&run, 100).await.unwrap() {
                Inserted::New(id) => ids.push(id),
                other => panic!("{other:?}"),
            }
            assert_eq!(
                store.queue().insert_run(&run, 100).await.unwrap(),
                Inserted::Duplicate(ids[i as usize])
            );
        }
        let now = 1_000_000;
        let a = store.queue().claim("a", now, 1000).await.unwrap().unwrap();
        let b = store.queue().claim("b", now, 1000).await.unwrap().unwrap();
        assert_eq!(
            (a.run_id, b.run_id),
            (ids[0], ids[1]),
            "oldest first, never the same"
        );
        assert!(
            store.queue().claim("c", now, 1000).await.unwrap().is_none(),
            "both leased"
        );
        // a's lease expires; c takes the run over.
        let c = store
            .queue()
            .claim("c", now + 1001, 1000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!((c.run_id, c.attempt), (ids[0], 2));
        let verdict = Verdict::Verified {
            ticks: 10,
            finish_tick: Some(9),
            splits: "[]".into(),
            final_hash: 0x0123_4567_89ab_cdef,
            realtime: false,
            realtime_note: None,
        };
        assert!(
            !write_one(&store, &a, &verdict, now).await,
            "stale claim refused"
        );
        assert!(write_one(&store, &c, &verdict, now).await);
        assert!(!write_one(&store, &c, &verdict, now).await, "written once");
        let rejected = Verdict::Rejected {
            kind: "desync".into(),
            reason: "desync at tick 5".into(),
        };
        assert!(write_one(&store, &b, &rejected, now).await);
        let run = store.runs().run(ids[0]).await.unwrap().unwrap();
        assert_eq!(
            (
                run.status.as_str(),
                run.finish_tick,
                run.final_hash.as_deref()
            ),
            ("verified", Some(9), Some("0123456789abcdef"))
        );
        let run = store.runs().run(ids[1]).await.unwrap().unwrap();
        assert_eq!(run.status.as_str(), "rejected");
        assert_eq!(run.reason.as_deref(), Some("desync at tick 5"));
        assert_eq!(run.final_hash, None);
        // Terminal runs are never claimed again, however old.
        assert!(
            store
                .queue()
                .claim("d", now + 10_000_000, 1000)
                .await
                .unwrap()
                .is_none()
        );
        store.close().await;
        db.remove().await;
    }
}

/// A way a run enters the database, for [`identical_replays_filed_at_once_are_one_run`].
#[derive(Clone, Debug)]
enum Way {
    /// Filed verified by a live room.
    Live,
    /// Re-verified onto the target season, a copy of this candidate.
    Reverify(Candidate),
    /// Uploaded, queued.
    Upload,
}

/// The season the race's runs are filed on (the originals of the re-verified copies are on
/// another: `level_hash` "0", rules 1).
fn race_board() -> Board {
    Board {
        level: "flat".into(),
        level_hash: "1".into(),
        tuning_hash: "1".into(),
        rules_version: 2,
        category: Category::Open,
    }
}

/// Files `bytes` for `player` the `way` way: the run's id, and whether it is new (`None`:
/// a live room is not told).
async fn file_by(store: Store, way: Way, player: i64, bytes: Vec<u8>) -> (i64, Option<bool>) {
    let board = race_board();
    let replay_hash: [u8; 32] = Sha256::digest(&bytes).into();
    let verdict = Verdict::Verified {
        ticks: 10,
        finish_tick: Some(9),
        splits: "[]".into(),
        final_hash: 7,
        realtime: false,
        realtime_note: None,
    };
    let run = NewRun {
        player_id: player,
        bytes: &bytes,
        replay_hash,
        level: &board.level,
        level_hash: board.level_hash.clone(),
        tuning_hash: board.tuning_hash.clone(),
        rules_version: board.rules_version,
        uploaded_ms: 1_000,
        ticket: None,
    };
    match way {
        Way::Live => {
            let filing = LiveFiling {
                run: &run,
                verdict: &verdict,
                room_id: "room",
            };
            let ids = store.room_rows().file_live_runs(&[filing]).await;
            (*ids[0].as_ref().unwrap(), None)
        }
        Way::Reverify(candidate) => {
            let recheck = Recheck::Verified {
                bytes: bytes.clone(),
                replay_hash,
                verdict,
            };
            let filed = store
                .seasons()
                .file_reverified(&board, &[(candidate, recheck)], 2_000)
                .await
                .unwrap();
            match filed[..] {
                [Filed::New(id)] => (id, Some(true)),
                [Filed::Duplicate(id)] => (id, Some(false)),
                ref other => panic!("reverify filed {other:?}"),
            }
        }
        Way::Upload => match store.queue().insert_run(&run, 100).await.unwrap() {
            Inserted::New(id) => (id, Some(true)),
            Inserted::Duplicate(id) => (id, Some(false)),
            other => panic!("upload: {other:?}"),
        },
    }
}

/// How many of this database's other connections wait on a lock.
async fn lock_waits(conn: &mut sqlx::PgConnection) -> i64 {
    sqlx::query_scalar(
        "SELECT COUNT(*) FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()
           AND wait_event_type = 'Lock'",
    )
    .fetch_one(conn)
    .await
    .unwrap()
}

/// Waits until `n` of this database's other connections wait on a lock.
async fn until_lock_waits(conn: &mut sqlx::PgConnection, n: i64) {
    let started = Instant::now();
    while lock_waits(conn).await < n {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{n} filings waiting on a lock"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Two identical replays filed at once, through any two ways in (a live room, reverify, an
/// upload), are one run: neither filing fails, both name the same run, one of them filed it.
///
/// On PostgreSQL the race is forced: the test holds the board feed's advisory lock (migration
/// 0008), which the first filing's verified insert waits on with its run and replay inserted
/// but not committed; the second has looked for the run (none) and waits on the first's
/// replay; then the lock is let go. Without the filing's `ON CONFLICT (replay_hash)` the
/// second fails with a unique violation. On SQLite each filing holds the write lock from its
/// `BEGIN IMMEDIATE`: the two run one after the other, the second finding the first's run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identical_replays_filed_at_once_are_one_run() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let store = store_on(&db).await;
        let player = player_p(&store).await;
        // The originals the re-verified copies are of: past-season runs (queued will do: the
        // filing only names them).
        let mut candidates = Vec::new();
        for i in 0..4u8 {
            let bytes = vec![100 + i; 10];
            let run = NewRun {
                player_id: player.id,
                bytes: &bytes,
                replay_hash: Sha256::digest(&bytes).into(),
                level: "flat",
                level_hash: "0".into(),
                tuning_hash: "0".into(),
                rules_version: 1,
                uploaded_ms: 0,
                ticket: None,
            };
            let Inserted::New(id) = store.queue().insert_run(&run, 100).await.unwrap() else {
                panic!("an original not inserted");
            };
            candidates.push(Candidate {
                id,
                player_id: player.id,
                player: player.name.clone(),
                level: "flat".into(),
                level_hash: "0".into(),
                tuning_hash: "0".into(),
                rules_version: 1,
                uploaded_ms: 0,
                hidden: false,
                hidden_reason: None,
                realtime: false,
            });
        }
        let races = [
            (Way::Live, Way::Live),
            (
                Way::Reverify(candidates[0].clone()),
                Way::Reverify(candidates[1].clone()),
            ),
            (Way::Live, Way::Reverify(candidates[2].clone())),
            (Way::Reverify(candidates[3].clone()), Way::Live),
            (Way::Live, Way::Upload),
        ];
        for (n, (first, second)) in races.into_iter().enumerate() {
            let what = format!("{}: {first:?} then {second:?}", backend.name());
            let first_way = first.clone();
            let bytes = vec![n as u8; 64];
            let file = |way| tokio::spawn(file_by(store.clone(), way, player.id, bytes.clone()));
            let (a, b) = match &backend {
                Backend::Sqlite => {
                    let (a, b) = (file(first), file(second));
                    (a.await.unwrap(), b.await.unwrap())
                }
                Backend::Postgres(_) => {
                    let mut conn = sqlx::PgConnection::connect(&db.url).await.unwrap();
                    sqlx::query("SELECT pg_advisory_lock(1886349167)")
                        .execute(&mut conn)
                        .await
                        .unwrap();
                    let a = file(first);
                    until_lock_waits(&mut conn, 1).await;
                    let b = file(second);
                    until_lock_waits(&mut conn, 2).await;
                    sqlx::query("SELECT pg_advisory_unlock(1886349167)")
                        .execute(&mut conn)
                        .await
                        .unwrap();
                    let _ = conn.close().await;
                    (a.await.unwrap(), b.await.unwrap())
                }
            };
            assert_eq!(a.0, b.0, "{what}: one run");
            assert!(
                a.1 != Some(true) || b.1 != Some(true),
                "{what}: filed once: {a:?} {b:?}"
            );
            if let Backend::Postgres(_) = backend {
                // The race was forced: the first filed the run, the second found it.
                assert_ne!(b.1, Some(true), "{what}");
                assert_ne!(a.1, Some(false), "{what}");
                let run = store.runs().run(a.0).await.unwrap().unwrap();
                assert_eq!(run.status.as_str(), "verified", "{what}");
                let original = match &first_way {
                    Way::Reverify(candidate) => Some(candidate.id),
                    _ => None,
                };
                assert_eq!(run.reverified_from, original, "{what}");
            }
        }
        store.close().await;
        db.remove().await;
    }
}

/// A finishing wave's live runs filed together (`file_live_runs`, one transaction): each its
/// own verified run in its room, their ids in order; bytes filed before name that run, the
/// same bytes twice in one batch are one run, and a run the database refuses fails alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_runs_filed_together_are_each_one_run_in_order() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let store = store_on(&db).await;
        let player = player_p(&store).await;
        let (before, _) = file_by(store.clone(), Way::Live, player.id, vec![9; 64]).await;
        let board = race_board();
        let replays = [vec![9u8; 64], vec![1; 64], vec![2; 64], vec![1; 64]];
        let runs: Vec<NewRun<'_>> = replays
            .iter()
            .map(|bytes| NewRun {
                player_id: player.id,
                bytes,
                replay_hash: Sha256::digest(bytes).into(),
                level: &board.level,
                level_hash: board.level_hash.clone(),
                tuning_hash: board.tuning_hash.clone(),
                rules_version: board.rules_version,
                uploaded_ms: 5_000,
                ticket: None,
            })
            .collect();
        let verdicts: Vec<Verdict> = (0..4)
            .map(|i| Verdict::Verified {
                ticks: 10 + i,
                finish_tick: Some(9 + i),
                splits: "[]".into(),
                final_hash: 7,
                realtime: i % 2 == 0,
                realtime_note: None,
            })
            .collect();
        let rooms = ["r0", "r1", "r2", "r3"];
        let filings: Vec<LiveFiling<'_>> = (0..4)
            .map(|i| LiveFiling {
                run: &runs[i],
                verdict: &verdicts[i],
                room_id: rooms[i],
            })
            .collect();
        let ids = file_all(&store, &filings).await;
        let what = backend.name();
        assert_eq!(ids[0], before, "{what}: filed before, that run");
        assert_eq!(ids[3], ids[1], "{what}: the same bytes twice, one run");
        assert!(
            ids[1] != ids[2] && ids[1] != before && ids[2] != before,
            "{what}: {ids:?}"
        );
        for (i, &id) in ids.iter().enumerate().skip(1).take(2) {
            let run = store.runs().run(id).await.unwrap().unwrap();
            assert_eq!(run.status.as_str(), "verified", "{what}: run {i}");
            assert_eq!(
                run.ticks,
                Some(10 + i as i64),
                "{what}: run {i}'s own verdict"
            );
            assert_eq!(run.realtime, i % 2 == 0, "{what}: run {i}");
            assert_eq!(run.uploaded_ms, 5_000, "{what}: run {i}");
        }
        // Filed again (a retry after the answer was lost): the same ids, nothing new.
        let again = file_all(&store, &filings).await;
        assert_eq!(again, ids, "{what}: a retry");
        // A run the database refuses (its player unknown) among others: the others are
        // filed all the same, and it fails alone.
        let bytes = [vec![3u8; 64], vec![4; 64], vec![5; 64]];
        let mut runs: Vec<NewRun<'_>> = bytes
            .iter()
            .map(|bytes| NewRun {
                bytes,
                replay_hash: Sha256::digest(bytes).into(),
                ..runs[1].clone()
            })
            .collect();
        runs[1].player_id = 999_999;
        let filings: Vec<LiveFiling<'_>> = runs
            .iter()
            .map(|run| LiveFiling {
                run,
                verdict: &verdicts[0],
                room_id: "r",
            })
            .collect();
        let filed = store.room_rows().file_live_runs(&filings).await;
        assert_eq!(filed.len(), 3, "{what}: an answer a run");
        assert!(
            filed[1].is_err(),
            "{what}: an unknown player: {:?}",
            filed[1]
        );
        for i in [0, 2] {
            let id = *filed[i].as_ref().expect("filed beside a refused run");
            let run = store.runs().run(id).await.unwrap().unwrap();
            assert_eq!(run.status.as_str(), "verified", "{what}: run {i}");
        }
        store.close().await;
        db.remove().await;
    }
}

/// `filings` filed together, every one of them filed: their ids.
async fn file_all(store: &Store, filings: &[LiveFiling<'_>]) -> Vec<i64> {
    let filed = store.room_rows().file_live_runs(filings).await;
    filed.into_iter().map(Result::unwrap).collect()
}

/// `(run id → verdicts written)` and `(run id → highest attempt)` from servers' JSON logs.
fn verdicts_in_logs(logs: &[&std::path::Path]) -> (BTreeMap<i64, u32>, BTreeMap<i64, i64>) {
    let mut written = BTreeMap::new();
    let mut attempts = BTreeMap::new();
    for log in logs {
        for line in std::fs::read_to_string(log).unwrap_or_default().lines() {
            let Ok(event) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if event["fields"]["message"] != "verdict" {
                continue;
            }
            let run = event["span"]["run"]
                .as_i64()
                .expect("verdict events carry the run");
            *written.entry(run).or_default() += 1;
            let attempt = event["span"]["attempt"].as_i64().unwrap_or(0);
            let best = attempts.entry(run).or_insert(attempt);
            *best = (*best).max(attempt);
        }
    }
    (written, attempts)
}

/// Uploads `replays` (player index, bytes) with `concurrency` at once to the servers in
/// turn; returns `(id, bytes)` of every acknowledged (202) upload. Uploads that fail (the
/// server died) are not acknowledged.
async fn burst(
    bases: &[String],
    tokens: &[String],
    replays: Vec<(usize, Vec<u8>)>,
    concurrency: usize,
    on_ack: impl Fn(usize) + Send + Sync + 'static,
) -> Vec<(i64, Vec<u8>)> {
    let http = client();
    let semaphore = std::sync::Arc::new(tokio::sync::Semaphore::new(concurrency));
    let acked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let on_ack = std::sync::Arc::new(on_ack);
    let mut tasks = tokio::task::JoinSet::new();
    for (i, (player, bytes)) in replays.into_iter().enumerate() {
        let base = bases[i % bases.len()].clone();
        let token = tokens[player].clone();
        let (http, semaphore, acked, on_ack) = (
            http.clone(),
            semaphore.clone(),
            acked.clone(),
            on_ack.clone(),
        );
        tasks.spawn(async move {
            let _permit = semaphore.acquire_owned().await.unwrap();
            let response = http
                .post(format!("{base}/api/runs"))
                .bearer_auth(&token)
                .header("content-type", "application/octet-stream")
                .body(bytes.clone())
                .send()
                .await;
            let Ok(response) = response else { return };
            if response.status() != 202 {
                return;
            }
            let Ok(body) = response.json::<Value>().await else {
                return;
            };
            let id = body["id"].as_i64().unwrap();
            let n = {
                let mut acked = acked.lock().unwrap();
                acked.push((id, bytes));
                acked.len()
            };
            on_ack(n);
        });
    }
    while tasks.join_next().await.is_some() {}
    let acked = acked.lock().unwrap();
    acked.clone()
}

/// Waits until the server has no run queued or being verified (per its metrics).
async fn drained(base: &str) {
    let http = client();
    let started = Instant::now();
    loop {
        let text = http
            .get(format!("{base}/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let pending = ["queued", "verifying"].iter().all(|s| {
            text.lines()
                .any(|l| l == format!("pogo_runs{{status=\"{s}\"}} 0"))
        });
        if pending {
            return;
        }
        assert!(
            started.elapsed() < VERDICT_WAIT,
            "runs still pending:\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Every acknowledged run is verified and serves back exactly the bytes uploaded; no run got
/// more than one verdict over all the logs, and every run one — except at most
/// `unlogged_max` runs whose verdict a killed process committed but died before logging
/// (a batch per worker of the killed process: the window between a batch's commit and its
/// log lines).
async fn check_every_ack(
    base: &str,
    acked: &[(i64, Vec<u8>)],
    logs: &[&std::path::Path],
    unlogged_max: usize,
) {
    let http = client();
    for (id, bytes) in acked {
        let run = verdict(&http, base, *id).await;
        assert_eq!(run["status"], "verified", "run {id}: {run}");
        let served = http
            .get(format!("{base}/api/runs/{id}/replay"))
            .send()
            .await
            .unwrap();
        assert_eq!(
            served.bytes().await.unwrap().to_vec(),
            *bytes,
            "run {id}'s bytes"
        );
    }
    let (written, attempts) = verdicts_in_logs(logs);
    let unlogged: Vec<i64> = acked
        .iter()
        .map(|a| a.0)
        .filter(|id| !written.contains_key(id))
        .collect();
    assert!(
        unlogged.len() <= unlogged_max,
        "runs verified without a verdict logged: {unlogged:?}"
    );
    let twice: Vec<_> = written.iter().filter(|(_, n)| **n != 1).collect();
    assert!(
        twice.is_empty(),
        "runs with more than one verdict: {twice:?}"
    );
    let retaken = attempts.values().filter(|a| **a > 1).count();
    eprintln!(
        "{} acknowledged, {} verdicts in the logs, {retaken} runs claimed again after a lease expired",
        acked.len(),
        written.len()
    );
}

/// Verdicts a killed server may have committed without logging them: a batch for each of
/// its 2 workers (`server_args`).
const UNLOGGED_MAX: usize = 2 * pogo_server::limits::VERIFY_BATCH_RUNS as usize;

fn server_args<'a>(db: &'a TestDb, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "--database",
        db.url.as_str(),
        "--workers",
        "2",
        "--lease-ms",
        "1500",
        "--duration-ms-max",
        "1000",
    ];
    args.extend_from_slice(&NO_RATE_LIMITS);
    args.extend_from_slice(extra);
    args
}

/// `kill -9` mid-burst, restart: every acknowledged upload ends verified, exactly once,
/// with its bytes intact.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_burst_loses_nothing_acknowledged() {
    const UPLOADS: usize = 160;
    const KILL_AFTER_ACKS: usize = 60;
    let replays: Vec<(usize, Vec<u8>)> = (0..UPLOADS)
        .map(|i| (i % 4, flat_run(&format!("k{}", i % 4), i as u32, 900)))
        .collect();
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let dir = tempfile::tempdir().unwrap();
        let (log1, log2) = (dir.path().join("first.log"), dir.path().join("second.log"));
        let args = server_args(&db, &[]);
        let first = ServerProcess::start(&args, &log1).await;
        let http = client();
        let mut tokens = Vec::new();
        for p in 0..4 {
            tokens.push(register(&http, &first.base, &format!("k{p}")).await);
        }
        let kill9 = first.killer();
        let acked = burst(
            std::slice::from_ref(&first.base),
            &tokens,
            replays.clone(),
            16,
            move |n| {
                if n == KILL_AFTER_ACKS {
                    kill9();
                }
            },
        )
        .await;
        first.killer()();
        assert!(
            acked.len() >= KILL_AFTER_ACKS && acked.len() < UPLOADS,
            "killed mid-burst: {} acks",
            acked.len()
        );
        let second = ServerProcess::start(&args, &log2).await;
        drained(&second.base).await;
        eprint!("{}: ", backend.name());
        check_every_ack(&second.base, &acked, &[&log1, &log2], UNLOGGED_MAX).await;
        drop(second);
        db.remove().await;
    }
}

/// Two servers on one PostgreSQL share the queue (each writes verdicts; every run gets one);
/// one is killed mid-burst and the other takes over its claims when the leases expire.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_one_postgres_share_the_work_and_take_over_a_dead_ones_claims() {
    const UPLOADS: usize = 200;
    let Some(backend) = postgres_backend().await else {
        return;
    };
    let replays: Vec<(usize, Vec<u8>)> = (0..UPLOADS)
        .map(|i| {
            (
                i % 4,
                flat_run(&format!("t{}", i % 4), 10_000 + i as u32, 900),
            )
        })
        .collect();
    let db = TestDb::new(&backend).await;
    let dir = tempfile::tempdir().unwrap();
    let (log_a, log_b) = (dir.path().join("a.log"), dir.path().join("b.log"));
    let args = server_args(&db, &[]);
    let a = ServerProcess::start(&args, &log_a).await;
    let b = ServerProcess::start(&args, &log_b).await;
    let http = client();
    let mut tokens = Vec::new();
    for p in 0..4 {
        tokens.push(register(&http, &a.base, &format!("t{p}")).await);
    }
    // The first half to both servers, alternately, until both have drained it: both work.
    let (first, second) = replays.split_at(UPLOADS / 2);
    let mut acked = burst(
        &[a.base.clone(), b.base.clone()],
        &tokens,
        first.to_vec(),
        16,
        |_| {},
    )
    .await;
    assert_eq!(acked.len(), UPLOADS / 2);
    drained(&b.base).await;
    let (by_a, _) = verdicts_in_logs(&[&log_a]);
    let (by_b, _) = verdicts_in_logs(&[&log_b]);
    eprintln!(
        "first half: verdicts by A {}, by B {}",
        by_a.len(),
        by_b.len()
    );
    assert!(
        !by_a.is_empty() && !by_b.is_empty(),
        "both servers verified runs"
    );
    // The second half to A alone, killed mid-burst: B takes over what A held and had queued.
    let kill9 = a.killer();
    acked.extend(
        burst(
            std::slice::from_ref(&a.base),
            &tokens,
            second.to_vec(),
            16,
            move |n| {
                if n == UPLOADS / 4 {
                    kill9();
                }
            },
        )
        .await,
    );
    a.killer()();
    drained(&b.base).await;
    eprint!("two servers: ");
    check_every_ack(&b.base, &acked, &[&log_a, &log_b], UNLOGGED_MAX).await;
    drop(b);
    db.remove().await;
}

/// A test's own view of the database: a trigger (installed by the test, not the server)
/// records every verdict `UPDATE` — a run's status set to `verified` or `rejected` — in
/// `verdict_audit`, in the verdict's own transaction. Two rows for one run would be two
/// verdicts committed, whatever the logs say; a verdict rolled back (a killed transaction)
/// leaves none.
enum Audit {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
}

impl Audit {
    /// Connects to the server's database (migrated already) and installs the trigger.
    async fn install(db: &TestDb) -> Audit {
        const TABLE: &str = "CREATE TABLE verdict_audit (run_id BIGINT NOT NULL,
            status TEXT NOT NULL, attempts BIGINT NOT NULL, owner TEXT)";
        if db.url.starts_with("sqlite:") {
            let pool = sqlx::SqlitePool::connect(&db.url).await.unwrap();
            for sql in [
                TABLE,
                "CREATE TRIGGER verdict_audit AFTER UPDATE OF status ON runs
                 WHEN NEW.status IN ('verified', 'rejected')
                 BEGIN INSERT INTO verdict_audit
                       VALUES (NEW.id, NEW.status, NEW.attempts, OLD.lease_owner); END",
            ] {
                sqlx::query(sql).execute(&pool).await.unwrap();
            }
            Audit::Sqlite(pool)
        } else {
            let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
            for sql in [
                TABLE,
                "CREATE FUNCTION verdict_audit() RETURNS trigger LANGUAGE plpgsql AS $$
                 BEGIN INSERT INTO verdict_audit
                       VALUES (NEW.id, NEW.status, NEW.attempts, OLD.lease_owner);
                 RETURN NEW; END $$",
                "CREATE TRIGGER verdict_audit AFTER UPDATE OF status ON runs FOR EACH ROW
                 WHEN (NEW.status IN ('verified', 'rejected')) EXECUTE FUNCTION verdict_audit()",
            ] {
                sqlx::query(sql).execute(&pool).await.unwrap();
            }
            Audit::Postgres(pool)
        }
    }

    /// `(run id, verdicts written)` for every run, with 0 for none.
    async fn verdicts(&self) -> BTreeMap<i64, i64> {
        const SQL: &str = "SELECT r.id, (SELECT COUNT(*) FROM verdict_audit a
                                        WHERE a.run_id = r.id) FROM runs r";
        let rows: Vec<(i64, i64)> = match self {
            Audit::Sqlite(pool) => sqlx::query_as(SQL).fetch_all(pool).await.unwrap(),
            Audit::Postgres(pool) => sqlx::query_as(SQL).fetch_all(pool).await.unwrap(),
        };
        rows.into_iter().collect()
    }

    /// `(run id, status, attempts)` of every run.
    async fn runs(&self) -> Vec<(i64, String, i64)> {
        const SQL: &str = "SELECT id, status, attempts FROM runs ORDER BY id";
        match self {
            Audit::Sqlite(pool) => sqlx::query_as(SQL).fetch_all(pool).await.unwrap(),
            Audit::Postgres(pool) => sqlx::query_as(SQL).fetch_all(pool).await.unwrap(),
        }
    }

    async fn close(self) {
        match self {
            Audit::Sqlite(pool) => pool.close().await,
            Audit::Postgres(pool) => pool.close().await,
        }
    }
}

/// Uploads `count` runs (900 ticks of `flat` each, distinct bytes) to a server that verifies
/// nothing (`--workers 0`), so the whole queue is waiting when the workers start; stops it.
/// Returns the run ids.
async fn queue_runs(db: &TestDb, dir: &std::path::Path, prefix: &str, count: usize) -> Vec<i64> {
    queue_runs_of(db, dir, prefix, count, 900).await
}

/// [`queue_runs`] of `ticks` ticks each.
async fn queue_runs_of(
    db: &TestDb,
    dir: &std::path::Path,
    prefix: &str,
    count: usize,
    ticks: u32,
) -> Vec<i64> {
    let args = args_with(db, "0", "1500", "1");
    let uploader = ServerProcess::start(&args, &dir.join("uploader.log")).await;
    let http = client();
    let mut tokens = Vec::new();
    for p in 0..4 {
        tokens.push(register(&http, &uploader.base, &format!("{prefix}{p}")).await);
    }
    let replays: Vec<(usize, Vec<u8>)> = (0..count)
        .map(|i| {
            let p = i % 4;
            (
                p,
                flat_run(&format!("{prefix}{p}"), 20_000 + i as u32, ticks),
            )
        })
        .collect();
    let acked = burst(
        std::slice::from_ref(&uploader.base),
        &tokens,
        replays,
        16,
        |_| {},
    )
    .await;
    assert_eq!(acked.len(), count, "every upload acknowledged");
    uploader.killer()();
    let mut ids: Vec<i64> = acked.iter().map(|a| a.0).collect();
    ids.sort_unstable();
    ids
}

/// Waits until at least `verdicts` runs have a verdict and some are still claimed
/// (`verifying`): the moment to kill a server in the middle of its batches. Returns how many
/// runs are `verifying` then.
async fn mid_batches(audit: &Audit, verdicts: usize) -> usize {
    let started = Instant::now();
    loop {
        let runs = audit.runs().await;
        let done = runs
            .iter()
            .filter(|r| r.1 == "verified" || r.1 == "rejected")
            .count();
        let claimed = runs.iter().filter(|r| r.1 == "verifying").count();
        if done >= verdicts && claimed > 0 {
            return claimed;
        }
        assert!(
            done < runs.len() && started.elapsed() < VERDICT_WAIT,
            "never caught mid-batch: {done} of {} verdicts, {claimed} claimed",
            runs.len()
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Every run is verified and has exactly one verdict in the audit; returns how many runs were
/// claimed more than once (`attempts` > 1: taken over after a lease expired).
async fn exactly_one_verdict_each(audit: &Audit, ids: &[i64]) -> usize {
    let verdicts = audit.verdicts().await;
    let runs = audit.runs().await;
    assert_eq!(
        runs.iter().map(|r| r.0).collect::<Vec<_>>(),
        ids,
        "the runs uploaded, no more"
    );
    let not_verified: Vec<_> = runs.iter().filter(|r| r.1 != "verified").collect();
    assert!(not_verified.is_empty(), "not verified: {not_verified:?}");
    let wrong: Vec<_> = verdicts.iter().filter(|(_, n)| **n != 1).collect();
    assert!(
        wrong.is_empty(),
        "runs without exactly one verdict (run, verdicts): {wrong:?}"
    );
    runs.iter().filter(|r| r.2 > 1).count()
}

/// `server_args` with these workers, lease and batch size (a flag may be given once).
fn args_with<'a>(
    db: &'a TestDb,
    workers: &'a str,
    lease_ms: &'a str,
    batch: &'a str,
) -> Vec<&'a str> {
    let mut args = server_args(db, &["--verify-batch", batch]);
    for (flag, value) in [("--workers", workers), ("--lease-ms", lease_ms)] {
        let at = args.iter().position(|a| *a == flag).unwrap();
        args[at + 1] = value;
    }
    args
}

fn batch_args<'a>(db: &'a TestDb, lease_ms: &'a str) -> Vec<&'a str> {
    args_with(db, "2", lease_ms, "16")
}

/// `kill -9` in the middle of batches (runs claimed, some verdicts written, others not yet),
/// restart: every run ends verified with exactly one verdict — none lost with the killed
/// batches, none written twice when their expired claims are taken again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_batch_every_run_gets_exactly_one_verdict() {
    const RUNS: usize = 400;
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let dir = tempfile::tempdir().unwrap();
        let ids = queue_runs(&db, dir.path(), "b", RUNS).await;
        let audit = Audit::install(&db).await;
        let args = batch_args(&db, "3000");
        let first = ServerProcess::start(&args, &dir.path().join("first.log")).await;
        let claimed = mid_batches(&audit, RUNS / 4).await;
        first.killer()();
        let done_at_kill = audit.verdicts().await.values().filter(|n| **n > 0).count();
        let second = ServerProcess::start(&args, &dir.path().join("second.log")).await;
        drained(&second.base).await;
        let retaken = exactly_one_verdict_each(&audit, &ids).await;
        eprintln!(
            "{}: killed with {done_at_kill} of {RUNS} verdicts written and {claimed} runs \
             claimed; {retaken} runs claimed again after their lease expired",
            backend.name()
        );
        assert!(retaken > 0, "the killed server's claims were taken over");
        drop(second);
        audit.close().await;
        db.remove().await;
    }
}

/// Two servers verifying in batches on one PostgreSQL; one is paused (SIGSTOP) holding claims
/// until their leases expire, the other killed (`kill -9`) mid-batch; a third takes over both
/// one's claims; the paused one resumes and tries to write its stale verdicts. Every run ends
/// with exactly one verdict.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_killed_and_paused_mid_batch_write_each_verdict_once() {
    const RUNS: usize = 600;
    let Some(backend) = postgres_backend().await else {
        return;
    };
    let db = TestDb::new(&backend).await;
    let dir = tempfile::tempdir().unwrap();
    let ids = queue_runs(&db, dir.path(), "s", RUNS).await;
    let audit = Audit::install(&db).await;
    let args = batch_args(&db, "2000");
    let (log_a, log_b, log_c) = (
        dir.path().join("a.log"),
        dir.path().join("b.log"),
        dir.path().join("c.log"),
    );
    let a = ServerProcess::start(&args, &log_a).await;
    let b = ServerProcess::start(&args, &log_b).await;
    // Both at work: B has written verdicts of its own, and runs are claimed.
    let started = Instant::now();
    while verdicts_in_logs(&[&log_b]).0.len() < 10 {
        assert!(started.elapsed() < VERDICT_WAIT, "B wrote no verdicts");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    mid_batches(&audit, 0).await;
    b.signal("-STOP");
    a.killer()();
    let c = ServerProcess::start(&args, &log_c).await;
    // Three leases: C has taken over what A and B held (A's dead, B's frozen).
    tokio::time::sleep(Duration::from_millis(6000)).await;
    b.signal("-CONT");
    drained(&c.base).await;
    // B has had its chance to write what it held.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let retaken = exactly_one_verdict_each(&audit, &ids).await;
    let lost = std::fs::read_to_string(&log_b)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("claim lost"))
        .count();
    let (by_a, _) = verdicts_in_logs(&[&log_a]);
    let (by_b, _) = verdicts_in_logs(&[&log_b]);
    let (by_c, _) = verdicts_in_logs(&[&log_c]);
    eprintln!(
        "verdicts logged by A {}, B {}, C {}; {retaken} runs claimed again; B's stale \
         verdicts refused: {lost}",
        by_a.len(),
        by_b.len(),
        by_c.len()
    );
    assert!(retaken > 0, "A's and B's claims were taken over");
    assert!(!by_c.is_empty(), "C verified runs");
    drop((b, c));
    audit.close().await;
    db.remove().await;
}

/// A server paused (`SIGSTOP`) mid-verification for longer than the verifier's wall-clock
/// bound (`--duration-ms-max 1000`), then resumed: the verifications it was in the middle of
/// ran out of time by the wall clock, not by their work, and are judged again. Every run
/// ends verified, with one verdict (judged on the wall clock, the runs paused mid-way were
/// rejected `out_of_time` for good).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pause_past_the_time_bound_rejects_no_run() {
    const RUNS: usize = 200;
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let dir = tempfile::tempdir().unwrap();
        let ids = queue_runs(&db, dir.path(), "p", RUNS).await;
        let audit = Audit::install(&db).await;
        let log = dir.path().join("server.log");
        let server = ServerProcess::start(&args_with(&db, "2", "3000", "16"), &log).await;
        mid_batches(&audit, 10).await;
        server.signal("-STOP");
        tokio::time::sleep(Duration::from_millis(1500)).await;
        server.signal("-CONT");
        drained(&server.base).await;
        let retaken = exactly_one_verdict_each(&audit, &ids).await;
        let stalled = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("out of time by the wall clock"))
            .count();
        eprintln!(
            "{}: {stalled} verifications out of time by the wall clock only, verified again; \
             {retaken} runs claimed more than once",
            backend.name()
        );
        drop(server);
        audit.close().await;
        db.remove().await;
    }
}

/// A server starved of CPU on every try of a verification: paused (`SIGSTOP`) past the
/// verifier's wall-clock bound three times in a row, a few milliseconds of CPU between the
/// pauses, as a queue's worker under `SCHED_IDLE` is on cores the relay keeps busy
/// (`lanes.rs`). The run it was verifying is handed back to the queue, not rejected
/// `out_of_time`, after three tries, and is verified later: every run ends verified, with
/// one verdict.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verification_starved_on_every_try_is_handed_back_not_rejected() {
    for backend in backends().await {
        // A lease far longer than the pauses: no claim is taken over, all three tries fit.
        for (tries, claim_ms) in starve_every_try(&backend, "60000").await {
            assert_eq!(
                tries,
                3,
                "{}: handed back after {claim_ms} ms",
                backend.name()
            );
        }
    }
}

/// [`a_verification_starved_on_every_try_is_handed_back_not_rejected`] under a lease of 3 s,
/// which three tries of over a second each would outlast (where another worker could take
/// the run over, and a run taken over five times is given up, `abandoned`). A starved
/// verification is tried again only while, at the verifier's bound (1 s), the try would end
/// within three quarters of the lease (2.25 s). Each try here lasts a pause (1.3 s), so the
/// first ends 1.3 s or more into its claim, too late for another: every hand-back comes after
/// one try. (When the claim began is not the test's business: a batch claimed one ahead may
/// start its first run up to a bound before its lease ends, as docs/server.md says.)
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_starved_verification_is_tried_again_only_within_its_lease() {
    let handed_back = starve_every_try(&Backend::Sqlite, "3000").await;
    for (tries, claim_ms) in handed_back {
        assert_eq!(
            tries, 1,
            "handed back after {tries} tries, {claim_ms} ms into a claim of 3000"
        );
    }
}

/// Pauses a server verifying long runs (one worker, batches of 4, the lease `lease_ms`, the
/// verifier's bound 1 s) until a verification is starved on every try it gets, then lets it
/// drain: every run ends verified, with one verdict. Returns the hand-backs' tries and claim
/// ages (ms), as the server logged them.
#[cfg(unix)]
async fn starve_every_try(backend: &Backend, lease_ms: &str) -> Vec<(u64, u64)> {
    const RUNS: usize = 12;
    let db = TestDb::new(backend).await;
    let dir = tempfile::tempdir().unwrap();
    // Runs long enough (tens of milliseconds each to verify) that a few milliseconds of
    // CPU between pauses never finish one.
    let ids = queue_runs_of(&db, dir.path(), "s", RUNS, 30_000).await;
    let audit = Audit::install(&db).await;
    let log = dir.path().join("server.log");
    let server = ServerProcess::start(&args_with(&db, "1", lease_ms, "4"), &log).await;
    let handed_back = || -> Vec<(u64, u64)> {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("handed back to the queue"))
            .map(|l| {
                let fields = &serde_json::from_str::<Value>(l).unwrap()["fields"];
                (
                    fields["tries"].as_u64().unwrap(),
                    fields["claim_ms"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    mid_batches(&audit, 1).await;
    // Pauses until a verification was starved on every try: a pause per try catches it
    // mid-way once the worker has run a moment between them (on a loaded machine it may
    // not get that moment at once), at most twenty.
    for _ in 0..20 {
        server.signal("-STOP");
        tokio::time::sleep(Duration::from_millis(1300)).await;
        server.signal("-CONT");
        tokio::time::sleep(Duration::from_millis(3)).await;
        let rejected = audit.runs().await.iter().any(|r| r.1 == "rejected");
        if !handed_back().is_empty() || rejected {
            break;
        }
    }
    drained(&server.base).await;
    exactly_one_verdict_each(&audit, &ids).await;
    let handed_back = handed_back();
    assert!(
        !handed_back.is_empty(),
        "{}: no verification was starved on every try (the pauses missed it)",
        backend.name()
    );
    drop(server);
    audit.close().await;
    db.remove().await;
    handed_back
}

/// Writes one verdict under `claim` (a batch of one): whether it was written.
async fn write_one(store: &Store, claim: &Claim, verdict: &Verdict, now_ms: i64) -> bool {
    let written = store
        .queue()
        .write_verdicts(&[(claim, verdict)], &[], now_ms)
        .await
        .unwrap();
    written == [true]
}

/// The store on `db`'s database, opened as the server opens it.
async fn store_on(db: &TestDb) -> Store {
    Store::open(&pogo_server::config::DatabaseUrl::parse(&db.url))
        .await
        .unwrap()
}

/// A racing room's row on `course`, GO at 1 ms, for `home` at `now_ms`.
fn room_write<'a>(
    id: &'a str,
    home: &'a str,
    now_ms: i64,
    view: &'a str,
) -> pogo_server::store::RoomWrite<'a> {
    pogo_server::store::RoomWrite {
        id,
        level: "course",
        home,
        phase: "racing",
        go_ms: Some(1),
        now_ms,
        view,
    }
}

/// Migration 0019 chains the journals written before it: a database with rooms mid-race
/// under 0018's schema (rows found by their room's index) reads each room's rows back in
/// order after the upgrade, appends to the end of each chain, and forgets one room's rows
/// without touching another's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn journals_written_before_the_chain_are_read_appended_and_forgotten_after_it() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("migrations")
            .join(backend.name());
        let mut before = sqlx::migrate::Migrator::new(dir.as_path()).await.unwrap();
        // `migrations` is sqlx's (doc-hidden) field; Cargo.lock pins the version.
        before.migrations = before
            .migrations
            .iter()
            .filter(|m| m.version <= 18)
            .cloned()
            .collect::<Vec<_>>()
            .into();
        // Interleaved, as rooms append: r1, r2, r1, then r3 with one row.
        const OLD_ROWS: &str = "INSERT INTO room_journal (room_id, body) \
            VALUES ('r1', $1), ('r2', $2), ('r1', $3), ('r3', $4)";
        let bodies: [&[u8]; 4] = [b"1", b"2", b"3", b"x"];
        // The schema of 0018 and rows written under it, on either backend's pool.
        macro_rules! old_journal {
            ($pool:expr) => {{
                let pool = $pool.await.unwrap();
                before.run(&pool).await.unwrap();
                let mut rows = sqlx::query(OLD_ROWS);
                for body in bodies {
                    rows = rows.bind(body);
                }
                rows.execute(&pool).await.unwrap();
                pool.close().await;
            }};
        }
        match &backend {
            Backend::Sqlite => {
                old_journal!(sqlx::SqlitePool::connect(&format!("{}?mode=rwc", db.url)))
            }
            Backend::Postgres(_) => old_journal!(sqlx::PgPool::connect(&db.url)),
        }
        let store = store_on(&db).await;
        let rooms = store.room_rows();
        assert_eq!(
            rooms.journal("r1").await.unwrap(),
            [b"1", b"3"],
            "{backend:?}"
        );
        assert_eq!(rooms.journal("r2").await.unwrap(), [b"2"]);
        assert!(rooms.has_journal("r3").await.unwrap());
        assert!(!rooms.has_journal("r4").await.unwrap());
        rooms
            .write_rooms(&[
                room_write("r1", "a", 1, "{}"),
                room_write("r2", "a", 1, "{}"),
            ])
            .await
            .unwrap();
        let written = rooms
            .append_journal("a", &[("r2", b"4".as_slice()), ("r1", b"5".as_slice())])
            .await
            .unwrap();
        assert_eq!(written, [true, true]);
        assert_eq!(rooms.journal("r1").await.unwrap(), [b"1", b"3", b"5"]);
        rooms.forget_journal("r1").await.unwrap();
        assert!(rooms.journal("r1").await.unwrap().is_empty());
        assert!(!rooms.has_journal("r1").await.unwrap());
        assert_eq!(rooms.journal("r2").await.unwrap(), [b"2", b"4"]);
        assert_eq!(rooms.journal("r3").await.unwrap(), [b"x"]);
        store.close().await;
        db.remove().await;
    }
}

/// The live journal's append: a row is written only while its room's home is the writer
/// (a room another process took up gets nothing from its old home), rows keep their order
/// within a room, and a batch larger than one statement's chunk loses nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_journal_row_is_appended_only_while_its_room_is_the_homes() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let store = store_on(&db).await;
        let rooms = store.room_rows();
        let room = |id, home| room_write(id, home, 1, "{}");
        rooms
            .write_rooms(&[room("r1", "a"), room("r2", "a"), room("r3", "b")])
            .await
            .unwrap();
        let written = rooms
            .append_journal(
                "a",
                &[
                    ("r1", b"1".as_slice()),
                    ("r3", b"x".as_slice()),
                    ("r2", b"2".as_slice()),
                    ("r1", b"3".as_slice()),
                ],
            )
            .await
            .unwrap();
        assert_eq!(written, [true, false, true, true], "{backend:?}");
        assert_eq!(rooms.journal("r1").await.unwrap(), [b"1", b"3"]);
        assert_eq!(rooms.journal("r2").await.unwrap(), [b"2"]);
        assert!(
            rooms.journal("r3").await.unwrap().is_empty(),
            "not a's room"
        );
        // r2 is taken up by b: a's next append to it is refused, its other rooms' written.
        let row = rooms.room("r2").await.unwrap().unwrap();
        assert!(rooms.claim(&row, "b", 2).await.unwrap());
        let written = rooms
            .append_journal("a", &[("r2", b"4".as_slice()), ("r1", b"5".as_slice())])
            .await
            .unwrap();
        assert_eq!(written, [false, true]);
        assert_eq!(rooms.journal("r2").await.unwrap(), [b"2"]);
        // More rows than one statement takes, over two rooms, in order.
        let bodies: Vec<Vec<u8>> = (0..2500u32).map(|i| i.to_le_bytes().to_vec()).collect();
        let batch: Vec<(&str, &[u8])> = bodies
            .iter()
            .enumerate()
            .map(|(i, b)| (if i % 2 == 0 { "r1" } else { "r3" }, b.as_slice()))
            .collect();
        let written = rooms.append_journal("a", &batch).await.unwrap();
        assert_eq!(written.len(), 2500);
        assert!(written.iter().step_by(2).all(|&w| w), "r1 is a's");
        assert!(!written.iter().skip(1).step_by(2).any(|&w| w), "r3 is b's");
        let r1 = rooms.journal("r1").await.unwrap();
        let want: Vec<Vec<u8>> = [b"1".to_vec(), b"3".to_vec(), b"5".to_vec()]
            .into_iter()
            .chain(bodies.iter().step_by(2).cloned())
            .collect();
        assert_eq!(r1, want);
        store.close().await;
    }
}

/// The rooms' rows, many in one statement: a room is inserted the first time and updated
/// after, only by its home; one taken up by another home is not written and is said to be
/// moved; a room given twice is written once, as given last; more rooms than one statement
/// takes lose nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_rows_are_written_by_their_home_only_many_in_a_statement() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let store = store_on(&db).await;
        let rooms = store.room_rows();
        let room = room_write;
        let moved = rooms
            .write_rooms(&[
                room("r1", "a", 1, "{}"),
                room("r2", "a", 1, "{}"),
                room("r3", "b", 1, "{}"),
            ])
            .await
            .unwrap();
        assert!(moved.is_empty(), "{backend:?}: {moved:?}");
        // b takes r2 up: a's next write of it is refused and said; r1 and a new r4 are written,
        // r1 given twice (its last view counts).
        let r2 = rooms.room("r2").await.unwrap().unwrap();
        assert!(rooms.claim(&r2, "b", 2).await.unwrap());
        let moved = rooms
            .write_rooms(&[
                room("r1", "a", 3, r#"{"first":1}"#),
                room("r2", "a", 3, r#"{"a":1}"#),
                room("r4", "a", 3, "{}"),
                room("r1", "a", 3, r#"{"last":1}"#),
            ])
            .await
            .unwrap();
        assert_eq!(moved, ["r2"], "{backend:?}");
        let r1 = rooms.room("r1").await.unwrap().unwrap();
        assert_eq!((r1.updated_ms, r1.view.as_str()), (3, r#"{"last":1}"#));
        let r2 = rooms.room("r2").await.unwrap().unwrap();
        assert_eq!((r2.home.as_str(), r2.view.as_str()), ("b", "{}"));
        assert_eq!(rooms.room("r4").await.unwrap().unwrap().home, "a");
        // 2 500 rooms in one write: three statements, one commit; b's r3 among them refused.
        let ids: Vec<String> = (0..2500).map(|i| format!("m{i:04}")).collect();
        let mut many: Vec<_> = ids.iter().map(|id| room(id, "a", 4, "{}")).collect();
        many.push(room("r3", "a", 4, "{}"));
        let moved = rooms.write_rooms(&many).await.unwrap();
        assert_eq!(moved, ["r3"], "{backend:?}");
        for id in [&ids[0], &ids[999], &ids[1000], &ids[2499]] {
            let row = rooms.room(id).await.unwrap().unwrap();
            assert_eq!((row.home.as_str(), row.updated_ms), ("a", 4), "{id}");
        }
        store.close().await;
        db.remove().await;
    }
}
