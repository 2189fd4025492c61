//! Player-made tracks against SQLite and a real PostgreSQL: publishing with the author's
//! finishing run (the author first on the track's board, the medals, the level file served
//! byte for byte and verifying the runs), another player's upload ranked below, the same
//! geometry again, a rename that keeps the board, a remix, hiding; every attack a cheater
//! tries first refused with its code and nothing written; a live race on a track.

mod support;

use std::time::{Duration, Instant};

use base64::Engine;
use pogo_core::world::{Solid, WorldDesc};
use pogo_core::{Fx, Input, Tuning, Vec3};
use pogo_replay::track::{TRACK_JSON_BYTES_MAX, Track, check_track};
use pogo_replay::{Limits, Replay, Verifier, level_to_json, parse_level_json};
use serde_json::{Value, json};
use support::*;

const ADMIN: &str = "tracks-admin-token-0123456789abcdef";

/// A track's geometry (the straight track of `support::track`), checked as the server checks
/// it: renamed by its geometry.
fn checked(desc: &WorldDesc) -> Track {
    check_track(&level_to_json(desc), &Tuning::default()).unwrap()
}

/// A run east at `steer` on `desc` (to the finish) under `name`.
fn run_on(desc: &WorldDesc, name: &str, steer: i8) -> Vec<u8> {
    record(desc, name, 3600, true, |_, _| Input {
        steer_x: steer,
        ..Input::default()
    })
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

async fn publish(http: &reqwest::Client, base: &str, token: &str, body: &Value) -> (u16, Value) {
    let response = http
        .post(format!("{base}/api/tracks"))
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn body(level: &str, name: &str, replay: &[u8]) -> Value {
    json!({ "level": level, "name": name, "description": "east, then east", "replay": b64(replay) })
}

/// Rows in `tracks` and `runs`, read from the database itself.
async fn rows(db: &TestDb) -> (i64, i64) {
    let sql_tracks = "SELECT COUNT(*) FROM tracks";
    let sql_runs = "SELECT COUNT(*) FROM runs";
    if db.url.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(&db.url).await.unwrap();
        let t: i64 = sqlx::query_scalar(sql_tracks)
            .fetch_one(&pool)
            .await
            .unwrap();
        let r: i64 = sqlx::query_scalar(sql_runs).fetch_one(&pool).await.unwrap();
        pool.close().await;
        (t, r)
    } else {
        let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
        let t: i64 = sqlx::query_scalar(sql_tracks)
            .fetch_one(&pool)
            .await
            .unwrap();
        let r: i64 = sqlx::query_scalar(sql_runs).fetch_one(&pool).await.unwrap();
        pool.close().await;
        (t, r)
    }
}

fn admin_config(db: &TestDb) -> pogo_server::Config {
    let mut config = config(db);
    config.admin_token = Some(ADMIN.into());
    config
}

/// Publish → the author first on the board, the medals, the level file; a second player's
/// upload ranked below; the same geometry again; a rename; a remix; hiding.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_track_is_published_by_its_authors_finish_and_is_a_level_everywhere() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let server = TestServer::start(admin_config(&db)).await;
        let (http, base) = (&server.http, server.base.clone());
        let ana = register(http, &base, "ana").await;
        let bo = register(http, &base, "bo").await;

        let original = track("my first", 60, &[5], 12);
        let track = checked(&original);
        let level = track.desc.name.clone();
        let id = &level[2..];
        // What the level file would publish as: the name to record the author's run under.
        let response = http
            .post(format!("{base}/api/tracks/check"))
            .header("content-type", "application/json")
            .body(level_to_json(&original))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let check: Value = response.json().await.unwrap();
        assert_eq!(
            (&check["id"], &check["level"]),
            (&json!(id), &json!(level)),
            "{check}"
        );
        assert_eq!(check["level_json"], level_to_json(&track.desc));
        assert_eq!(check["published"], false);
        let response = http
            .post(format!("{base}/api/tracks/check"))
            .header("content-type", "application/json")
            .body("{\"name\": \"x\", \"spawn\": [0, 0]}")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400);
        let refused: Value = response.json().await.unwrap();
        assert_eq!(
            (&refused["error"], &refused["field"]),
            (&json!("bad_track"), &json!("spawn")),
            "{refused}"
        );
        let author_run = run_on(&track.desc, "ana", 127);
        let (status, published) = publish(
            http,
            &base,
            &ana,
            &body(&level_to_json(&track.desc), "Dash east", &author_run),
        )
        .await;
        assert_eq!(status, 201, "{}: {published}", backend.name());
        let view = &published["track"];
        assert_eq!(view["id"], id);
        assert_eq!(view["level"], level.as_str());
        assert_eq!(view["author"], "ana");
        assert_eq!(view["name"], "Dash east");
        assert_eq!(view["remix_of"], Value::Null);
        let author_tick = view["author_finish_tick"].as_u64().unwrap();
        let medals = &view["medals"];
        let author_ticks = author_tick + 1;
        assert_eq!(medals["author"]["ticks"], author_ticks);
        assert_eq!(medals["gold"]["ticks"], (author_ticks * 106).div_ceil(100));
        assert_eq!(
            medals["silver"]["ticks"],
            (author_ticks * 120).div_ceil(100)
        );
        assert_eq!(
            medals["bronze"]["ticks"],
            (author_ticks * 150).div_ceil(100)
        );
        let author_run_id = view["author_run_id"].as_i64().unwrap();

        // The author's run: verified, rank 1 on the track's board.
        let (status, board) =
            get_json(http, &format!("{base}/api/levels/{level}/leaderboard")).await;
        assert_eq!(status, 200, "{board}");
        assert_eq!(board["entries"][0]["player"], "ana", "{board}");
        assert_eq!(board["entries"][0]["rank"], 1);
        assert_eq!(board["entries"][0]["run_id"], author_run_id, "{board}");
        assert_eq!(board["entries"][0]["finish_tick"], author_tick);
        let run = verdict(http, &base, author_run_id).await;
        assert_eq!(
            (run["status"].as_str(), run["rank"].as_i64()),
            (Some("verified"), Some(1))
        );

        // The level file, byte for byte as stored: re-checked, the same id; the author's run
        // verifies against it as `pogo verify --level FILE` does (the same Verifier).
        let response = http
            .get(format!("{base}/api/tracks/{id}/level.json"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let served = response.text().await.unwrap();
        assert_eq!(served, level_to_json(&track.desc));
        assert_eq!(
            check_track(&served, &Tuning::default())
                .unwrap()
                .geometry_hash,
            track.geometry_hash
        );
        let cli = Verifier::new(
            Tuning::default(),
            [parse_level_json(&served).unwrap()],
            Limits::default(),
        );
        assert_eq!(
            cli.verify(&author_run[..]).unwrap().finish[0],
            Some(author_tick as u32)
        );
        let pogo = pogo_cli();
        if pogo.is_none() {
            eprintln!(
                "*** `pogo verify --level` not run: no pogo binary (cargo build -p pogo --bin \
                 pogo --no-default-features --features cli, or POGO_CLI_BIN) ***"
            );
        }
        if let Some(pogo) = pogo {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("level.json"), &served).unwrap();
            std::fs::write(dir.path().join("run.pogo"), &author_run).unwrap();
            let out = std::process::Command::new(&pogo)
                .arg("verify")
                .arg("--level")
                .arg(dir.path().join("level.json"))
                .arg(dir.path().join("run.pogo"))
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "pogo verify: {out:?}");
            assert!(stdout.starts_with("OK "), "{stdout}");
            // And against the file of another geometry of the same name, it fails.
            let mut other = parse_level_json(&served).unwrap();
            other.solids[0].bounds.max.x += Fx::from_int(1);
            std::fs::write(dir.path().join("other.json"), level_to_json(&other)).unwrap();
            let out = std::process::Command::new(&pogo)
                .arg("verify")
                .arg("--level")
                .arg(dir.path().join("other.json"))
                .arg(dir.path().join("run.pogo"))
                .output()
                .unwrap();
            assert!(
                !out.status.success(),
                "pogo verify of another geometry: {out:?}"
            );
        }
        // A ghost, an export, a run ticket: the level routes serve the track.
        let (status, ghost) = get_json(
            http,
            &format!("{base}/api/runs/{author_run_id}/ghost?every=10"),
        )
        .await;
        assert_eq!(status, 200, "{ghost}");
        assert!(!ghost["points"].as_array().unwrap().is_empty(), "{ghost}");
        let response = http
            .get(format!("{base}/api/levels/{level}/export?format=csv"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert!(response.text().await.unwrap().contains("ana"));
        let response = http
            .post(format!("{base}/api/levels/{level}/tickets"))
            .bearer_auth(&ana)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201);
        let ticket: Value = response.json().await.unwrap();
        assert_eq!(
            ticket["commits_max"], 3,
            "the start, one checkpoint, the finish: {ticket}"
        );
        // The geometry a page draws, under the level name.
        let (status, geometry) = get_json(http, &format!("{base}/api/levels/{level}")).await;
        assert_eq!(
            (status, &geometry["name"]),
            (200, &json!(level)),
            "{geometry}"
        );

        // Another player's upload through POST /api/runs: verified, ranked below.
        let slower = run_on(&track.desc, "bo", 90);
        let (status, uploaded) = upload(http, &base, &bo, &slower).await;
        assert_eq!(status, 202, "{uploaded}");
        let run = verdict(http, &base, uploaded["id"].as_i64().unwrap()).await;
        assert_eq!(run["status"], "verified", "{run}");
        assert_eq!(run["rank"], 2, "{run}");
        let (_, board) = get_json(http, &format!("{base}/api/levels/{level}/leaderboard")).await;
        assert_eq!(board["entries"][1]["player"], "bo", "{board}");

        // The same geometry again, by anyone: 200, the same track, nothing written.
        let before = rows(&db).await;
        let again = run_on(&track.desc, "bo", 100);
        let (status, same) = publish(
            http,
            &base,
            &bo,
            &body(&level_to_json(&track.desc), "Mine now", &again),
        )
        .await;
        assert_eq!((status, &same["track"]["id"]), (200, &json!(id)), "{same}");
        assert_eq!(same["track"]["author"], "ana");
        assert_eq!(rows(&db).await, before);

        // A rename by its author: the board stays.
        let response = http
            .patch(format!("{base}/api/tracks/{id}"))
            .bearer_auth(&ana)
            .json(&json!({ "name": "Dash east (remastered)", "description": "" }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let (_, view) = get_json(http, &format!("{base}/api/tracks/{id}")).await;
        assert_eq!(view["name"], "Dash east (remastered)");
        assert_eq!(view["level"], level.as_str());
        assert_eq!(view["runs"], 2, "{view}");
        let (_, board) = get_json(http, &format!("{base}/api/levels/{level}/leaderboard")).await;
        assert_eq!(board["entries"].as_array().unwrap().len(), 2, "{board}");

        // A remix: one solid moved is a new track, linked both ways, its own board.
        let mut moved = track.desc.clone();
        moved.solids[0].bounds.max.x += Fx::from_int(1);
        let remix = checked(&moved);
        assert_ne!(remix.geometry_hash, track.geometry_hash);
        let remix_run = run_on(&remix.desc, "bo", 127);
        let mut request = body(&level_to_json(&remix.desc), "Dash east, longer", &remix_run);
        request["remix_of"] = json!(id);
        let (status, remixed) = publish(http, &base, &bo, &request).await;
        assert_eq!(status, 201, "{remixed}");
        let remix_level = remixed["track"]["level"].as_str().unwrap().to_string();
        assert_eq!(remixed["track"]["remix_of"], id);
        let (_, original) = get_json(http, &format!("{base}/api/tracks/{id}")).await;
        assert_eq!(original["remixes"], 1, "{original}");
        let (_, board) = get_json(
            http,
            &format!("{base}/api/levels/{remix_level}/leaderboard"),
        )
        .await;
        let entries = board["entries"].as_array().unwrap();
        assert_eq!(entries.len(), 1, "{board}");
        assert_eq!(entries[0]["player"], "bo");

        // The lists: newest first, by author, by name, popular (both raced today).
        let (_, list) = get_json(http, &format!("{base}/api/tracks")).await;
        let ids: Vec<&str> = list["tracks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, [&remix_level[2..], id], "{list}");
        let (_, page) = get_json(http, &format!("{base}/api/tracks?limit=1")).await;
        let cursor = page["next_cursor"].as_str().unwrap();
        let (_, page2) =
            get_json(http, &format!("{base}/api/tracks?limit=1&cursor={cursor}")).await;
        assert_eq!(page2["tracks"][0]["id"], id, "{page2}");
        let (_, mine) = get_json(http, &format!("{base}/api/tracks?author=ANA")).await;
        assert_eq!(mine["tracks"].as_array().unwrap().len(), 1, "{mine}");
        let (_, named) = get_json(http, &format!("{base}/api/tracks?q=dash%20EAST%2C")).await;
        assert_eq!(
            named["tracks"][0]["id"].as_str(),
            Some(&remix_level[2..]),
            "{named}"
        );
        assert_eq!(named["tracks"].as_array().unwrap().len(), 1, "{named}");
        // The popular list is recounted every second here (`--tracks-popular-every-s 1`).
        let started = Instant::now();
        let popular = loop {
            let (_, popular) = get_json(http, &format!("{base}/api/tracks?sort=popular")).await;
            if popular["tracks"][0]["raced_recently"] == 2
                || started.elapsed() > Duration::from_secs(10)
            {
                break popular;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        assert_eq!(popular["tracks"][0]["id"], id, "{popular}");
        assert_eq!(popular["tracks"][0]["raced_recently"], 2, "{popular}");
        let (status, _) = get_json(http, &format!("{base}/api/tracks?cursor=garbage")).await;
        assert_eq!(status, 400);
        // Hostile parameters are 4xx on both databases, never a 500 (a text cannot hold NUL).
        for (query, want) in [
            ("author=a%00b", 404),
            ("q=a%00b", 400),
            ("cursor=s.6100.0123456789abcdef", 400),
            ("sort=popular&q=x", 400),
            ("limit=0", 400),
            ("limit=101", 400),
            ("author=nobody", 404),
        ] {
            let (status, answer) = get_json(http, &format!("{base}/api/tracks?{query}")).await;
            assert_eq!(status, want, "{query}: {answer}");
        }
        for path in [
            "/api/tracks/zz",
            "/api/tracks/0000000000000000",
            "/api/tracks/x%00/level.json",
        ] {
            let (status, _) = get_json(http, &format!("{base}{path}")).await;
            assert_eq!(status, 404, "{path}");
        }

        // Hidden by an admin: the track, its level, its board, its level file are gone.
        let response = http
            .put(format!("{base}/api/admin/tracks/{id}/hidden"))
            .bearer_auth(ADMIN)
            .json(&json!({ "hidden": true }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        for url in [
            format!("{base}/api/tracks/{id}"),
            format!("{base}/api/tracks/{id}/level.json"),
            format!("{base}/api/levels/{level}"),
            format!("{base}/api/levels/{level}/leaderboard"),
            format!("{base}/api/levels/{level}/seasons"),
        ] {
            let (status, _) = get_json(http, &url).await;
            assert_eq!(status, 404, "{url}");
        }
        let (_, list) = get_json(http, &format!("{base}/api/tracks")).await;
        assert_eq!(list["tracks"].as_array().unwrap().len(), 1, "{list}");
        let (status, refused) = upload(http, &base, &bo, &run_on(&track.desc, "bo", 80)).await;
        assert_eq!((status, &refused["error"]), (404, &json!("unknown_level")));
        let response = http
            .post(format!("{base}/api/levels/{level}/rooms"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 404);
        // Shown again: its board is back, whole.
        http.put(format!("{base}/api/admin/tracks/{id}/hidden"))
            .bearer_auth(ADMIN)
            .json(&json!({ "hidden": false }))
            .send()
            .await
            .unwrap();
        let (_, board) = get_json(http, &format!("{base}/api/levels/{level}/leaderboard")).await;
        assert_eq!(board["entries"].as_array().unwrap().len(), 2, "{board}");

        server.stop().await;
        db.remove().await;
    }
}

/// Sends a request's head alone; the first bytes of the answer.
async fn raw_head(base: &str, head: &[u8]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = base.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.write_all(head).await.unwrap();
    let mut reply = vec![0u8; 512];
    let n = tokio::time::timeout(Duration::from_secs(30), stream.read(&mut reply))
        .await
        .unwrap()
        .unwrap_or(0);
    String::from_utf8_lossy(&reply[..n]).into_owned()
}

/// The `pogo` CLI binary, if built (`POGO_CLI_BIN`, or `target/debug/pogo` beside this
/// test's binary): this package cannot build it itself.
fn pogo_cli() -> Option<std::path::PathBuf> {
    let path = std::env::var_os("POGO_CLI_BIN")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            let exe = std::env::current_exe().ok()?;
            Some(exe.parent()?.parent()?.join("pogo"))
        })?;
    path.exists().then_some(path)
}

/// What a cheater tries first, each refused with its status and code, nothing written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_attack_is_refused_and_writes_nothing() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let server = TestServer::start(admin_config(&db)).await;
        let (http, base) = (&server.http, server.base.clone());
        let ana = register(http, &base, "ana").await;
        let bo = register(http, &base, "bo").await;
        let track = checked(&track("attacks", 60, &[5], 12));
        let text = level_to_json(&track.desc);
        let good = run_on(&track.desc, "ana", 127);

        let refusals: Vec<(&str, Value, u16, &str, Option<&str>)> = {
            // A replay that does not finish.
            let short = record(&track.desc, "ana", 30, false, |_, _| Input::default());
            // Recorded on another geometry, claiming the track's level name.
            let mut other = track.desc.clone();
            other.finishes[0].min.x += Fx::from_int(1);
            let elsewhere = run_on(&other, "ana", 127);
            // Another player's replay.
            let theirs = run_on(&track.desc, "bo", 127);
            // The right geometry under another level name.
            let mut renamed = track.desc.clone();
            renamed.name = "attacks".into();
            let misnamed = run_on(&renamed, "ana", 127);
            // A recorded state hash flipped, the file's checks redone: a desync.
            let mut replay = Replay::decode(&good, Limits::default()).unwrap();
            replay.chunks[0].hashes[0] ^= 1;
            let desynced = replay.encode();
            // A bit flipped in the file: its checksum.
            let mut flipped = good.clone();
            let at = flipped.len() / 2;
            flipped[at] ^= 0x10;
            // Levels: no finish, 2 001 objects, an object 5 km out, malformed, too big.
            let mut no_finish = track.desc.clone();
            no_finish.finishes.clear();
            let mut crowded = track.desc.clone();
            crowded.solids = vec![crowded.solids[0]; 2001];
            let mut far = track.desc.clone();
            far.solids.push(Solid {
                bounds: pogo_core::world::Aabb::new(
                    Vec3::new(Fx::from_int(5000), Fx::ZERO, Fx::ZERO),
                    Vec3::new(Fx::from_int(5001), Fx::ONE, Fx::ONE),
                ),
                no_bounce: false,
            });
            let huge = "x".repeat(TRACK_JSON_BYTES_MAX + 1);
            vec![
                (
                    "unfinished",
                    body(&text, "T", &short),
                    400,
                    "bad_author_run",
                    Some("not_finished"),
                ),
                (
                    "another geometry",
                    body(&text, "T", &elsewhere),
                    400,
                    "bad_author_run",
                    Some("level_mismatch"),
                ),
                (
                    "another player's",
                    body(&text, "T", &theirs),
                    403,
                    "name_mismatch",
                    None,
                ),
                (
                    "another level name",
                    body(&text, "T", &misnamed),
                    400,
                    "bad_author_run",
                    Some("level_name"),
                ),
                (
                    "tampered: desync",
                    body(&text, "T", &desynced),
                    400,
                    "bad_author_run",
                    Some("desync"),
                ),
                (
                    "tampered: a bit",
                    body(&text, "T", &flipped),
                    400,
                    "bad_replay",
                    None,
                ),
                (
                    "not base64",
                    json!({"level": text, "name": "T", "replay": "***"}),
                    400,
                    "bad_author_run",
                    Some("base64"),
                ),
                (
                    "no finish",
                    body(&level_to_json(&no_finish), "T", &good),
                    400,
                    "bad_track",
                    None,
                ),
                (
                    "2 001 objects",
                    body(&level_to_json(&crowded), "T", &good),
                    400,
                    "bad_track",
                    None,
                ),
                (
                    "5 km out",
                    body(&level_to_json(&far), "T", &good),
                    400,
                    "bad_track",
                    None,
                ),
                (
                    "malformed level",
                    body("{\"name\": 3}", "T", &good),
                    400,
                    "bad_track",
                    None,
                ),
                (
                    "over 256 KiB",
                    body(&huge, "T", &good),
                    400,
                    "bad_track",
                    None,
                ),
                (
                    "control characters",
                    body(&text, "bad\u{1b}[2Jname", &good),
                    400,
                    "bad_track",
                    None,
                ),
                (
                    "a bidi override",
                    body(&text, "a\u{202E}b", &good),
                    400,
                    "bad_track",
                    None,
                ),
                (
                    "no name",
                    json!({"level": text, "replay": b64(&good)}),
                    400,
                    "bad_json",
                    None,
                ),
                (
                    "an unknown original",
                    {
                        let mut b = body(&text, "T", &good);
                        b["remix_of"] = json!("0000000000000000");
                        b
                    },
                    400,
                    "bad_track",
                    None,
                ),
            ]
        };
        let fields = [
            ("no finish", "finishes"),
            ("2 001 objects", ""),
            ("5 km out", "solids[1]"),
            ("malformed level", "name"),
            ("over 256 KiB", ""),
            ("control characters", "name"),
            ("an unknown original", "remix_of"),
        ];
        for (what, request, status, code, kind) in refusals {
            let before = rows(&db).await;
            let (got, answer) = publish(http, &base, &ana, &request).await;
            assert_eq!(
                (got, answer["error"].as_str()),
                (status, Some(code)),
                "{}: {what}: {answer}",
                backend.name()
            );
            if let Some(kind) = kind {
                assert_eq!(answer["kind"], kind, "{what}: {answer}");
            }
            if let Some((_, field)) = fields.iter().find(|(w, _)| *w == what) {
                assert_eq!(answer["field"], *field, "{what}: {answer}");
            }
            if what == "over 256 KiB" {
                // Refused by its size, before the parser saw it (it is not even JSON).
                let message = answer["message"].as_str().unwrap();
                assert!(message.contains("bytes"), "{message}");
            }
            assert_eq!(rows(&db).await, before, "{what}: nothing written");
        }

        // A body declared over the route's limit: 413 on its head, before any of it is read
        // (raw: a client still writing would see the connection close instead).
        let head = format!(
            "POST /api/tracks HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {ana}\r\n\
             content-type: application/json\r\ncontent-length: {}\r\n\r\n",
            64u64 << 20
        );
        let reply = raw_head(&base, head.as_bytes()).await;
        assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");

        // A PATCH by another player: 403; nothing changes.
        let (status, published) = publish(http, &base, &ana, &body(&text, "Mine", &good)).await;
        assert_eq!(status, 201, "{published}");
        let id = published["track"]["id"].as_str().unwrap();
        let response = http
            .patch(format!("{base}/api/tracks/{id}"))
            .bearer_auth(&bo)
            .json(&json!({ "name": "Stolen" }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403);
        let refused: Value = response.json().await.unwrap();
        assert_eq!(refused["error"], "not_author");
        let (_, view) = get_json(http, &format!("{base}/api/tracks/{id}")).await;
        assert_eq!(view["name"], "Mine");
        // A rename with control characters: 400, nothing changes.
        let response = http
            .patch(format!("{base}/api/tracks/{id}"))
            .bearer_auth(&ana)
            .json(&json!({ "name": "a\nb" }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400);

        // Over the day's limit: 20 published (this one and 19 more), the 21st is 429.
        for i in 1..20 {
            let desc = checked(&support::track("daily", 60 + i, &[5], 12)).desc;
            let run = run_on(&desc, "ana", 127);
            let (status, answer) = publish(
                http,
                &base,
                &ana,
                &body(&level_to_json(&desc), "Daily", &run),
            )
            .await;
            assert_eq!(status, 201, "track {i}: {answer}");
        }
        let before = rows(&db).await;
        let desc = checked(&support::track("daily", 200, &[5], 12)).desc;
        let run = run_on(&desc, "ana", 127);
        let response = http
            .post(format!("{base}/api/tracks"))
            .bearer_auth(&ana)
            .json(&body(&level_to_json(&desc), "One more", &run))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 429);
        assert!(response.headers().get("retry-after").is_some());
        let answer: Value = response.json().await.unwrap();
        assert_eq!(answer["error"], "too_many_tracks", "{answer}");
        assert_eq!(rows(&db).await, before);

        server.stop().await;
        db.remove().await;
    }
}

/// A live room on a track: made by `POST /api/levels/t-…/rooms`, raced, the run filed
/// verified on the track's board.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_race_on_a_track_is_filed_on_its_board() {
    use pogo_server::live::client::Client;
    use pogo_server::live::wire::Role;
    use support::live::*;
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let server = TestServer::start(config(&db)).await;
        let (http, base) = (&server.http, server.base.clone());
        let ana = register(http, &base, "ana").await;
        let bo = register(http, &base, "bo").await;
        let track = checked(&dash_level());
        let level = track.desc.name.clone();
        let (status, answer) = publish(
            http,
            &base,
            &ana,
            &body(
                &level_to_json(&track.desc),
                "Dash",
                &run_on(&track.desc, "ana", 127),
            ),
        )
        .await;
        assert_eq!(status, 201, "{answer}");
        let response = http
            .post(format!("{base}/api/levels/{level}/rooms"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201);
        let room: Value = response.json().await.unwrap();
        let room = room["id"].as_str().unwrap().to_string();
        let mut client = Client::connect(&base, &room).await.unwrap();
        client.hello(Role::Racer, Some(&bo), None).await.unwrap();
        let mut seats = vec![Seat {
            client,
            racer: 0,
            key: String::new(),
            acked: None,
        }];
        let go = ready_all(&mut seats).await;
        let world = std::sync::Arc::new(
            pogo_core::world::World::new(track.desc.clone(), &Tuning::default()).unwrap(),
        );
        let stream =
            pogo_server::live::client::page_stream(world, &Tuning::default(), &events(110), 3600);
        let seat = seats.pop().unwrap();
        let (mut tx, mut rx) = seat.client.split();
        let sender = tokio::spawn(async move {
            send_from(&mut tx, &stream, 0, go, 1.0, 15).await;
            tx
        });
        let (_, result) = read_until_filed(&mut rx, 1).await;
        drop(sender.await.unwrap());
        let id = result.racers[0].run_id.unwrap();
        let status = run_status(http, &base, id).await;
        assert_eq!(status["status"], "verified", "{status}");
        assert_eq!(status["level"], level.as_str());
        let (_, board) = get_json(http, &format!("{base}/api/levels/{level}/leaderboard")).await;
        assert_eq!(board["entries"][1]["player"], "bo", "{board}");
        assert_eq!(board["entries"][1]["run_id"], id, "{board}");
        server.stop().await;
        db.remove().await;
    }
}

/// The largest track a player may publish: a 1 km course east of 1 998 ground tiles (0.5 m
/// each, side by side), a checkpoint halfway, the finish at 970 + `k` m: 2 000 objects.
fn largest_track(k: i32) -> WorldDesc {
    let finish = 970 + k;
    let m = Fx::from_int;
    let half = Fx::from_bits(1 << 31);
    let mut desc = track("largest", 60, &[500], 990);
    desc.solids = (0..1998)
        .map(|i| {
            let x0 = Fx::from_int(-10) + half * Fx::from_int(i);
            Solid {
                bounds: pogo_core::world::Aabb::new(
                    Vec3::new(x0, m(-1), m(-20)),
                    Vec3::new(x0 + half, m(0), m(20)),
                ),
                no_bounce: false,
            }
        })
        .collect();
    desc.finishes = vec![gate(finish, finish + 2)];
    desc
}

/// A track at the density `World::new` allows: a 14 m square floor of 0.5 × 0.25 m tiles (32
/// in each 2 m cell, 7 × 7 cells), platforms crossing above it — as many as keep its worst
/// tick under the publish limit (none: one platform takes the bound over it) — and the
/// finish at its east edge moved `k` quarter metres.
fn dense_track(k: i32) -> WorldDesc {
    let text = |platforms: i32| {
        let mut text = String::from(r#"{"name":"dense","spawn":[1,0.5,1],"solids":["#);
        let mut first = true;
        for i in 0..28 {
            for j in 0..56 {
                let (x, z) = (f64::from(i) * 0.5 - 7.0, f64::from(j) * 0.25 - 7.0);
                if !first {
                    text.push(',');
                }
                first = false;
                // Inset a centimetre: a box on a cell's edge is in both cells.
                text.push_str(&format!(
                    r#"{{"min":[{},-1,{}],"max":[{},0,{}]}}"#,
                    x + 0.01,
                    z + 0.01,
                    x + 0.49,
                    z + 0.24
                ));
            }
        }
        text.push_str(r#"],"platforms":["#);
        for p in 0..platforms {
            let z = f64::from(p % 8) * 1.6 - 6.5;
            let y = 3.0 + f64::from(p / 8) * 1.5;
            if p > 0 {
                text.push(',');
            }
            text.push_str(&format!(
                r#"{{"size":[1,0.25,1],"path":{{"ping_pong":{{"from":[-6,{y},{z}],"to":[5,{y},{z}],"period":{}}}}}}}"#,
                3 + p % 5
            ));
        }
        let x = 6.0 + f64::from(k) * 0.25;
        text.push_str(&format!(
            r#"],"finishes":[{{"min":[{x},0,-7],"max":[{},3,7]}}]}}"#,
            x + 0.5
        ));
        text
    };
    let most = (0..=64)
        .rev()
        .find(|&n| check_track(&text(n), &Tuning::default()).is_ok())
        .expect("the floor alone is a track");
    parse_level_json(&text(most)).unwrap()
}

/// What publishing costs the server's CPU (user + system time of the real binary, from
/// `/proc`, around each request; 10 ms resolution, so over 10 publishes): the largest track
/// allowed with a 5-minute author run — bouncing in place, then east at full stick to the
/// finish — each a new geometry (the finish moved): the longest and the densest. Run by hand, in
/// release: `cargo test --release -p pogo-server --test tracks publish_cpu -- --ignored
/// --nocapture` (PERFORMANCE.md, "Tracks at scale").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run by hand, in release"]
async fn publish_cpu() {
    /// Ticks spent bouncing in place before heading east (the rest is the 1 km).
    const WAIT: u32 = 13_500;
    let db = TestDb::new(&Backend::Sqlite).await;
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["--database", &db.url, "--workers", "1"];
    args.extend_from_slice(&NO_RATE_LIMITS);
    let server = ServerProcess::start(&args, &dir.path().join("server.log")).await;
    let pid = server.child.lock().unwrap().id();
    let cpu = || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat.rsplit_once(") ").unwrap().1.split(' ').collect();
        // utime and stime, fields 14 and 15 (1-based, the first two before the name's end).
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        ticks as f64 * 10.0
    };
    let http = client();
    let ana = register(&http, &server.base, "ana").await;
    // Two shapes, ten geometries each: the longest (2 000 objects over 1 km) and the densest
    // (a floor at World::new's density limit: a tick's bound near the publish limit), each
    // finished after bouncing in place for most of 5 minutes.
    /// A track shape: its name, the ticks its author run waits, the geometry number `k`.
    type Shape = (&'static str, u32, fn(i32) -> WorldDesc);
    let shapes: [Shape; 2] = [
        ("the longest (2 000 objects, 1 km)", WAIT, largest_track),
        (
            "the densest (1 568 tiles at the grid's density limit)",
            17_400,
            dense_track,
        ),
    ];
    for (shape, wait, make) in shapes {
        let mut spent = Vec::new();
        let mut ticks = 0;
        let (mut bound, mut objects) = (0, 0);
        for k in 0..10 {
            let track = checked(&make(k));
            (bound, objects) = (track.tick_cost_bound, track.objects);
            let text = level_to_json(&track.desc);
            let run = record(&track.desc, "ana", 30_000, true, |tick, _| Input {
                steer_x: if tick < wait { 0 } else { 127 },
                ..Input::default()
            });
            ticks = Replay::decode(&run, Limits::default())
                .unwrap()
                .trailer
                .ticks;
            let body = body(&text, &format!("{} {k}", &shape[4..16]), &run);
            tokio::time::sleep(Duration::from_millis(200)).await;
            let before = cpu();
            let (status, answer) = publish(&http, &server.base, &ana, &body).await;
            let after = cpu();
            assert_eq!(status, 201, "{answer}");
            spent.push(after - before);
        }
        let total: f64 = spent.iter().sum();
        eprintln!(
            "publish CPU, {shape}: {objects} objects, {} bytes of level, worst tick bound \
             {bound} units, a \
             {ticks}-tick author run ({:.1} min): {:.1} ms of server CPU a publish on \
             average over {} ({spent:?} ms each, /proc's 10 ms resolution)",
            level_to_json(&checked(&make(0)).desc).len(),
            f64::from(ticks) / 3600.0,
            total / spent.len() as f64,
            spent.len(),
        );
    }
    let _ = server.terminate(Duration::from_secs(10));
    db.remove().await;
}

/// The cost of publishing the largest track a player may publish (2 000 objects) with a long
/// author run: the server's checks and re-simulation, measured end to end on loopback.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_largest_track_publishes_within_seconds() {
    let db = TestDb::new(&Backend::Sqlite).await;
    let server = TestServer::start(config(&db)).await;
    let (http, base) = (&server.http, server.base.clone());
    let ana = register(http, &base, "ana").await;
    let track = checked(&largest_track(10));
    assert_eq!(track.objects, 2000);
    let text = level_to_json(&track.desc);
    let run = record(&track.desc, "ana", 216_000, true, |_, _| Input {
        steer_x: 127,
        ..Input::default()
    });
    let ticks = Replay::decode(&run, Limits::default())
        .unwrap()
        .trailer
        .ticks;
    let started = Instant::now();
    let (status, answer) = publish(http, &base, &ana, &body(&text, "Largest", &run)).await;
    let took = started.elapsed();
    assert_eq!(status, 201, "{answer}");
    eprintln!(
        "publish cost: {} bytes of level, {} objects, a {ticks}-tick author run ({:.1} s of \
         play): {:.0} ms end to end (debug build)",
        text.len(),
        track.objects,
        f64::from(ticks) / 60.0,
        took.as_secs_f64() * 1000.0
    );
    assert!(took < Duration::from_secs(60), "{took:?}");
    server.stop().await;
    db.remove().await;
}

/// A run of `desc` under `tuning` by "ana", east at full stick (diving too, if `dive`), to
/// the finish.
fn ana_under(tuning: &Tuning, desc: &WorldDesc, dive: bool) -> Vec<u8> {
    let world = pogo_core::world::World::new(desc.clone(), tuning).unwrap();
    let mut sim =
        pogo_core::Simulation::new(std::sync::Arc::new(world), tuning.clone(), 1).unwrap();
    let header = pogo_replay::Header::for_simulation(&sim, Some("ana".into()), None);
    let mut recorder = pogo_replay::Recorder::new(Vec::new(), header).unwrap();
    let input = Input {
        steer_x: 127,
        buttons: if dive {
            pogo_core::Buttons::DIVE
        } else {
            pogo_core::Buttons::NONE
        },
        ..Input::default()
    };
    while sim.state().pogos[0].finish_tick.is_none() {
        assert!(
            sim.state().tick < pogo_core::Ticks(3600),
            "the run finishes"
        );
        sim.step(&[input]);
        recorder.record(&[input], || sim.state_hash()).unwrap();
    }
    recorder.finish_simulation(&sim).unwrap()
}

/// The ids of the tracks `GET /api/tracks` lists (newest first).
async fn listed(http: &reqwest::Client, base: &str) -> Vec<String> {
    let (status, list) = get_json(http, &format!("{base}/api/tracks")).await;
    assert_eq!(status, 200, "{list}");
    list["tracks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect()
}

/// A rules change (here a tuning change: a new season on every board) and `pogo-server
/// reverify` (the real binary): the author's run of a track is re-verified onto the track's
/// new board, first there with the same finish tick. A track whose author run no longer
/// finishes (it dives, and the new tuning changed the dive) is unlisted — no author time, no
/// medals, out of every list — until its author finishes it again; until reverify has run,
/// every track is unlisted, as every board of the new season is empty.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reverify_carries_a_tracks_author_run_to_the_new_season() {
    use pogo_core::TuningSpec;
    const TUNING_A: &str = r#"{"dive_gravity_scale": 3}"#;
    let mut spec = TuningSpec::default();
    pogo_replay::apply_tuning_json(&mut spec, TUNING_A).unwrap();
    let a = Tuning::new(spec).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let tuning_file = dir.path().join("tuning-a.json");
    std::fs::write(&tuning_file, TUNING_A).unwrap();
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let mut config_a = config(&db);
        config_a.tuning = Some(tuning_file.clone());
        let server = TestServer::start(config_a).await;
        let (http, base) = (&server.http, server.base.clone());
        let ana = register(http, &base, "ana").await;
        // Two tracks by ana under tuning A: one finished without diving (the same run under
        // the default tuning), one finished diving (a different run under the default).
        let steady = check_track(&level_to_json(&track("seasons", 60, &[5], 12)), &a).unwrap();
        let diver = check_track(&level_to_json(&track("diver", 60, &[5], 14)), &a).unwrap();
        let mut finishes = Vec::new();
        for (t, name, dive) in [(&steady, "Seasons", false), (&diver, "Diver", true)] {
            let run = ana_under(&a, &t.desc, dive);
            let (status, answer) = publish(
                http,
                &base,
                &ana,
                &body(&level_to_json(&t.desc), name, &run),
            )
            .await;
            assert_eq!(status, 201, "{answer}");
            assert_eq!(answer["track"]["listed"], true, "{answer}");
            finishes.push(answer["track"]["author_finish_tick"].clone());
        }
        let ids = |t: &Track| format!("{:016x}", t.geometry_hash);
        assert_eq!(listed(http, &base).await, [ids(&diver), ids(&steady)]);
        server.stop().await;

        // The new rules, before reverify: no author has finished anything under them.
        let server = TestServer::start(config(&db)).await;
        let (http, base) = (&server.http, server.base.clone());
        assert_eq!(listed(http, &base).await, Vec::<String>::new());
        let (_, page) = get_json(http, &format!("{base}/api/tracks/{}", ids(&steady))).await;
        assert_eq!(
            (&page["listed"], &page["medals"], &page["author_run_id"]),
            (&json!(false), &Value::Null, &Value::Null),
            "{page}"
        );
        server.stop().await;

        let output = std::process::Command::new(env!("CARGO_BIN_EXE_pogo-server"))
            .args(["reverify", "--database", &db.url])
            .env("RUST_LOG", "warn")
            .env_remove("POGO_TUNING")
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{report}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            report.contains(&steady.desc.name) && report.contains(&diver.desc.name),
            "the report names the tracks: {report}"
        );

        let server = TestServer::start(config(&db)).await;
        let (http, base) = (&server.http, server.base.clone());
        let level = &steady.desc.name;
        let (_, board) = get_json(http, &format!("{base}/api/levels/{level}/leaderboard")).await;
        assert_eq!(
            board["entries"][0]["player"],
            "ana",
            "{}: {board}",
            backend.name()
        );
        assert_eq!(board["entries"][0]["finish_tick"], finishes[0], "{board}");
        let (_, seasons) = get_json(http, &format!("{base}/api/levels/{level}/seasons")).await;
        assert_eq!(seasons["seasons"].as_array().unwrap().len(), 2, "{seasons}");
        // The steady track is listed with its author time; the diver's author run failed.
        let (_, page) = get_json(http, &format!("{base}/api/tracks/{}", ids(&steady))).await;
        assert_eq!(
            (&page["listed"], &page["author_finish_tick"]),
            (&json!(true), &finishes[0]),
            "{page}"
        );
        assert_eq!(
            page["author_run_id"], board["entries"][0]["run_id"],
            "{page}"
        );
        assert_eq!(listed(http, &base).await, [ids(&steady)]);
        let (_, page) = get_json(http, &format!("{base}/api/tracks/{}", ids(&diver))).await;
        assert_eq!(
            (&page["listed"], &page["medals"]),
            (&json!(false), &Value::Null)
        );
        // Another player's finish does not list it; its author's does, with a new author time.
        let bo = register(http, &base, "bo").await;
        let (status, up) = upload(http, &base, &bo, &run_on(&diver.desc, "bo", 127)).await;
        assert_eq!(status, 202, "{up}");
        assert_eq!(
            verdict(http, &base, up["id"].as_i64().unwrap()).await["status"],
            "verified"
        );
        assert_eq!(listed(http, &base).await, [ids(&steady)]);
        let again = ana_under(&Tuning::default(), &diver.desc, false);
        let (status, up) = upload(http, &base, &ana, &again).await;
        assert_eq!(status, 202, "{up}");
        let filed = verdict(http, &base, up["id"].as_i64().unwrap()).await;
        assert_eq!(filed["status"], "verified", "{filed}");
        let (_, page) = get_json(http, &format!("{base}/api/tracks/{}", ids(&diver))).await;
        assert_eq!(
            (
                &page["listed"],
                &page["author_run_id"],
                &page["author_finish_tick"]
            ),
            (&json!(true), &up["id"], &filed["finish_tick"]),
            "{page}"
        );
        assert_eq!(
            page["medals"]["author"]["ticks"],
            filed["finish_tick"].as_u64().unwrap() + 1
        );
        assert_eq!(listed(http, &base).await, [ids(&diver), ids(&steady)]);
        server.stop().await;
        db.remove().await;
    }
}

/// What a cached track world costs in memory, measured (the catalog keeps 256): the growth of
/// the process's resident memory over 40 worlds of the largest tracks, two layouts (a dense
/// 1 km course; 2 000 boxes scattered through the 4 km cube). Run by hand:
/// `cargo test -p pogo-server --test tracks world_memory -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement: run by hand"]
fn world_memory() {
    fn rss_kib() -> u64 {
        let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
        let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
        pages * 4
    }
    let m = Fx::from_int;
    let half = Fx::from_bits(1 << 31);
    let mut course = track("course", 60, &[500], 990);
    course.solids = (0..1998)
        .map(|i| {
            let x0 = m(-10) + half * m(i);
            Solid {
                bounds: pogo_core::world::Aabb::new(
                    Vec3::new(x0, m(-1), m(-20)),
                    Vec3::new(x0 + half, m(0), m(20)),
                ),
                no_bounce: false,
            }
        })
        .collect();
    course.finishes = vec![gate(980, 982)];
    let mut scattered = course.clone();
    let mut seed = 0x2545_f491_u64;
    let mut next = |range: i32| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % (2 * range as u64)) as i32 - range
    };
    scattered.solids = (0..1998)
        .map(|_| {
            let (x, y, z) = (next(1990), next(1990), next(1990));
            Solid {
                bounds: pogo_core::world::Aabb::new(
                    Vec3::new(m(x), m(y), m(z)),
                    Vec3::new(m(x + 4), m(y + 1), m(z + 4)),
                ),
                no_bounce: false,
            }
        })
        .collect();
    for (what, desc) in [("course", course), ("scattered", scattered)] {
        let track = match check_track(&level_to_json(&desc), &Tuning::default()) {
            Ok(track) => track,
            Err(e) => {
                eprintln!("{what}: refused: {e}");
                continue;
            }
        };
        let before = rss_kib();
        let worlds: Vec<_> = (0..40)
            .map(|_| pogo_core::world::World::new(track.desc.clone(), &Tuning::default()).unwrap())
            .collect();
        let after = rss_kib();
        eprintln!(
            "{what}: {} objects, about {} KiB a world ({} KiB for {})",
            track.objects,
            (after - before) / worlds.len() as u64,
            after - before,
            worlds.len()
        );
    }
}

/// The catalog keeps at most `TRACK_LEVELS_CACHED` tracks' worlds, least recently resolved
/// dropped first; a level resolved before is still whole for whoever holds it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_catalog_keeps_a_bounded_number_of_track_worlds() {
    use pogo_server::catalog::{Hidden, TRACK_LEVELS_CACHED};
    use pogo_server::store::tracks::NewTrack;
    use pogo_server::store::{NewRun, Verdict};
    let db = TestDb::new(&Backend::Sqlite).await;
    let server = pogo_server::Server::open(&config(&db)).await.unwrap();
    let (store, catalog) = (&server.state().store, &server.state().catalog);
    let author = store
        .players()
        .register("ana", &[7u8; 32], 0)
        .await
        .unwrap()
        .unwrap();
    let mut names = Vec::new();
    for i in 0..TRACK_LEVELS_CACHED + 8 {
        let track = checked(&support::track("cache", 60 + i as i32, &[], 12));
        let (name, id) = (
            track.desc.name.clone(),
            format!("{:016x}", track.geometry_hash),
        );
        let level_json = level_to_json(&track.desc);
        let level_hash = format!("{:016x}", track.desc.content_hash());
        let bytes = vec![i as u8; 4];
        let run = NewRun {
            player_id: author.id,
            bytes: &bytes,
            replay_hash: [i as u8; 32],
            level: &name,
            level_hash: level_hash.clone(),
            tuning_hash: format!("{:016x}", Tuning::default().content_hash()),
            rules_version: pogo_core::RULES_VERSION,
            uploaded_ms: 0,
            ticket: None,
        };
        let verdict = Verdict::Verified {
            ticks: 10,
            finish_tick: Some(9),
            splits: "[]".into(),
            final_hash: 0,
            realtime: false,
            realtime_note: None,
        };
        let new = NewTrack {
            id: &id,
            level: &name,
            level_json: &level_json,
            level_hash: &level_hash,
            author_id: author.id,
            name: "cache",
            description: "",
            created_ms: 0,
            remix_of: None,
            author_finish_tick: 9,
        };
        store.tracks().publish(&new, &run, &verdict).await.unwrap();
        names.push(name);
    }
    let first = catalog
        .resolve(store, &names[0], Hidden::Refused)
        .await
        .unwrap()
        .unwrap();
    for name in &names {
        let level = catalog.resolve(store, name, Hidden::Refused).await.unwrap();
        assert_eq!(level.unwrap().name, *name);
        assert!(catalog.tracks_cached() <= TRACK_LEVELS_CACHED);
    }
    assert_eq!(catalog.tracks_cached(), TRACK_LEVELS_CACHED);
    // Evicted from the cache, whole for its holder.
    assert!(catalog.verifier_for(&first).world(&names[0]).is_some());
    assert!(catalog.verifier().world(&names[0]).is_none());
    drop(server);
    db.remove().await;
}
