//! The API end to end, in-process, against SQLite and a real PostgreSQL (see
//! `support::backends`): the README's session, forged and tampered replays, ranking,
//! hostile requests, a thousand concurrent uploads, limits, admin, metrics.

mod support;

use std::collections::BTreeMap;
use std::time::Duration;

use pogo_replay::{Ghost, Limits, Replay};
use pogo_server::lanes::Lane;
use serde_json::{Value, json};
use support::*;

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(repo_file(&format!("samples/{name}"))).unwrap()
}

/// Present only when `POGO_TEST_POSTGRES_URL` was unset (`build.rs`): plain `cargo test` then
/// lists this as ignored, with the reason, so the PostgreSQL half that every backend test
/// left out is visible rather than hidden inside tests that say `ok`. Run with
/// `--include-ignored`, it fails: nothing ran on PostgreSQL.
#[cfg(postgres_tests_skipped)]
#[allow(non_snake_case)]
#[test]
#[ignore = "POGO_TEST_POSTGRES_URL is unset: the PostgreSQL half of the server tests did not run \
            (export POGO_TEST_POSTGRES_URL=\"$(bash scripts/postgres.sh)\")"]
fn postgres_tests_skipped_because_POGO_TEST_POSTGRES_URL_is_unset() {
    panic!("POGO_TEST_POSTGRES_URL is unset: the PostgreSQL half of the server tests did not run");
}

/// The README's session on `samples/course-bot.pogo`: register `bot`, upload, poll, read the
/// leaderboard, fetch the replay and the ghost. Expected values come from the library on the
/// same file, never pinned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sample_replay_goes_from_upload_to_ghost() {
    let bytes = sample("course-bot.pogo");
    let verifier = verifier(vec![]);
    let expected = verifier.verify(&bytes[..]).unwrap();
    let expected_finish = expected.finish[0].expect("the sample finishes");
    let ghost = Ghost::load(&bytes, &verifier).unwrap();
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let server = TestServer::start(config(&db)).await;
        let (http, base) = (&server.http, server.base.as_str());
        let token = register(http, base, "bot").await;
        let (status, uploaded) = upload(http, base, &token, &bytes).await;
        assert_eq!(status, 202, "{}: {uploaded}", backend.name());
        let id = uploaded["id"].as_i64().unwrap();
        assert_eq!(uploaded["status_url"], format!("/api/runs/{id}"));
        assert_eq!(uploaded["duplicate"], false);
        let run = verdict(http, base, id).await;
        assert_eq!(run["status"], "verified", "{run}");
        // The queue's worker verified it on the queue lane's threads, below the relay's
        // priority (`lanes`), not on the runtime's blocking pool.
        #[cfg(target_os = "linux")]
        assert!(
            threads_named(Lane::Queue.thread_prefix()) >= 1,
            "the queue lane's threads"
        );
        assert_eq!(run["player"], "bot");
        assert_eq!(run["level"], "course");
        assert_eq!(run["finish_tick"], expected_finish);
        assert_eq!(run["ticks"], expected.ticks);
        assert_eq!(run["rank"], 1);
        assert_eq!(run["reason"], Value::Null);
        assert_eq!(run["final_hash"], format!("{:016x}", expected.final_hash));
        let ms = (u64::from(expected_finish) + 1) * 1000 / 60;
        assert!((run["time_s"].as_f64().unwrap() - ms as f64 / 1000.0).abs() <= 0.001);
        let splits: Vec<(Value, u32)> = ghost
            .splits(0)
            .iter()
            .map(|s| (json!(s.checkpoint), s.tick.0))
            .collect();
        let got: Vec<(Value, u32)> = run["splits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["checkpoint"].clone(), s["tick"].as_u64().unwrap() as u32))
            .collect();
        assert_eq!(got, splits);
        assert_eq!(got.last().unwrap(), &(Value::Null, expected_finish));

        // The same bytes again: the same run, 200, nothing new.
        let (status, again) = upload(http, base, &token, &bytes).await;
        assert_eq!(
            (status, &again["id"], &again["duplicate"]),
            (200, &json!(id), &json!(true))
        );

        let (status, board) =
            get_json(http, &format!("{base}/api/levels/course/leaderboard")).await;
        assert_eq!(status, 200);
        assert_eq!(board["total"], 1);
        let entry = &board["entries"][0];
        assert_eq!(
            (entry["rank"].clone(), entry["player"].clone()),
            (json!(1), json!("bot"))
        );
        assert_eq!(entry["finish_tick"], expected_finish);
        assert_eq!(entry["run_id"], id);
        assert_eq!(entry["splits"], run["splits"]);

        let replay = http
            .get(format!("{base}/api/runs/{id}/replay"))
            .send()
            .await
            .unwrap();
        assert_eq!(replay.status(), 200);
        assert_eq!(replay.bytes().await.unwrap().to_vec(), bytes);

        let (status, trajectory) =
            get_json(http, &format!("{base}/api/runs/{id}/ghost?every=60")).await;
        assert_eq!(status, 200, "{trajectory}");
        assert_eq!(trajectory["every"], 60);
        assert_eq!(trajectory["finish"]["tick"], expected_finish);
        let points = trajectory["points"].as_array().unwrap();
        let frames: Vec<_> = ghost.frames().collect();
        let teleports = frames.iter().filter(|f| f.2).count();
        let regular = (ghost.ticks() as usize).div_ceil(60);
        assert!(points.len() > regular && points.len() <= regular + 1 + 2 * teleports);
        for p in points {
            let tick = p["tick"].as_u64().unwrap() as usize;
            let [x, y, z] = pogo_server::catalog::xyz(frames[tick].1[0]);
            assert_eq!(
                (p["x"].as_f64(), p["y"].as_f64(), p["z"].as_f64()),
                (Some(x), Some(y), Some(z))
            );
        }
        assert_eq!(points.last().unwrap()["tick"], ghost.ticks() - 1);
        assert_eq!(trajectory["splits"], run["splits"]);
        server.stop().await;
        db.remove().await;
    }
}

/// The final state hash in a run's status: `null` while the run waits (a server with no
/// workers), then, verified by another server on the same database, the verifier's
/// `final_hash` of the replay — what `pogo verify` prints and the page compares its own with.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verified_runs_status_carries_the_verifiers_final_hash() {
    let runs = [
        ("bot", sample("course-bot.pogo")),
        ("flat", bot_run("flat", "flat", 3000)),
    ];
    let verifier = verifier(vec![]);
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let mut waiting = config(&db);
        waiting.workers = Some(0);
        let server = TestServer::start(waiting).await;
        let (http, base) = (&server.http, server.base.as_str());
        let mut ids = Vec::new();
        for (name, bytes) in &runs {
            let token = register(http, base, name).await;
            let (status, uploaded) = upload(http, base, &token, bytes).await;
            assert_eq!(status, 202, "{}: {uploaded}", backend.name());
            let id = uploaded["id"].as_i64().unwrap();
            let (status, run) = get_json(http, &format!("{base}/api/runs/{id}")).await;
            assert_eq!(status, 200);
            assert_eq!(run["status"], "queued", "{run}");
            assert_eq!(run["final_hash"], Value::Null, "{run}");
            ids.push(id);
        }
        server.stop().await;

        let server = TestServer::start(config(&db)).await;
        let (http, base) = (&server.http, server.base.as_str());
        for ((name, bytes), id) in runs.iter().zip(ids) {
            let expected = verifier.verify(&bytes[..]).unwrap();
            let run = verdict(http, base, id).await;
            assert_eq!(run["status"], "verified", "{name}: {run}");
            let hash = run["final_hash"].as_str().unwrap();
            assert_eq!(hash, format!("{:016x}", expected.final_hash), "{name}");
            assert!(
                hash.len() == 16
                    && hash
                        .bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
                "{name}: {hash}"
            );
        }
        server.stop().await;
        db.remove().await;
    }
}

/// A forged replay — valid checksums (re-encoded by the library), a claimed finish earlier
/// than the real one — is rejected with the verifier's reason, as is one with a tampered
/// input; the leaderboard shows the real result of the honest run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_and_tampered_replays_are_rejected_with_the_verifiers_reason() {
    let verifier = verifier(vec![]);
    let honest = bot_run("course", "honest", 6000);
    let real_finish = verifier.verify(&honest[..]).unwrap().finish[0].expect("the bot finishes");
    let cheat = bot_run("course", "cheat", 6000);
    let mut forged = Replay::decode(&cheat, Limits::default()).unwrap();
    forged.trailer.finish = vec![Some(real_finish - 600)];
    let forged = forged.encode();
    let forged_error = verifier.verify(&forged[..]).unwrap_err();
    assert_eq!(forged_error.kind(), "outcome_mismatch");
    let mut tampered = Replay::decode(&cheat, Limits::default()).unwrap();
    let runs = &mut tampered.chunks[2].runs[0];
    runs[0].steer_x = if runs[0].steer_x == 127 { 0 } else { 127 };
    let tampered = tampered.encode();
    let tampered_error = verifier.verify(&tampered[..]).unwrap_err();
    assert_eq!(tampered_error.kind(), "desync");

    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let server = TestServer::start(config(&db)).await;
        let (http, base) = (&server.http, server.base.as_str());
        let honest_token = register(http, base, "honest").await;
        let cheat_token = register(http, base, "cheat").await;
        let mut ids = BTreeMap::new();
        for (what, token, bytes) in [
            ("forged", &cheat_token, &forged),
            ("tampered", &cheat_token, &tampered),
            ("honest", &honest_token, &honest),
        ] {
            let (status, body) = upload(http, base, token, bytes).await;
            assert_eq!(status, 202, "{what}: {body}");
            ids.insert(what, body["id"].as_i64().unwrap());
        }
        for (what, error) in [("forged", &forged_error), ("tampered", &tampered_error)] {
            let run = verdict(http, base, ids[what]).await;
            assert_eq!(run["status"], "rejected", "{what}: {run}");
            assert_eq!(run["reason_kind"], error.kind(), "{what}");
            assert_eq!(run["reason"], error.to_string(), "{what}");
            assert_eq!(
                (
                    run["rank"].clone(),
                    run["finish_tick"].clone(),
                    run["final_hash"].clone()
                ),
                (Value::Null, Value::Null, Value::Null)
            );
            let (status, body) =
                get_json(http, &format!("{base}/api/runs/{}/ghost", ids[what])).await;
            assert_eq!(
                (status, body["error"].clone()),
                (409, json!("not_verified"))
            );
        }
        let run = verdict(http, base, ids["honest"]).await;
        assert_eq!(
            (run["status"].clone(), run["finish_tick"].clone()),
            (json!("verified"), json!(real_finish))
        );
        let (_, board) = get_json(http, &format!("{base}/api/levels/course/leaderboard")).await;
        assert_eq!(board["total"], 1, "{board}");
        assert_eq!(board["entries"][0]["player"], "honest");
        assert_eq!(board["entries"][0]["finish_tick"], real_finish);
        server.stop().await;
        db.remove().await;
    }
}

/// Ranking: each player's best verified finish, fastest first, ties by earlier upload; pages,
/// "around", and the board's errors. The expected order is worked out here from the library's
/// verdicts on the same files.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_leaderboard_ranks_each_players_best_ties_by_upload() {
    let level = sprint_level();
    let dir = tempfile::tempdir().unwrap();
    let level_file = dir.path().join("sprint.json");
    std::fs::write(&level_file, pogo_replay::level_to_json(&level)).unwrap();
    let verifier = verifier(vec![level.clone()]);
    // (player, stick): uploaded in this order. `tie` holds the stick as `amy` does, later.
    let uploads: &[(&str, i8)] = &[
        ("amy", 90),
        ("bob", 127),
        ("cid", 40),
        ("bob", 60),
        ("tie", 90),
        ("dee", 110),
        ("cid", 127),
        ("eve", 20),
    ];
    let runs: Vec<(&str, Vec<u8>, u32)> = uploads
        .iter()
        .map(|&(player, stick)| {
            let bytes = sprint_run(player, stick);
            let finish = verifier.verify(&bytes[..]).unwrap().finish[0].expect("finishes");
            (player, bytes, finish)
        })
        .collect();
    assert_eq!(runs[0].2, runs[4].2, "amy and tie finish on the same tick");
    // Best per player (first upload wins a tie with oneself), then by (finish, upload index).
    let mut best: BTreeMap<&str, (u32, usize)> = BTreeMap::new();
    for (i, (player, _, finish)) in runs.iter().enumerate() {
        let entry = best.entry(player).or_insert((*finish, i));
        if (*finish, i) < *entry {
            *entry = (*finish, i);
        }
    }
    let mut expected: Vec<(u32, usize, &str)> =
        best.iter().map(|(p, (f, i))| (*f, *i, *p)).collect();
    expected.sort();
    let expected: Vec<(&str, u32)> = expected.iter().map(|&(f, _, p)| (p, f)).collect();
    let amy = expected.iter().position(|e| e.0 == "amy").unwrap();
    assert_eq!(
        expected[amy + 1].0,
        "tie",
        "the tie is broken by upload order"
    );

    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let mut config = config(&db);
        config.levels = vec![level_file.clone()];
        let server = TestServer::start(config).await;
        let (http, base) = (&server.http, server.base.as_str());
        let mut tokens = BTreeMap::new();
        for (player, _) in uploads {
            if !tokens.contains_key(player) {
                tokens.insert(*player, register(http, base, player).await);
            }
        }
        for (player, bytes, _) in &runs {
            let (status, body) = upload(http, base, &tokens[player], bytes).await;
            assert_eq!(status, 202, "{body}");
            // Upload order is verdict-independent, but wait so ids follow the list.
            verdict(http, base, body["id"].as_i64().unwrap()).await;
        }
        let board_url = format!("{base}/api/levels/sprint/leaderboard");
        let (status, board) = get_json(http, &format!("{board_url}?limit=100")).await;
        assert_eq!(status, 200, "{board}");
        let got: Vec<(&str, u32)> = board["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["player"].as_str().unwrap(),
                    e["finish_tick"].as_u64().unwrap() as u32,
                )
            })
            .collect();
        assert_eq!(got, expected, "{}", backend.name());
        assert_eq!(board["total"], expected.len());
        let ranks: Vec<i64> = board["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["rank"].as_i64().unwrap())
            .collect();
        assert_eq!(ranks, (1..=expected.len() as i64).collect::<Vec<_>>());

        let (_, page) = get_json(http, &format!("{board_url}?limit=2&offset=2")).await;
        let names: Vec<&str> = page["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["player"].as_str().unwrap())
            .collect();
        assert_eq!(names, [expected[2].0, expected[3].0]);
        assert_eq!(page["entries"][0]["rank"], 3);
        let last = expected.last().unwrap().0;
        let (_, around) = get_json(
            http,
            &format!("{board_url}?limit=3&around={}", last.to_uppercase()),
        )
        .await;
        let names: Vec<&str> = around["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["player"].as_str().unwrap())
            .collect();
        let n = expected.len();
        assert_eq!(
            names,
            [expected[n - 2].0, expected[n - 1].0],
            "around the last: {around}"
        );
        assert_eq!(around["around"], last);
        let (_, around) = get_json(
            http,
            &format!("{board_url}?limit=3&around={}", expected[0].0),
        )
        .await;
        assert_eq!(around["entries"][0]["rank"], 1);
        assert_eq!(around["entries"].as_array().unwrap().len(), 3);

        // A run that is not its player's best has no rank; the best has the board's.
        let (_, first) = get_json(http, &format!("{base}/api/runs/1")).await;
        assert_eq!(
            (first["player"].clone(), first["rank"].clone()),
            (json!("amy"), json!(amy + 1))
        );
        for (i, (player, _, _)) in runs.iter().enumerate() {
            let (_, run) = get_json(http, &format!("{base}/api/runs/{}", i + 1)).await;
            assert_eq!(run["player"], *player);
            let is_best = best[player].1 == i;
            assert_eq!(run["rank"].is_null(), !is_best, "run {}: {run}", i + 1);
        }

        for (query, status, code) in [
            ("?limit=0", 400, "bad_parameter"),
            ("?limit=101", 400, "bad_parameter"),
            ("?limit=x", 400, "bad_parameter"),
            ("?offset=-1", 400, "bad_parameter"),
            ("?sort=desc", 400, "bad_parameter"),
            ("?offset=1&around=amy", 400, "bad_parameter"),
            ("?around=nobody", 404, "unknown_player"),
        ] {
            let (got, body) = get_json(http, &format!("{board_url}{query}")).await;
            assert_eq!(
                (got, body["error"].as_str().unwrap()),
                (status, code),
                "{query}: {body}"
            );
        }
        // A registered player absent from a board is an ordinary answer, not an error: no
        // entries, offset 0, the name as registered, the board's size (an empty board, and
        // one of `expected.len()` players that they are not on).
        let (status, body) = get_json(
            http,
            &format!("{base}/api/levels/course/leaderboard?around=AMY&limit=3"),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            (
                &body["entries"],
                &body["offset"],
                &body["total"],
                &body["around"]
            ),
            (&json!([]), &json!(0), &json!(0), &json!("amy")),
            "{body}"
        );
        register(http, base, "Absent Al").await;
        let (status, body) =
            get_json(http, &format!("{board_url}?around=absent%20al&limit=3")).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            (
                &body["entries"],
                &body["offset"],
                &body["total"],
                &body["around"]
            ),
            (
                &json!([]),
                &json!(0),
                &json!(expected.len()),
                &json!("Absent Al")
            ),
            "{}: {body}",
            backend.name()
        );
        let (status, body) = get_json(http, &format!("{base}/api/levels/nope/leaderboard")).await;
        assert_eq!(
            (status, body["error"].clone()),
            (404, json!("unknown_level"))
        );
        server.stop().await;
        db.remove().await;
    }
}

/// The whole board downloads as CSV and as JSON: the leaderboard's entries (one per player,
/// their best: a slower second run is not on it, a faster one replaces the first), in rank
/// order, as attachments; the CSV quoted per RFC 4180 with names that start like a formula
/// defused; batches that follow each other exactly; bad requests 4xx.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_exports_as_csv_and_json() {
    let level = sprint_level();
    let dir = tempfile::tempdir().unwrap();
    let level_file = dir.path().join("sprint.json");
    std::fs::write(&level_file, pogo_replay::level_to_json(&level)).unwrap();
    // (player, stick), in upload order: amy improves, -dash gets slower.
    let uploads: &[(&str, i8)] = &[
        ("amy", 60),
        ("-dash", 110),
        ("amy", 127),
        ("Zoë O'Neill", 90),
        ("-dash", 40),
    ];
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let mut config = config(&db);
        config.levels = vec![level_file.clone()];
        let server = TestServer::start(config).await;
        let (http, base) = (&server.http, server.base.as_str());
        let mut tokens = BTreeMap::new();
        let mut ids = Vec::new();
        for &(player, stick) in uploads {
            if !tokens.contains_key(player) {
                tokens.insert(player, register(http, base, player).await);
            }
            let (status, body) =
                upload(http, base, &tokens[player], &sprint_run(player, stick)).await;
            assert_eq!(status, 202, "{body}");
            let id = body["id"].as_i64().unwrap();
            assert_eq!(verdict(http, base, id).await["status"], "verified");
            ids.push(id);
        }
        let (_, board) = get_json(
            http,
            &format!("{base}/api/levels/sprint/leaderboard?limit=100"),
        )
        .await;
        let entries = board["entries"].as_array().unwrap().clone();
        // Best only: amy's faster second run replaced her first; -dash's slower second run is
        // not on the board.
        let run_of = |player: &str| {
            entries
                .iter()
                .find(|e| e["player"] == player)
                .map(|e| e["run_id"].as_i64().unwrap())
        };
        assert_eq!(entries.len(), 3, "{board}");
        assert_eq!(run_of("amy"), Some(ids[2]));
        assert_eq!(run_of("-dash"), Some(ids[1]));

        let export = |query: &str| {
            http.get(format!("{base}/api/levels/sprint/export{query}"))
                .send()
        };
        let response = export("?format=csv").await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers()["content-type"],
            "text/csv; charset=utf-8"
        );
        assert_eq!(
            response.headers()["content-disposition"],
            "attachment; filename=\"sprint-leaderboard.csv\""
        );
        let csv = response.text().await.unwrap();
        assert!(csv.ends_with("\r\n"), "{csv:?}");
        let lines: Vec<&str> = csv.trim_end_matches("\r\n").split("\r\n").collect();
        assert_eq!(
            lines[0],
            "rank,player,run_id,finish_tick,time,uploaded_at,replay_url"
        );
        let expected: Vec<String> = entries
            .iter()
            .map(|e| {
                let player = e["player"].as_str().unwrap();
                let player = if player.starts_with('-') {
                    format!("'{player}")
                } else {
                    player.to_string()
                };
                format!(
                    "{},{player},{},{},{},{},{}",
                    e["rank"],
                    e["run_id"],
                    e["finish_tick"],
                    e["time"].as_str().unwrap(),
                    e["uploaded_at"].as_str().unwrap(),
                    e["replay_url"].as_str().unwrap()
                )
            })
            .collect();
        assert_eq!(lines[1..], expected[..], "{}: {csv}", backend.name());
        assert!(csv.contains(",'-dash,"), "formula defused: {csv}");
        // As a browser asks for it, compressed: the same bytes, and the connection not cut
        // (the body stream was polled once more after its end by the compression layer,
        // which panicked the handler's `unfold`: found by schemathesis).
        for format in ["csv", "json"] {
            let response = http
                .get(format!("{base}/api/levels/sprint/export?format={format}"))
                .header("accept-encoding", "gzip, deflate, br, zstd")
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200);
            assert_eq!(response.headers()["content-encoding"], "gzip");
            let gzipped = response.bytes().await.expect("the whole compressed body");
            let mut plain = String::new();
            std::io::Read::read_to_string(
                &mut flate2::read::GzDecoder::new(&gzipped[..]),
                &mut plain,
            )
            .unwrap();
            if format == "csv" {
                assert_eq!(plain, csv);
            } else {
                let doc: Value = serde_json::from_str(&plain).unwrap();
                assert_eq!(doc["entries"].as_array().unwrap().len(), entries.len());
            }
        }

        let response = export("?format=json").await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "application/json");
        assert_eq!(
            response.headers()["content-disposition"],
            "attachment; filename=\"sprint-leaderboard.json\""
        );
        let json: Value = response.json().await.unwrap();
        for key in [
            "level",
            "level_hash",
            "tuning_hash",
            "rules_version",
            "tick_rate",
        ] {
            assert_eq!(json[key], board[key], "{key}");
        }
        assert!(json["as_of"].is_string());
        // The leaderboard's entries, every field (one type).
        let exported = json["entries"].as_array().unwrap();
        assert_eq!(exported, &entries);

        // An empty board: the header row alone; no entries.
        let empty = http
            .get(format!("{base}/api/levels/course/export?format=csv"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(
            empty,
            "rank,player,run_id,finish_tick,time,uploaded_at,replay_url\r\n"
        );
        let (status, empty) = get_json(
            http,
            &format!("{base}/api/levels/course/export?format=json"),
        )
        .await;
        assert_eq!((status, empty["entries"].clone()), (200, json!([])));

        // Batches follow each other exactly, whatever their size (the route's are 1000).
        let store =
            pogo_server::store::Store::open(&pogo_server::config::DatabaseUrl::parse(&db.url))
                .await
                .unwrap();
        let sprint = pogo_server::store::Board {
            level: "sprint".into(),
            level_hash: board["level_hash"].as_str().unwrap().into(),
            tuning_hash: board["tuning_hash"].as_str().unwrap().into(),
            rules_version: board["rules_version"].as_u64().unwrap() as u32,
            category: pogo_server::store::Category::Open,
        };
        // Ranks, runs and splits: the reference ranking's.
        let want = store
            .boards()
            .leaderboard_sql(&sprint, 100, 0)
            .await
            .unwrap();
        assert_eq!(want.len(), entries.len());
        for batch in [1, 2, 3] {
            let mut cursor = pogo_server::store::ExportCursor::START;
            let mut got = Vec::new();
            loop {
                let rows = store
                    .boards()
                    .board_batch(&sprint, i64::MAX, cursor, batch)
                    .await
                    .unwrap();
                let full = rows.len() == batch as usize;
                if let Some(last) = rows.last() {
                    cursor = pogo_server::store::ExportCursor::after(last);
                }
                got.extend(rows);
                if !full {
                    break;
                }
            }
            assert_eq!(got, want, "batches of {batch}");
        }
        // As of before every verdict: nothing.
        let none = store
            .boards()
            .board_batch(&sprint, 0, pogo_server::store::ExportCursor::START, 10)
            .await
            .unwrap();
        assert!(none.is_empty());

        // Bad requests: 4xx with a JSON error.
        for (query, status, code) in [
            ("", 400, "bad_parameter"),
            ("?format=xml", 400, "bad_parameter"),
            ("?format=CSV", 400, "bad_parameter"),
            ("?format=", 400, "bad_parameter"),
            ("?format=csv&limit=5", 400, "bad_parameter"),
            ("?format=csv&format=json", 400, "bad_parameter"),
        ] {
            let response = export(query).await.unwrap();
            let got = response.status().as_u16();
            let body: Value = response.json().await.unwrap_or(Value::Null);
            assert_eq!(
                (got, body["error"].as_str()),
                (status, Some(code)),
                "{query}: {body}"
            );
            assert!(body["message"].is_string(), "{query}: {body}");
        }
        let (status, body) =
            get_json(http, &format!("{base}/api/levels/nope/export?format=csv")).await;
        assert_eq!(
            (status, body["error"].clone()),
            (404, json!("unknown_level"))
        );
        let (_, after) = get_json(
            http,
            &format!("{base}/api/levels/sprint/leaderboard?limit=100"),
        )
        .await;
        assert_eq!(after["entries"], board["entries"], "nothing changed");
        server.stop().await;
        db.remove().await;
    }
}

/// An upload case: what, token, content type, body, expected status, error code, replay kind.
type Case<'a> = (
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
    Vec<u8>,
    u16,
    &'a str,
    Option<&'a str>,
);

/// Hostile requests get the right status and a JSON error, never a 500, and the server keeps
/// serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_requests_get_the_right_status_and_never_a_500() {
    let good = flat_run("mallory", 1, 120);
    let verifier = verifier(vec![]);
    verifier.verify(&good[..]).unwrap();
    let two_players = {
        let tuning = pogo_core::Tuning::default();
        let world =
            pogo_core::world::World::new(pogo_replay::builtin_level("flat").unwrap(), &tuning)
                .unwrap();
        let mut sim = pogo_core::Simulation::new(std::sync::Arc::new(world), tuning, 2).unwrap();
        let header = pogo_replay::Header::for_simulation(&sim, Some("mallory".into()), None);
        let mut recorder = pogo_replay::Recorder::new(Vec::new(), header).unwrap();
        for _ in 0..60 {
            let inputs = [pogo_core::Input::default(); 2];
            sim.step(&inputs);
            recorder.record(&inputs, || sim.state_hash()).unwrap();
        }
        recorder.finish_simulation(&sim).unwrap()
    };
    let unknown_level = {
        let mut level = sprint_level();
        level.name = "elsewhere".into();
        record(&level, "mallory", 60, false, |_, _| {
            pogo_core::Input::default()
        })
    };
    let other_tuning = {
        let mut spec = pogo_core::TuningSpec::default();
        spec.apply_override("gravity=20").unwrap();
        let tuning = pogo_core::Tuning::new(spec).unwrap();
        let world =
            pogo_core::world::World::new(pogo_replay::builtin_level("flat").unwrap(), &tuning)
                .unwrap();
        let mut sim = pogo_core::Simulation::new(std::sync::Arc::new(world), tuning, 1).unwrap();
        let header = pogo_replay::Header::for_simulation(&sim, Some("mallory".into()), None);
        let mut recorder = pogo_replay::Recorder::new(Vec::new(), header).unwrap();
        for _ in 0..60 {
            sim.step(&[pogo_core::Input::default()]);
            recorder
                .record(&[pogo_core::Input::default()], || sim.state_hash())
                .unwrap();
        }
        recorder.finish_simulation(&sim).unwrap()
    };
    let no_name = {
        let mut replay = Replay::decode(&good, Limits::default()).unwrap();
        replay.header.player_name = None;
        replay.encode()
    };
    let someone_else = flat_run("alice", 2, 60);
    let mut flipped = good.clone();
    flipped[40] ^= 0x55;
    let truncated = good[..good.len() - 5].to_vec();

    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let mut config = config(&db);
        config.player_ticks_max = 3600;
        let limit = pogo_server::limits::upload_body_limit(3600);
        let server = TestServer::start(config).await;
        let (http, base) = (&server.http, server.base.as_str());
        let token = register(http, base, "mallory").await;
        register(http, base, "alice").await;
        let forged_token = format!("pogo_{}", "0123456789abcdef".repeat(4));
        let runs = format!("{base}/api/runs");
        let octet = "application/octet-stream";
        let big = vec![0u8; limit as usize + 1];

        let cases: Vec<Case> = vec![
            (
                "no token",
                None,
                Some(octet),
                good.clone(),
                401,
                "missing_token",
                None,
            ),
            (
                "forged token",
                Some(&forged_token),
                Some(octet),
                good.clone(),
                401,
                "bad_token",
                None,
            ),
            (
                "malformed token",
                Some("hunter2"),
                Some(octet),
                good.clone(),
                401,
                "bad_token",
                None,
            ),
            (
                "wrong content type",
                Some(&token),
                Some("application/json"),
                good.clone(),
                415,
                "unsupported_media_type",
                None,
            ),
            (
                "no content type",
                Some(&token),
                None,
                good.clone(),
                415,
                "unsupported_media_type",
                None,
            ),
            (
                "garbage",
                Some(&token),
                Some(octet),
                b"GET / HTTP/1.1\r\n\r\n garbage".to_vec(),
                400,
                "bad_replay",
                Some("bad_magic"),
            ),
            (
                "empty",
                Some(&token),
                Some(octet),
                vec![],
                400,
                "bad_replay",
                Some("truncated"),
            ),
            (
                "flipped byte",
                Some(&token),
                Some(octet),
                flipped.clone(),
                400,
                "bad_replay",
                Some("checksum"),
            ),
            (
                "truncated",
                Some(&token),
                Some(octet),
                truncated.clone(),
                400,
                "bad_replay",
                Some("truncated"),
            ),
            (
                "two players",
                Some(&token),
                Some(octet),
                two_players.clone(),
                400,
                "not_single_player",
                None,
            ),
            (
                "no player name",
                Some(&token),
                Some(octet),
                no_name.clone(),
                400,
                "no_player_name",
                None,
            ),
            (
                "someone else's run",
                Some(&token),
                Some(octet),
                someone_else.clone(),
                403,
                "name_mismatch",
                None,
            ),
            (
                "unknown level",
                Some(&token),
                Some(octet),
                unknown_level.clone(),
                404,
                "unknown_level",
                None,
            ),
            (
                "other tuning",
                Some(&token),
                Some(octet),
                other_tuning.clone(),
                409,
                "rules_mismatch",
                Some("tuning_mismatch"),
            ),
        ];
        for (what, bearer, content_type, body, status, code, kind) in cases {
            let mut request = http.post(&runs).body(body);
            if let Some(t) = bearer {
                request = request.bearer_auth(t);
            }
            if let Some(t) = content_type {
                request = request.header("content-type", t);
            }
            let response = request.send().await.unwrap();
            let got = response.status().as_u16();
            let json: Value = response.json().await.unwrap_or(Value::Null);
            assert_eq!(got, status, "{}: {what}: {json}", backend.name());
            assert_eq!(json["error"], code, "{what}: {json}");
            assert!(json["message"].is_string(), "{what}: {json}");
            if let Some(kind) = kind {
                assert_eq!(json["kind"], kind, "{what}: {json}");
            }
        }
        // A body declared larger than the limit is refused before it is sent (the head
        // alone is answered: raw, since a client still writing would see the connection
        // close instead of the answer).
        let head = format!(
            "POST /api/runs HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {token}\r\n\
             content-type: application/octet-stream\r\ncontent-length: {}\r\n\r\n",
            limit + 1
        );
        let reply = raw_http(base, head.as_bytes(), &[]).await;
        assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
        // An oversized body sent without a length (chunked) is cut off at the limit.
        let head = format!(
            "POST /api/runs HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {token}\r\n\
             content-type: application/octet-stream\r\ntransfer-encoding: chunked\r\n\r\n"
        );
        let reply = raw_http(base, head.as_bytes(), &big).await;
        assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
        // Not HTTP at all: the connection is answered 400 or closed, and nothing else breaks.
        let reply = raw_http(base, b"\x16\x03\x01\x02\x00 not http\r\n\r\n", &[]).await;
        assert!(
            reply.is_empty() || reply.starts_with("HTTP/1.1 400"),
            "{reply}"
        );

        // Registration and reads.
        for (body, content_type, status, code) in [
            (
                "{\"name\": \"Mallory\"}",
                "application/json",
                409,
                "name_taken",
            ),
            (
                "{\"name\": \"a\\nOK\"}",
                "application/json",
                400,
                "bad_name",
            ),
            (
                "{\"name\": \"<script>\"}",
                "application/json",
                400,
                "bad_name",
            ),
            ("{\"name\": \"\"}", "application/json", 400, "bad_name"),
            ("{\"name\": 7}", "application/json", 400, "bad_json"),
            (
                "{\"name\": \"x\", \"admin\": true}",
                "application/json",
                400,
                "bad_json",
            ),
            ("{\"nam", "application/json", 400, "bad_json"),
            (
                "name=x",
                "application/x-www-form-urlencoded",
                415,
                "unsupported_media_type",
            ),
        ] {
            let response = http
                .post(format!("{base}/api/players"))
                .header("content-type", content_type)
                .body(body)
                .send()
                .await
                .unwrap();
            let got = response.status().as_u16();
            let json: Value = response.json().await.unwrap();
            assert_eq!(
                (got, json["error"].as_str().unwrap()),
                (status, code),
                "{body}: {json}"
            );
        }
        let huge_name = format!("{{\"name\": \"{}\"}}", "x".repeat(10_000));
        let response = http
            .post(format!("{base}/api/players"))
            .header("content-type", "application/json")
            .body(huge_name)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 413);
        for (path, status, code) in [
            ("/api/runs/999999", 404, "unknown_run"),
            ("/api/runs/abc", 400, "bad_parameter"),
            ("/api/runs/99999999999999999999999", 400, "bad_parameter"),
            ("/api/runs/1/ghost?every=0", 400, "bad_parameter"),
            ("/api/runs/1/ghost?every=-3", 400, "bad_parameter"),
            ("/api/runs/999999/replay", 404, "unknown_run"),
            ("/api/levels/nope", 404, "unknown_level"),
            ("/api/levels/..%2F..%2Fetc%2Fpasswd", 404, "unknown_level"),
            ("/api/nothing", 404, "no_route"),
        ] {
            let (got, json) = get_json(http, &format!("{base}{path}")).await;
            assert_eq!(
                (got, json["error"].as_str().unwrap_or("")),
                (status, code),
                "{path}: {json}"
            );
        }
        let response = http
            .delete(format!("{base}/api/levels"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 405);
        // Still serving, and the good run is accepted and verified.
        let (status, body) = upload(http, base, &token, &good).await;
        assert_eq!(status, 202, "{body}");
        let run = verdict(http, base, body["id"].as_i64().unwrap()).await;
        assert_eq!(run["status"], "verified");
        let (status, _) = get_json(http, &format!("{base}/healthz")).await;
        assert_eq!(status, 200);
        server.stop().await;
        db.remove().await;
    }
}

/// Sends `head` and then `body` in 64 KiB HTTP/1.1 chunks (if any) on a raw connection and
/// returns what the server answered (its first bytes), stopping when it answers or closes.
async fn raw_http(base: &str, head: &[u8], body: &[u8]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = base.trim_start_matches("http://");
    let stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let (mut read, mut write) = stream.into_split();
    let writer = async move {
        write.write_all(head).await?;
        for chunk in body.chunks(65_536) {
            write
                .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
                .await?;
            write.write_all(chunk).await?;
            write.write_all(b"\r\n").await?;
        }
        if !body.is_empty() {
            write.write_all(b"0\r\n\r\n").await?;
        }
        Ok::<_, std::io::Error>(write)
    };
    let reader = async move {
        let mut reply = vec![0u8; 512];
        let n = read.read(&mut reply).await.unwrap_or(0);
        String::from_utf8_lossy(&reply[..n]).into_owned()
    };
    let (reply, _) = tokio::time::timeout(Duration::from_secs(30), async {
        tokio::join!(reader, writer)
    })
    .await
    .expect("the server answers within 30 s");
    reply
}

/// A thousand uploads at once from twenty players: each answered 202, 429 (a token's burst
/// is 30) or 503 (32 upload slots; the queue holds 400), never anything else, and a 503
/// says when to retry; every 202 ends verified; the server keeps serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_uploads_are_answered_and_the_accepted_verified() {
    const UPLOADS: u32 = 1000;
    const PLAYERS: u32 = 20;
    let replays: Vec<(u32, Vec<u8>)> = (0..UPLOADS)
        .map(|i| (i % PLAYERS, flat_run(&format!("p{}", i % PLAYERS), i, 30)))
        .collect();
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let mut config = config(&db);
        config.token_rate = 1;
        config.token_burst = 30;
        config.queue_max = 400;
        let server = TestServer::start(config).await;
        let (http, base) = (&server.http, server.base.clone());
        let mut tokens = Vec::new();
        for p in 0..PLAYERS {
            tokens.push(register(http, &base, &format!("p{p}")).await);
        }
        let mut tasks = tokio::task::JoinSet::new();
        for (player, bytes) in replays.clone() {
            let (http, base, token) = (http.clone(), base.clone(), tokens[player as usize].clone());
            tasks.spawn(async move { upload(&http, &base, &token, &bytes).await });
        }
        let mut counts: BTreeMap<u16, u32> = BTreeMap::new();
        let mut accepted = Vec::new();
        while let Some(done) = tasks.join_next().await {
            let (status, body) = done.unwrap();
            *counts.entry(status).or_default() += 1;
            assert!([202, 429, 503].contains(&status), "{status}: {body}");
            if status == 503 || status == 429 {
                assert!(body["retry_after_s"].as_u64().unwrap() >= 1, "{body}");
            }
            if status == 202 {
                accepted.push(body["id"].as_i64().unwrap());
            }
        }
        eprintln!("{}: 1000 concurrent uploads: {counts:?}", backend.name());
        assert!(counts.get(&202).copied().unwrap_or(0) >= 20, "{counts:?}");
        assert!(
            counts.contains_key(&429),
            "the token limits answered: {counts:?}"
        );
        for id in accepted {
            let run = verdict(http, &base, id).await;
            assert_eq!(run["status"], "verified", "{run}");
        }
        let (status, _) = get_json(http, &format!("{base}/healthz")).await;
        assert_eq!(status, 200);
        server.stop().await;
        db.remove().await;
    }
}

/// Full queue: 503 with Retry-After (no workers, so nothing drains it); over a rate: 429
/// with Retry-After, per token and per address.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_queues_and_rate_limits_say_when_to_retry() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let mut config = config(&db);
        config.workers = Some(0);
        config.queue_max = 2;
        config.token_rate = 1;
        config.token_burst = 4;
        let server = TestServer::start(config).await;
        let (http, base) = (&server.http, server.base.as_str());
        let token = register(http, base, "q").await;
        for seed in 0..2 {
            let (status, body) = upload(http, base, &token, &flat_run("q", seed, 30)).await;
            assert_eq!(status, 202, "{body}");
        }
        let response = http
            .post(format!("{base}/api/runs"))
            .bearer_auth(&token)
            .header("content-type", "application/octet-stream")
            .body(flat_run("q", 9, 30))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 503);
        let retry: u64 = response.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(retry >= 1);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"], "busy");
        assert_eq!(body["retry_after_s"], retry);
        let (status, run) = get_json(http, &format!("{base}/api/runs/1")).await;
        assert_eq!((status, run["status"].clone()), (200, json!("queued")));
        // The burst of 4 is spent (2 accepted, 1 refused for the queue, 1 more now).
        upload(http, base, &token, &flat_run("q", 10, 30)).await;
        let response = http
            .post(format!("{base}/api/runs"))
            .bearer_auth(&token)
            .header("content-type", "application/octet-stream")
            .body(flat_run("q", 11, 30))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 429);
        assert!(response.headers().contains_key("retry-after"));
        server.stop().await;

        let mut config = support::config(&db);
        config.address_rate = 1;
        config.address_burst = 5;
        let server = TestServer::start(config).await;
        let mut statuses = Vec::new();
        for _ in 0..7 {
            statuses.push(
                get_json(&server.http, &format!("{}/api/levels", server.base))
                    .await
                    .0,
            );
        }
        assert_eq!(statuses, [200, 200, 200, 200, 200, 429, 429]);
        // Monitoring is not rate limited.
        assert_eq!(
            get_json(&server.http, &format!("{}/healthz", server.base))
                .await
                .0,
            200
        );
        server.stop().await;
        db.remove().await;
    }
}

/// The admin token hides runs (off the board, 404) and players (their runs too, and no
/// uploads); without ADMIN_TOKEN the routes are off; a player token is not an admin's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_hides_runs_and_players() {
    let admin = "test-admin-token-0123456789";
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let mut config = config(&db);
        config.admin_token = Some(admin.into());
        let level = sprint_level();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("sprint.json");
        std::fs::write(&file, pogo_replay::level_to_json(&level)).unwrap();
        config.levels = vec![file];
        let server = TestServer::start(config.clone()).await;
        let (http, base) = (&server.http, server.base.as_str());
        let a = register(http, base, "ann").await;
        let b = register(http, base, "ben").await;
        let (_, ann_run) = upload(http, base, &a, &sprint_run("ann", 127)).await;
        let (_, ben_run) = upload(http, base, &b, &sprint_run("ben", 100)).await;
        let (ann_id, ben_id) = (
            ann_run["id"].as_i64().unwrap(),
            ben_run["id"].as_i64().unwrap(),
        );
        verdict(http, base, ann_id).await;
        verdict(http, base, ben_id).await;
        let board = format!("{base}/api/levels/sprint/leaderboard");
        assert_eq!(get_json(http, &board).await.1["total"], 2);

        // Hiding a run takes a reason; hiding a player does not.
        let put = |path: String, token: Option<&str>, hidden: bool| {
            let body = if hidden && path.starts_with("/api/admin/runs/") {
                json!({ "hidden": true, "reason": "desync found by hand at 1:02" })
            } else {
                json!({ "hidden": hidden })
            };
            let mut request = http.put(format!("{base}{path}")).json(&body);
            if let Some(t) = token {
                request = request.bearer_auth(t);
            }
            request.send()
        };
        let admin_get = |id: i64, token: Option<&str>| {
            let mut request = http.get(format!("{base}/api/admin/runs/{id}"));
            if let Some(t) = token {
                request = request.bearer_auth(t);
            }
            request.send()
        };
        let path = format!("/api/admin/runs/{ann_id}/hidden");
        assert_eq!(put(path.clone(), None, true).await.unwrap().status(), 401);
        assert_eq!(
            put(path.clone(), Some(&a), true).await.unwrap().status(),
            403
        );
        assert_eq!(
            put("/api/admin/runs/999/hidden".into(), Some(admin), true)
                .await
                .unwrap()
                .status(),
            404
        );
        // Bad hide requests: 400 (`bad_json`, a message that says what is wrong), and nothing
        // changes.
        let too_long = "x".repeat(501);
        for (what, body, says) in [
            ("no reason", json!({"hidden": true}), "needs a `reason`"),
            (
                "empty reason",
                json!({"hidden": true, "reason": ""}),
                "1–500",
            ),
            (
                "spaces",
                json!({"hidden": true, "reason": "   "}),
                "only spaces",
            ),
            (
                "too long",
                json!({"hidden": true, "reason": too_long}),
                "501 characters",
            ),
            (
                "control",
                json!({"hidden": true, "reason": "a\nb"}),
                "printable",
            ),
            (
                "bell",
                json!({"hidden": true, "reason": "a\u{7}"}),
                "printable",
            ),
            (
                "reason when showing",
                json!({"hidden": false, "reason": "x"}),
                "clears it",
            ),
            (
                "not a string",
                json!({"hidden": true, "reason": 7}),
                "reason",
            ),
            (
                "unknown field",
                json!({"hidden": true, "reason": "x", "why": "y"}),
                "why",
            ),
            ("no hidden", json!({"reason": "x"}), "hidden"),
        ] {
            let response = http
                .put(format!("{base}{path}"))
                .bearer_auth(admin)
                .json(&body)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 400, "{what}");
            let error: Value = response.json().await.unwrap();
            assert_eq!(error["error"], "bad_json", "{what}: {error}");
            let message = error["message"].as_str().unwrap();
            assert!(message.contains(says), "{what}: {message}");
        }
        assert_eq!(get_json(http, &board).await.1["total"], 2, "nothing hidden");
        let (_, seen) = get_json(http, &format!("{base}/api/runs/{ann_id}")).await;
        assert_eq!(seen["id"], ann_id, "still public");

        // The admin's view of a run: only with the admin token.
        assert_eq!(admin_get(ann_id, None).await.unwrap().status(), 401);
        assert_eq!(admin_get(ann_id, Some(&a)).await.unwrap().status(), 403);
        assert_eq!(admin_get(999, Some(admin)).await.unwrap().status(), 404);
        let shown: Value = admin_get(ann_id, Some(admin))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(
            (shown["hidden"].clone(), shown["hidden_reason"].clone()),
            (json!(false), Value::Null)
        );
        assert_eq!(shown["run"]["rank"], 1, "{shown}");

        let response = put(path.clone(), Some(admin), true).await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.json::<Value>().await.unwrap(),
            json!({"id": ann_id, "hidden": true, "reason": "desync found by hand at 1:02"})
        );
        let hidden: Value = admin_get(ann_id, Some(admin))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(hidden["hidden"], true);
        assert_eq!(hidden["hidden_reason"], "desync found by hand at 1:02");
        assert_eq!(hidden["player_hidden"], false);
        assert_eq!(
            (hidden["run"]["id"].clone(), hidden["run"]["rank"].clone()),
            (json!(ann_id), Value::Null),
            "off the board: {hidden}"
        );
        // Publicly a hidden run is a 404 like any missing run: neither the moderation nor its
        // reason shows.
        let response = http
            .get(format!("{base}/api/runs/{ann_id}"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 404);
        let text = response.text().await.unwrap();
        assert!(!text.contains("desync found"), "{text}");
        assert_eq!(
            text,
            http.get(format!("{base}/api/runs/999999"))
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
                .replace("999999", &ann_id.to_string())
        );
        let export = http
            .get(format!("{base}/api/levels/sprint/export?format=csv"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(!export.contains(",ann,"), "{export}");
        let (_, b1) = get_json(http, &board).await;
        assert_eq!(
            (b1["total"].clone(), b1["entries"][0]["player"].clone()),
            (json!(1), json!("ben"))
        );
        assert_eq!(
            get_json(http, &format!("{base}/api/runs/{ann_id}")).await.0,
            404
        );
        let response = put(path, Some(admin), false).await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.json::<Value>().await.unwrap(),
            json!({"id": ann_id, "hidden": false, "reason": null})
        );
        assert_eq!(get_json(http, &board).await.1["total"], 2);
        let shown: Value = admin_get(ann_id, Some(admin))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(
            (shown["hidden"].clone(), shown["hidden_reason"].clone()),
            (json!(false), Value::Null),
            "showing clears the reason"
        );

        let response = put("/api/admin/players/BEN/hidden".into(), Some(admin), true)
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.json::<Value>().await.unwrap()["name"], "ben");
        assert_eq!(get_json(http, &board).await.1["total"], 1);
        assert_eq!(
            get_json(http, &format!("{base}/api/runs/{ben_id}")).await.0,
            404
        );
        let ben: Value = admin_get(ben_id, Some(admin))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(
            (ben["hidden"].clone(), ben["player_hidden"].clone()),
            (json!(false), json!(true))
        );
        let (status, body) = upload(http, base, &b, &sprint_run("ben", 90)).await;
        assert_eq!(
            (status, body["error"].clone()),
            (403, json!("player_hidden"))
        );
        assert_eq!(
            put("/api/admin/players/nobody/hidden".into(), Some(admin), true)
                .await
                .unwrap()
                .status(),
            404
        );
        server.stop().await;

        config.admin_token = None;
        let server = TestServer::start(config).await;
        let response = server
            .http
            .put(format!("{}/api/admin/runs/1/hidden", server.base))
            .bearer_auth(admin)
            .json(&json!({"hidden": true}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403);
        assert_eq!(
            response.json::<Value>().await.unwrap()["error"],
            "admin_disabled"
        );
        server.stop().await;
        db.remove().await;
    }
}

/// `/api/levels` gives what a client needs to check its rules before uploading; metrics
/// count uploads by outcome and verdicts by reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn levels_say_the_rules_and_metrics_count_what_happened() {
    let backend = Backend::Sqlite;
    let db = TestDb::new(&backend).await;
    let server = TestServer::start(config(&db)).await;
    let (http, base) = (&server.http, server.base.as_str());
    let (status, levels) = get_json(http, &format!("{base}/api/levels")).await;
    assert_eq!(status, 200);
    let tuning_hash = format!("{:016x}", pogo_core::Tuning::default().content_hash());
    for (name, _) in pogo_replay::BUILTIN_LEVELS {
        let level = levels
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["name"] == *name)
            .unwrap();
        let hash = pogo_replay::builtin_level(name).unwrap().content_hash();
        assert_eq!(level["hash"], format!("{hash:016x}"));
        assert_eq!(level["tuning_hash"], tuning_hash);
        assert_eq!(level["rules_version"], pogo_core::RULES_VERSION);
    }
    let (status, geometry) = get_json(http, &format!("{base}/api/levels/course")).await;
    assert_eq!(status, 200);
    assert_eq!(geometry["name"], "course");
    assert!(!geometry["solids"].as_array().unwrap().is_empty());

    let token = register(http, base, "m").await;
    let (_, ok) = upload(http, base, &token, &flat_run("m", 1, 60)).await;
    let mut forged = Replay::decode(&flat_run("m", 2, 60), Limits::default()).unwrap();
    forged.trailer.final_hash ^= 1;
    let (_, bad) = upload(http, base, &token, &forged.encode()).await;
    upload(http, base, &token, b"junk").await;
    verdict(http, base, ok["id"].as_i64().unwrap()).await;
    verdict(http, base, bad["id"].as_i64().unwrap()).await;
    // Twice: the second scrape counts only the waiting runs (the totals are counted at most
    // every `RUN_TOTALS_INTERVAL`) and must still show the totals of the first.
    for _ in 0..2 {
        let text = http
            .get(format!("{base}/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        for line in [
            "pogo_uploads_total{outcome=\"accepted\"} 2",
            "pogo_uploads_total{outcome=\"bad_replay\"} 1",
            "pogo_verdicts_total{verdict=\"verified\",reason=\"unfinished\"} 1",
            "pogo_verdicts_total{verdict=\"rejected\",reason=\"desync\"} 1",
            "pogo_queue_depth 0",
            "pogo_runs{status=\"verified\"} 1",
            "pogo_verification_seconds_count 2",
            "pogo_runs{status=\"queued\"} 0",
            "pogo_runs{status=\"verifying\"} 0",
        ] {
            assert!(text.lines().any(|l| l == line), "{line:?} not in:\n{text}");
        }
    }
    let page = http.get(format!("{base}/")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("/api/openapi.json"));
    server.stop().await;
}

/// A run that falls off and respawns: the ghost marks each teleport and keeps the tick before
/// it and the tick of it as points even at a coarse `every`, so a renderer never
/// interpolates across a respawn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ghosts_mark_teleports_so_renderers_do_not_interpolate_across_them() {
    let m = pogo_core::Fx::from_int;
    let v = pogo_core::Vec3::new;
    let cliff = pogo_core::world::WorldDesc {
        name: "cliff".into(),
        spawn: pogo_core::Vec3::ZERO,
        solids: vec![pogo_core::world::Solid {
            bounds: pogo_core::world::Aabb::new(v(m(-5), m(-1), m(-5)), v(m(5), m(0), m(5))),
            no_bounce: false,
        }],
        ..Default::default()
    };
    let bytes = record(&cliff, "faller", 1200, false, |_, _| pogo_core::Input {
        steer_x: 127,
        ..Default::default()
    });
    let verifier = verifier(vec![cliff.clone()]);
    let ghost = Ghost::load(&bytes, &verifier).unwrap();
    let teleports: Vec<u32> = ghost
        .frames()
        .filter(|f| f.2)
        .map(|f| f.0.0)
        .filter(|&t| t > 0)
        .collect();
    assert!(teleports.len() >= 2, "the run respawns: {teleports:?}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cliff.json");
    std::fs::write(&file, pogo_replay::level_to_json(&cliff)).unwrap();
    let db = TestDb::new(&Backend::Sqlite).await;
    let mut config = config(&db);
    config.levels = vec![file];
    let server = TestServer::start(config).await;
    let (http, base) = (&server.http, server.base.as_str());
    let token = register(http, base, "faller").await;
    let (_, body) = upload(http, base, &token, &bytes).await;
    let id = body["id"].as_i64().unwrap();
    assert_eq!(verdict(http, base, id).await["status"], "verified");
    let (status, trajectory) =
        get_json(http, &format!("{base}/api/runs/{id}/ghost?every=500")).await;
    assert_eq!(status, 200, "{trajectory}");
    let points: Vec<(u32, bool)> = trajectory["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["tick"].as_u64().unwrap() as u32, p["teleport"] == true))
        .collect();
    for &t in &teleports {
        assert!(
            points.contains(&(t, true)),
            "teleport at {t} marked: {points:?}"
        );
        assert!(
            points.iter().any(|p| p.0 == t - 1),
            "the tick before {t} kept"
        );
    }
    // A point is marked exactly when a teleport happened since the previous point.
    let all: Vec<bool> = ghost.frames().map(|f| f.2).collect();
    for pair in points.windows(2) {
        let (prev, (tick, marked)) = (pair[0].0, pair[1]);
        let happened = all[(prev + 1) as usize..=tick as usize].iter().any(|&t| t);
        assert_eq!(marked, happened, "point {tick}");
    }
    server.stop().await;
}
