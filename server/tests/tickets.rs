//! Run tickets end to end, in-process, against SQLite and a real PostgreSQL: a run committed
//! at real speed is real-time (on both boards), one slowed in a section or committed sooner
//! than its game time is verified but open only, with the reason; every bad request (forged,
//! malformed, someone else's, reused, expired, out of order, one too many, too fast) gets its
//! 4xx and changes nothing.
//!
//! The timing is real: commitments are posted at the wall-clock moments a page would post
//! them (a short level, a couple of seconds a run). The oracle for splits and hashes is the
//! library's own re-simulation of the same bytes (`Ghost`), never the server's answer.

mod support;

use std::time::{Duration, Instant};

use pogo_core::world::{Aabb, Checkpoint, Solid, WorldDesc};
use pogo_core::{Fx, Input, Vec3};
use pogo_replay::Ghost;
use serde_json::{Value, json};
use sqlx::Connection;
use support::*;

/// A dash east: a ground slab, a checkpoint 6 m from the spawn, the finish at 12 m.
fn dash_level() -> WorldDesc {
    let m = Fx::from_int;
    WorldDesc {
        name: "dash".into(),
        spawn: Vec3::ZERO,
        solids: vec![Solid {
            bounds: Aabb::new(
                Vec3::new(m(-20), m(-1), m(-20)),
                Vec3::new(m(60), m(0), m(20)),
            ),
            no_bounce: false,
        }],
        checkpoints: vec![Checkpoint {
            bounds: Aabb::new(
                Vec3::new(m(5), m(-1), m(-20)),
                Vec3::new(m(7), m(30), m(20)),
            ),
            spawn: Vec3::new(m(6), m(0), m(0)),
        }],
        finishes: vec![Aabb::new(
            Vec3::new(m(12), m(-1), m(-20)),
            Vec3::new(m(14), m(30), m(20)),
        )],
        ..WorldDesc::default()
    }
}

/// A run of the dash holding the stick east at `steer_x`, under `name`.
fn dash_run(name: &str, steer_x: i8) -> Vec<u8> {
    record(&dash_level(), name, 3600, true, |_, _| Input {
        steer_x,
        ..Input::default()
    })
}

/// What a page would commit to for a run: the state hash before the first tick, and each
/// split (kind, tick, state hash after it), from the library's re-simulation.
struct Played {
    bytes: Vec<u8>,
    start_hash: String,
    splits: Vec<(&'static str, u32, String)>,
}

fn played(name: &str, steer_x: i8) -> Played {
    let bytes = dash_run(name, steer_x);
    let ghost = Ghost::load(&bytes, &verifier(vec![dash_level()])).unwrap();
    let hex = |h: u64| format!("{h:016x}");
    let splits = ghost
        .splits(0)
        .iter()
        .map(|s| {
            let kind = if s.checkpoint.is_some() {
                "checkpoint"
            } else {
                "finish"
            };
            (kind, s.tick.0, hex(ghost.seek(s.tick.0 + 1).state_hash()))
        })
        .collect::<Vec<_>>();
    assert_eq!(
        splits.iter().map(|s| s.0).collect::<Vec<_>>(),
        ["checkpoint", "finish"],
        "the dash has one checkpoint and a finish"
    );
    Played {
        start_hash: hex(ghost.seek(0).state_hash()),
        bytes,
        splits,
    }
}

/// A server running the dash (and the built-in levels) on `db`.
struct Dash {
    server: TestServer,
    _dir: tempfile::TempDir,
}

async fn dash_server(db: &TestDb) -> Dash {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dash.json");
    std::fs::write(&file, pogo_replay::level_to_json(&dash_level())).unwrap();
    let mut config = config(db);
    config.levels = vec![file];
    Dash {
        server: TestServer::start(config).await,
        _dir: dir,
    }
}

async fn post_json(
    http: &reqwest::Client,
    url: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Value, Option<String>) {
    let mut request = http.post(url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let retry = response
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string());
    (status, response.json().await.unwrap_or(Value::Null), retry)
}

async fn mint(http: &reqwest::Client, base: &str, token: &str, level: &str) -> (u16, Value) {
    let url = format!("{base}/api/levels/{level}/tickets");
    let (status, body, _) = post_json(http, &url, Some(token), None).await;
    (status, body)
}

/// Mints a ticket that must be issued; its id.
async fn ticket(http: &reqwest::Client, base: &str, token: &str) -> String {
    let (status, body) = mint(http, base, token, "dash").await;
    assert_eq!(status, 201, "{body}");
    body["id"].as_str().unwrap().to_string()
}

async fn commit(
    http: &reqwest::Client,
    base: &str,
    token: &str,
    id: &str,
    kind: &str,
    tick: u32,
    hash: &str,
) -> (u16, Value) {
    let url = format!("{base}/api/tickets/{id}/commits");
    let body = json!({"kind": kind, "tick": tick, "hash": hash});
    let (status, body, _) = post_json(http, &url, Some(token), Some(body)).await;
    (status, body)
}

async fn upload_with(
    http: &reqwest::Client,
    base: &str,
    token: &str,
    bytes: &[u8],
    ticket: &str,
) -> (u16, Value) {
    support::upload_to(
        http,
        &format!("{base}/api/runs?ticket={ticket}"),
        token,
        bytes,
    )
    .await
}

/// Commits `run` to ticket `id` as a page playing it would: the start now, each split at
/// its game time since the start (the tick's end) plus `delay_ms[i]`.
async fn play(
    http: &reqwest::Client,
    base: &str,
    token: &str,
    id: &str,
    run: &Played,
    delay_ms: &[u64],
) {
    let (status, body) = commit(http, base, token, id, "start", 0, &run.start_hash).await;
    assert_eq!(status, 201, "{body}");
    let go = Instant::now();
    for (i, (kind, tick, hash)) in run.splits.iter().enumerate() {
        let due = go + Duration::from_millis((u64::from(*tick) + 1) * 1000 / 60 + delay_ms[i]);
        tokio::time::sleep_until(due.into()).await;
        let (status, body) = commit(http, base, token, id, kind, *tick, hash).await;
        assert_eq!(status, 201, "{kind}: {body}");
    }
}

/// The run ids on a board of the dash.
async fn board(http: &reqwest::Client, base: &str, category: &str) -> Vec<i64> {
    let url = format!("{base}/api/levels/dash/leaderboard?category={category}");
    let (status, body) = get_json(http, &url).await;
    assert_eq!(status, 200, "{body}");
    body["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["run_id"].as_i64().unwrap())
        .collect()
}

/// Runs SQL on a test database directly (to age a ticket past its windows).
async fn execute(db: &TestDb, backend: &Backend, sql: &str) {
    match backend {
        Backend::Sqlite => {
            let mut conn = sqlx::SqliteConnection::connect(&db.url).await.unwrap();
            sqlx::query(sql).execute(&mut conn).await.unwrap();
        }
        Backend::Postgres(_) => {
            let mut conn = sqlx::PgConnection::connect(&db.url).await.unwrap();
            sqlx::query(sql).execute(&mut conn).await.unwrap();
        }
    }
}

/// Played at real speed: real-time, on both boards, `realtime_rank` 1. Slowed in its
/// section to the checkpoint by 2 s (past the 1.5 s slack), or committed all at once
/// (sooner than game time): verified, open only, with the reason. Without a ticket: open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_speed_is_real_time_slowed_or_too_soon_is_open_with_the_reason() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let dash = dash_server(&db).await;
        let (http, base) = (&dash.server.http, dash.server.base.as_str());
        let name = backend.name();

        let token = register(http, base, "ana").await;
        let run = played("ana", 127);
        assert!(run.splits[1].1 > 60, "the dash takes over a second");
        let id = ticket(http, base, &token).await;
        play(http, base, &token, &id, &run, &[40, 40]).await;
        let (status, up) = upload_with(http, base, &token, &run.bytes, &id).await;
        assert_eq!(status, 202, "{name}: {up}");
        let fast = up["id"].as_i64().unwrap();
        let status = verdict(http, base, fast).await;
        assert_eq!(status["status"], "verified", "{status}");
        assert_eq!(status["realtime"], true, "{name}: {status}");
        assert_eq!(status["realtime_note"], Value::Null);
        assert_eq!(status["realtime_rank"], 1);

        // Slowed: 2 s lost before the checkpoint, so the checkpoint and the finish are late.
        let token = register(http, base, "bob").await;
        let slow_run = played("bob", 110);
        let id = ticket(http, base, &token).await;
        play(http, base, &token, &id, &slow_run, &[2000, 2000]).await;
        let (status, up) = upload_with(http, base, &token, &slow_run.bytes, &id).await;
        assert_eq!(status, 202, "{up}");
        let slow = up["id"].as_i64().unwrap();
        let status = verdict(http, base, slow).await;
        assert_eq!(status["status"], "verified", "{status}");
        assert_eq!(status["realtime"], false, "{name}: {status}");
        let note = status["realtime_note"].as_str().unwrap();
        assert!(
            note.starts_with("checkpoint 0 was committed 2.")
                && note.ends_with("after its game time since the start (at most 1.5 s allowed)"),
            "{note}"
        );
        assert_eq!(status["realtime_rank"], Value::Null);

        // Too soon: every commitment at once, as a tool that simulated ahead would.
        let token = register(http, base, "cid").await;
        let soon_run = played("cid", 100);
        let id = ticket(http, base, &token).await;
        commit(http, base, &token, &id, "start", 0, &soon_run.start_hash).await;
        for (kind, tick, hash) in &soon_run.splits {
            let (status, body) = commit(http, base, &token, &id, kind, *tick, hash).await;
            assert_eq!(status, 201, "{body}");
        }
        let (_, up) = upload_with(http, base, &token, &soon_run.bytes, &id).await;
        let soon = up["id"].as_i64().unwrap();
        let status = verdict(http, base, soon).await;
        assert_eq!(status["realtime"], false);
        let note = status["realtime_note"].as_str().unwrap();
        assert!(
            note.starts_with("checkpoint 0 was committed")
                && note.contains("sooner than its game time"),
            "{note}"
        );

        // A run that commits a hash the replay does not reproduce (another run's).
        let token = register(http, base, "dee").await;
        let dee = played("dee", 90);
        let id = ticket(http, base, &token).await;
        let mut forged = played("dee", 90);
        forged.splits[0].2 = slow_run.splits[0].2.clone();
        play(http, base, &token, &id, &forged, &[0, 0]).await;
        let (_, up) = upload_with(http, base, &token, &dee.bytes, &id).await;
        let wrong = up["id"].as_i64().unwrap();
        let status = verdict(http, base, wrong).await;
        assert_eq!(status["realtime"], false);
        assert!(
            status["realtime_note"]
                .as_str()
                .unwrap()
                .contains("committed state hash"),
            "{status}"
        );

        // No ticket: open, no note.
        let token = register(http, base, "eve").await;
        let (_, up) = upload(http, base, &token, &dash_run("eve", 127)).await;
        let open = up["id"].as_i64().unwrap();
        let status = verdict(http, base, open).await;
        assert_eq!(
            (&status["realtime"], &status["realtime_note"]),
            (&json!(false), &Value::Null)
        );

        assert_eq!(board(http, base, "realtime").await, vec![fast], "{name}");
        let mut all = board(http, base, "open").await;
        all.sort();
        assert_eq!(all, vec![fast, slow, soon, wrong, open], "{name}");
        dash.server.stop().await;
        db.remove().await;
    }
}

/// Forged, malformed, someone else's, reused, expired, out of order, one too many: each its
/// 4xx with a clear code, and nothing changes (the ticket still works after; a refused
/// upload stored no run).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_ticket_requests_get_their_4xx_and_change_nothing() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let dash = dash_server(&db).await;
        let (http, base) = (&dash.server.http, dash.server.base.as_str());
        let name = backend.name();
        let ana = register(http, base, "ana").await;
        let bob = register(http, base, "bob").await;
        let run = played("ana", 127);
        let [(_, cp_tick, cp_hash), (_, fin_tick, fin_hash)] =
            [&run.splits[0], &run.splits[1]].map(|(k, t, h)| (*k, *t, h.clone()));
        let start = run.start_hash.clone();

        // Minting: a token is needed, the level must exist.
        let url = format!("{base}/api/levels/dash/tickets");
        assert_eq!(post_json(http, &url, None, None).await.0, 401);
        assert_eq!(post_json(http, &url, Some("pogo_nope"), None).await.0, 401);
        let (status, body) = mint(http, base, &ana, "nowhere").await;
        assert_eq!(
            (status, body["error"].as_str()),
            (404, Some("unknown_level"))
        );

        let id = ticket(http, base, &ana).await;
        assert_eq!(id.len(), 32, "128 bits as hex");
        let code = |r: (u16, Value)| (r.0, r.1["error"].as_str().unwrap_or("").to_string());
        let expect = |r: (u16, Value), status: u16, error: &str| {
            assert_eq!(code(r), (status, error.to_string()), "{name}");
        };

        // Malformed and forged ids, on both routes.
        for bad in ["xyz", "0123456789ABCDEF0123456789ABCDEF", &"0".repeat(33)] {
            expect(
                commit(http, base, &ana, bad, "start", 0, &start).await,
                400,
                "bad_parameter",
            );
            expect(
                upload_with(http, base, &ana, &run.bytes, bad).await,
                400,
                "bad_parameter",
            );
        }
        let forged = "0123456789abcdef0123456789abcdef";
        expect(
            commit(http, base, &ana, forged, "start", 0, &start).await,
            404,
            "unknown_ticket",
        );
        expect(
            upload_with(http, base, &ana, &run.bytes, forged).await,
            404,
            "unknown_ticket",
        );
        // Someone else's.
        expect(
            commit(http, base, &bob, &id, "start", 0, &start).await,
            403,
            "not_your_ticket",
        );
        let bob_run = played("bob", 127);
        expect(
            upload_with(http, base, &bob, &bob_run.bytes, &id).await,
            403,
            "not_your_ticket",
        );
        // Malformed commitments.
        expect(
            commit(http, base, &ana, &id, "start", 0, "xyz").await,
            400,
            "bad_commit",
        );
        expect(
            commit(http, base, &ana, &id, "start", 0, &"g".repeat(16)).await,
            400,
            "bad_commit",
        );
        expect(
            commit(http, base, &ana, &id, "lap", 0, &start).await,
            400,
            "bad_json",
        );
        let commits = format!("{base}/api/tickets/{id}/commits");
        let extra = json!({"kind": "start", "tick": 0, "hash": start, "at": 5});
        expect(
            post_json(http, &commits, Some(&ana), Some(extra))
                .await
                .into_pair(),
            400,
            "bad_json",
        );
        let negative = json!({"kind": "start", "tick": -1, "hash": start});
        expect(
            post_json(http, &commits, Some(&ana), Some(negative))
                .await
                .into_pair(),
            400,
            "bad_json",
        );
        expect(
            commit(http, base, &ana, &id, "checkpoint", u32::MAX, &cp_hash).await,
            400,
            "bad_commit",
        );
        // No token, or not one.
        let body = json!({"kind": "start", "tick": 0, "hash": start});
        expect(
            post_json(http, &commits, None, Some(body.clone()))
                .await
                .into_pair(),
            401,
            "missing_token",
        );
        expect(
            post_json(http, &commits, Some("pogo_nope"), Some(body))
                .await
                .into_pair(),
            401,
            "bad_token",
        );
        // Out of order: the start first, at tick 0.
        expect(
            commit(http, base, &ana, &id, "checkpoint", cp_tick, &cp_hash).await,
            409,
            "commit_out_of_order",
        );
        expect(
            commit(http, base, &ana, &id, "start", 3, &start).await,
            409,
            "commit_out_of_order",
        );
        let (status, body) = commit(http, base, &ana, &id, "start", 0, &start).await;
        assert_eq!(status, 201, "{body}");
        assert_eq!(body["seq"], 0);
        expect(
            commit(http, base, &ana, &id, "start", 0, &start).await,
            409,
            "commit_out_of_order",
        );
        tokio::time::sleep(Duration::from_millis(u64::from(cp_tick + 1) * 1000 / 60)).await;
        let (status, body) = commit(http, base, &ana, &id, "checkpoint", cp_tick, &cp_hash).await;
        assert_eq!((status, &body["seq"]), (201, &json!(1)), "{body}");
        expect(
            commit(http, base, &ana, &id, "checkpoint", cp_tick - 1, &cp_hash).await,
            409,
            "commit_out_of_order",
        );
        tokio::time::sleep(Duration::from_millis(
            u64::from(fin_tick - cp_tick) * 1000 / 60,
        ))
        .await;
        let (status, _) = commit(http, base, &ana, &id, "finish", fin_tick, &fin_hash).await;
        assert_eq!(status, 201);
        // Nothing follows the finish; and the dash takes 3 commitments at most.
        expect(
            commit(http, base, &ana, &id, "finish", fin_tick, &fin_hash).await,
            409,
            "commit_out_of_order",
        );

        // An upload of another level naming the ticket: refused, nothing stored, ticket kept.
        let flat = flat_run("ana", 1, 60);
        expect(
            upload_with(http, base, &ana, &flat, &id).await,
            409,
            "ticket_mismatch",
        );
        // The ticket still works: the real-time upload.
        let (status, up) = upload_with(http, base, &ana, &run.bytes, &id).await;
        assert_eq!(status, 202, "{name}: {up}");
        let run_id = up["id"].as_i64().unwrap();
        // The flat run was not stored: uploading it now is new (202), not a duplicate.
        let (status, again) = upload(http, base, &ana, &flat).await;
        assert_eq!(
            (status, &again["duplicate"]),
            (202, &json!(false)),
            "{again}"
        );
        // Reused: a second upload (other bytes) naming it, and a commitment after the upload.
        let other = played("ana", 100);
        expect(
            upload_with(http, base, &ana, &other.bytes, &id).await,
            409,
            "ticket_used",
        );
        expect(
            commit(http, base, &ana, &id, "finish", fin_tick, &fin_hash).await,
            409,
            "ticket_used",
        );
        let (status, again) = upload(http, base, &ana, &other.bytes).await;
        assert_eq!(
            (status, &again["duplicate"]),
            (202, &json!(false)),
            "nothing stored: {again}"
        );
        let status = verdict(http, base, run_id).await;
        assert_eq!(status["realtime"], true, "{name}: {status}");

        // One too many: the dash has one checkpoint, so start + checkpoint + finish; a
        // second checkpoint commitment (ticks forward) fills the place of the finish.
        let id = ticket(http, base, &ana).await;
        commit(http, base, &ana, &id, "start", 0, &start).await;
        tokio::time::sleep(Duration::from_millis(u64::from(fin_tick + 1) * 1000 / 60)).await;
        assert_eq!(
            commit(http, base, &ana, &id, "checkpoint", cp_tick, &cp_hash)
                .await
                .0,
            201
        );
        assert_eq!(
            commit(http, base, &ana, &id, "checkpoint", cp_tick + 1, &cp_hash)
                .await
                .0,
            201
        );
        expect(
            commit(http, base, &ana, &id, "finish", fin_tick, &fin_hash).await,
            409,
            "too_many_commits",
        );

        // Expired: not started within its start window; past its upload window.
        let id = ticket(http, base, &bob).await;
        execute(
            &db,
            &backend,
            &format!("UPDATE tickets SET issued_ms = issued_ms - 60001 WHERE id = '{id}'"),
        )
        .await;
        expect(
            commit(http, base, &bob, &id, "start", 0, &start).await,
            410,
            "ticket_expired",
        );
        execute(
            &db,
            &backend,
            &format!("UPDATE tickets SET issued_ms = issued_ms - 7 * 86400000 WHERE id = '{id}'"),
        )
        .await;
        expect(
            upload_with(http, base, &bob, &bob_run.bytes, &id).await,
            410,
            "ticket_expired",
        );
        // …and the refused upload stored nothing.
        let (status, up) = upload(http, base, &bob, &bob_run.bytes).await;
        assert_eq!((status, &up["duplicate"]), (202, &json!(false)), "{up}");
        // A ticket whose start window is nearly over can still be started.
        let id = ticket(http, base, &bob).await;
        execute(
            &db,
            &backend,
            &format!("UPDATE tickets SET issued_ms = issued_ms - 55000 WHERE id = '{id}'"),
        )
        .await;
        assert_eq!(
            commit(http, base, &bob, &id, "start", 0, &start).await.0,
            201
        );
        // Started, but past its commit window: the start window, the longest run the server
        // verifies (the default hour) and the slack since its issue.
        let past = 60_000 + 3_600_000 + 1500 - 55_000 + 1;
        let sql = format!("UPDATE tickets SET issued_ms = issued_ms - {past} WHERE id = '{id}'");
        execute(&db, &backend, &sql).await;
        let late = commit(http, base, &bob, &id, "checkpoint", cp_tick, &cp_hash).await;
        expect(late, 410, "ticket_expired");

        dash.server.stop().await;
        db.remove().await;
    }
}

/// Minting is rate limited per player (a burst of 3, then one per 2 s: 429 with
/// Retry-After), and a player holds at most 3 tickets not yet started (429
/// `too_many_tickets`); starting one frees a place. Another player is not affected.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tickets_cannot_be_minted_faster_than_a_person_plays() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let dash = dash_server(&db).await;
        let (http, base) = (&dash.server.http, dash.server.base.as_str());
        let ana = register(http, base, "ana").await;
        let url = format!("{base}/api/levels/dash/tickets");
        let mut ids = Vec::new();
        for _ in 0..3 {
            ids.push(ticket(http, base, &ana).await);
        }
        let (status, body, retry) = post_json(http, &url, Some(&ana), None).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (429, Some("rate_limited")),
            "{body}"
        );
        let wait: u64 = retry.unwrap().parse().unwrap();
        assert!((1..=2).contains(&wait), "{wait}");
        // Another player mints meanwhile.
        let bob = register(http, base, "bob").await;
        ticket(http, base, &bob).await;
        // After the wait: the rate allows one more, but three are open.
        tokio::time::sleep(Duration::from_millis(2100)).await;
        let (status, body, retry) = post_json(http, &url, Some(&ana), None).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (429, Some("too_many_tickets")),
            "{body}"
        );
        assert_eq!(retry.as_deref(), Some("60"));
        // Starting one frees its place.
        let start = played("ana", 127).start_hash;
        assert_eq!(
            commit(http, base, &ana, &ids[0], "start", 0, &start)
                .await
                .0,
            201
        );
        tokio::time::sleep(Duration::from_millis(2100)).await;
        let (status, body) = mint(http, base, &ana, "dash").await;
        assert_eq!(status, 201, "{body}");
        assert_eq!(body["commits_max"], 3);
        assert_eq!(body["start_window_ms"], 60_000);
        assert_eq!(body["slack_ms"], 1500);
        dash.server.stop().await;
        db.remove().await;
    }
}

/// Two uploads naming one ticket at the same moment (different bytes): exactly one is
/// stored; the other is 409 `ticket_used` and stored nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ticket_is_consumed_once_under_concurrent_uploads() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let dash = dash_server(&db).await;
        let (http, base) = (&dash.server.http, dash.server.base.as_str());
        let ana = register(http, base, "ana").await;
        for round in 0..3 {
            let id = ticket(http, base, &ana).await;
            let a = dash_run("ana", 127 - round * 2);
            let b = dash_run("ana", 126 - round * 2);
            let (ra, rb) = tokio::join!(
                upload_with(http, base, &ana, &a, &id),
                upload_with(http, base, &ana, &b, &id)
            );
            let mut statuses = [ra.0, rb.0];
            statuses.sort();
            assert_eq!(statuses, [202, 409], "{}: {ra:?} {rb:?}", backend.name());
            let loser = if ra.0 == 409 { &a } else { &b };
            let (status, up) = upload(http, base, &ana, loser).await;
            assert_eq!((status, &up["duplicate"]), (202, &json!(false)), "{up}");
        }
        dash.server.stop().await;
        db.remove().await;
    }
}

trait IntoPair {
    fn into_pair(self) -> (u16, Value);
}

impl IntoPair for (u16, Value, Option<String>) {
    fn into_pair(self) -> (u16, Value) {
        (self.0, self.1)
    }
}
