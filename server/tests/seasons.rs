//! Seasons across a real change of tuning, and `pogo-server reverify` (the real binary).
//!
//! Runs are recorded under a test tuning A that differs from the default in one parameter
//! only some runs exercise (`dive_gravity_scale`: only a run holding the dive button while
//! falling feels it). A server with tuning A verifies and ranks them. The same database is
//! then opened by a server with the default tuning (B): A's board is a past season, still
//! readable; `reverify` files the runs that never dived on B's board, with the same finish
//! ticks, and reports the divers as desyncs; A's board is byte for byte what it was, and a
//! second invocation does nothing new. On SQLite and PostgreSQL.

mod support;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use pogo_core::world::{World, WorldDesc};
use pogo_core::{Buttons, Input, Simulation, Tuning, TuningSpec};
use pogo_replay::{Header, Limits, Recorder, Replay, Verifier};
use serde_json::Value;
use support::*;

/// Tuning A: the default but for the dive's gravity multiplier (default 1.8).
const TUNING_A: &str = r#"{"dive_gravity_scale": 3}"#;

fn tuning_a() -> Tuning {
    let mut spec = TuningSpec::default();
    pogo_replay::apply_tuning_json(&mut spec, TUNING_A).unwrap();
    Tuning::new(spec).unwrap()
}

/// A run of `desc` under `tuning`, by `name`, holding the stick east at `steer_x` (and the
/// dive button, if `dive`), to the tick after the finish.
fn record_tuned(tuning: &Tuning, desc: &WorldDesc, name: &str, steer_x: i8, dive: bool) -> Vec<u8> {
    let world = World::new(desc.clone(), tuning).unwrap();
    let mut sim = Simulation::new(Arc::new(world), tuning.clone(), 1).unwrap();
    let header = Header::for_simulation(&sim, Some(name.to_string()), None);
    let mut recorder = Recorder::new(Vec::new(), header).unwrap();
    let input = Input {
        steer_x,
        buttons: if dive { Buttons::DIVE } else { Buttons::NONE },
        ..Input::default()
    };
    for _ in 0..3600 {
        sim.step(&[input]);
        recorder.record(&[input], || sim.state_hash()).unwrap();
        if sim.state().pogos[0].finish_tick.is_some() {
            break;
        }
    }
    recorder.finish_simulation(&sim).unwrap()
}

/// `pogo-server reverify` (the real binary) on `database` with the default tuning; its
/// stdout, after checking it exited 0.
fn reverify(database: &str, level_file: &Path, extra: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_pogo-server"))
        .args(["reverify", "--database", database, "--level"])
        .arg(level_file)
        .args(extra)
        .env("RUST_LOG", "warn")
        .env_remove("POGO_TUNING")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "reverify failed: {}\nstdout: {stdout}\nstderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// A report's counts: re-verified, filed, no longer verify, already stored, done by another
/// invocation, left.
fn counts(report: &str) -> [u64; 6] {
    let line = report
        .lines()
        .find(|l| l.starts_with("re-verified "))
        .unwrap_or_else(|| panic!("no counts in {report}"));
    let numbers: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().unwrap())
        .collect();
    numbers
        .try_into()
        .unwrap_or_else(|n| panic!("{n:?} in {line}"))
}

async fn text(http: &reqwest::Client, url: &str) -> (u16, String) {
    let response = http.get(url).send().await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// A board's entries as (player, finish tick), in rank order.
fn entries(board: &Value) -> Vec<(String, u64)> {
    board["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["player"].as_str().unwrap().to_string(),
                e["finish_tick"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tuning_change_starts_a_season_and_reverify_carries_over_what_still_verifies() {
    let level = sprint_level();
    let dir = tempfile::tempdir().unwrap();
    let level_file = dir.path().join("sprint.json");
    std::fs::write(&level_file, pogo_replay::level_to_json(&level)).unwrap();
    let tuning_file = dir.path().join("tuning-a.json");
    std::fs::write(&tuning_file, TUNING_A).unwrap();

    // (player, stick, dive). Divers feel tuning A's dive gravity; the others never do.
    let plan: &[(&str, i8, bool)] = &[
        ("ana", 90, false),
        ("ben", 127, false),
        ("cat", 110, true),
        ("dan", 70, true),
        ("eli", 50, false),
    ];
    let a = tuning_a();
    let runs: Vec<Vec<u8>> = plan
        .iter()
        .map(|&(name, stick, dive)| record_tuned(&a, &level, name, stick, dive))
        .collect();
    // The oracle, from the library: under the default tuning the non-divers' inputs give the
    // same state hashes (recorded again, they are the same files but for the header), the
    // divers' do not.
    let default = Tuning::default();
    for (&(name, stick, dive), bytes) in plan.iter().zip(&runs) {
        let again = Replay::decode(
            &record_tuned(&default, &level, name, stick, dive),
            Limits::default(),
        )
        .unwrap();
        let original = Replay::decode(bytes, Limits::default()).unwrap();
        assert_eq!(
            again.chunks == original.chunks,
            !dive,
            "{name}: the dive gravity changes exactly the divers' state hashes"
        );
    }
    let verifier_a = Verifier::new(a.clone(), vec![level.clone()], Limits::default());
    let finish: Vec<u64> = runs
        .iter()
        .map(|bytes| u64::from(verifier_a.verify(&bytes[..]).unwrap().finish[0].unwrap()))
        .collect();

    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let label = backend.name();

        // Server A: tuning A. Every run verifies and ranks.
        let mut config_a = config(&db);
        config_a.levels = vec![level_file.clone()];
        config_a.tuning = Some(tuning_file.clone());
        let server = TestServer::start(config_a).await;
        let (http, base) = (&server.http, server.base.as_str());
        for (&(name, _, _), bytes) in plan.iter().zip(&runs) {
            let token = register(http, base, name).await;
            let (status, body) = upload(http, base, &token, bytes).await;
            assert_eq!(status, 202, "{label}: {body}");
            let run = verdict(http, base, body["id"].as_i64().unwrap()).await;
            assert_eq!(run["status"], "verified", "{label}: {run}");
        }
        let (_, seasons_a) = get_json(http, &format!("{base}/api/levels/sprint/seasons")).await;
        let season_a = seasons_a["current"].as_str().unwrap().to_string();
        assert_eq!(
            seasons_a["seasons"].as_array().unwrap().len(),
            1,
            "{seasons_a}"
        );
        let (_, board_a) = get_json(http, &format!("{base}/api/levels/sprint/leaderboard")).await;
        assert_eq!(board_a["season"], season_a.as_str());
        assert_eq!(board_a["current"], true);
        let mut expected_a: Vec<(String, u64)> = plan
            .iter()
            .zip(&finish)
            .map(|(p, f)| (p.0.to_string(), *f))
            .collect();
        expected_a.sort_by_key(|(_, f)| *f);
        assert_eq!(entries(&board_a), expected_a, "{label}");
        let export_url = |base: &str, format: &str| {
            format!("{base}/api/levels/sprint/export?format={format}&season={season_a}")
        };
        let (status, csv_a) = text(http, &export_url(base, "csv")).await;
        assert_eq!(status, 200);
        assert_eq!(csv_a.lines().count(), 1 + plan.len(), "{csv_a}");
        server.stop().await;

        // Server B: the default tuning, the same database. A's board is a past season.
        let mut config_b = config(&db);
        config_b.levels = vec![level_file.clone()];
        let server = TestServer::start(config_b).await;
        let (http, base) = (&server.http, server.base.as_str());
        let (status, seasons) = get_json(http, &format!("{base}/api/levels/sprint/seasons")).await;
        assert_eq!(status, 200, "{seasons}");
        let list = seasons["seasons"].as_array().unwrap();
        let season_b = seasons["current"].as_str().unwrap().to_string();
        assert_ne!(season_b, season_a);
        assert_eq!(list.len(), 2, "{label}: {seasons}");
        assert_eq!(list[0]["id"], season_b.as_str());
        assert_eq!(list[0]["current"], true);
        assert_eq!(list[0]["runs"], 0);
        assert_eq!(list[0]["first_verified_at"], Value::Null);
        assert_eq!(list[1]["id"], season_a.as_str());
        assert_eq!(list[1]["current"], false);
        assert_eq!(
            (list[1]["runs"].as_i64(), list[1]["players"].as_i64()),
            (Some(5), Some(5))
        );
        assert_eq!(list[1]["tuning_hash"], board_a["tuning_hash"]);
        assert!(list[1]["first_verified_at"].is_string());
        let (_, past) = get_json(
            http,
            &format!("{base}/api/levels/sprint/leaderboard?season={season_a}"),
        )
        .await;
        assert_eq!(past["current"], false);
        assert_eq!(past["tuning_hash"], board_a["tuning_hash"]);
        assert_eq!(entries(&past), expected_a, "{label}: the past board reads");
        let (_, now) = get_json(http, &format!("{base}/api/levels/sprint/leaderboard")).await;
        assert_eq!(
            (now["season"].as_str(), now["total"].as_i64()),
            (Some(season_b.as_str()), Some(0))
        );
        assert_eq!(
            text(http, &export_url(base, "csv")).await,
            (200, csv_a.clone())
        );
        // Bad and unknown seasons.
        for route in ["leaderboard?", "export?format=csv&"] {
            for (season, status, code) in [
                ("nope", 400, "bad_parameter"),
                ("r2-ABCDEF0123456789-0123456789abcdef", 400, "bad_parameter"),
                (
                    "r2-0000000000000000-0000000000000000",
                    404,
                    "unknown_season",
                ),
            ] {
                let url = format!("{base}/api/levels/sprint/{route}season={season}");
                let (got, body) = get_json(http, &url).await;
                assert_eq!(
                    (got, body["error"].as_str()),
                    (status, Some(code)),
                    "{url}: {body}"
                );
            }
        }
        let (status, body) = get_json(http, &format!("{base}/api/levels/nope/seasons")).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (404, Some("unknown_level"))
        );

        // reverify, bounded: one run, then the rest, then nothing.
        let first = reverify(&db.url, &level_file, &["--limit", "1", "--batch", "1"]);
        assert_eq!(counts(&first), [1, 1, 0, 0, 0, 4], "{label}: {first}");
        // The rest by two invocations at once (as two operators might): each run is filed
        // or reported once between them, whoever records it first.
        let (second, other) = std::thread::scope(|scope| {
            let a = scope.spawn(|| reverify(&db.url, &level_file, &["--batch", "2"]));
            let b = scope.spawn(|| reverify(&db.url, &level_file, &["--batch", "1"]));
            (a.join().unwrap(), b.join().unwrap())
        });
        let (x, y) = (counts(&second), counts(&other));
        // (checked, filed, failed, already stored, done by the other)
        assert_eq!(
            x[1] + y[1],
            2,
            "{label}: filed once each:\n{second}\n{other}"
        );
        assert_eq!(
            x[2] + y[2],
            2,
            "{label}: reported once each:\n{second}\n{other}"
        );
        assert_eq!(x[3] + y[3], 0, "{label}:\n{second}\n{other}");
        assert_eq!(x[0] - x[4] + y[0] - y[4], 4, "{label}:\n{second}\n{other}");
        let both = format!("{second}{other}");
        for (name, _, dive) in plan {
            let lines: Vec<&str> = both
                .lines()
                .filter(|l| l.contains(&format!("by \"{name}\"")))
                .collect();
            if *dive {
                assert_eq!(lines.len(), 1, "{label}: {name} reported once: {both}");
                assert!(
                    lines[0].contains(&format!("(season {season_a}): desync: desync at tick")),
                    "{}",
                    lines[0]
                );
            } else {
                assert!(lines.is_empty(), "{label}: {name} reported: {both}");
            }
        }
        eprintln!("{label}: the concurrent invocations' reports:\n{second}{other}");
        let third = reverify(&db.url, &level_file, &[]);
        assert_eq!(counts(&third), [0, 0, 0, 0, 0, 0], "{label}: {third}");

        // B's board: the non-divers, with A's finish ticks, in A's order.
        let (_, board_b) = get_json(http, &format!("{base}/api/levels/sprint/leaderboard")).await;
        let survivors: Vec<(String, u64)> = expected_a
            .iter()
            .filter(|(name, _)| plan.iter().any(|p| p.0 == name && !p.2))
            .cloned()
            .collect();
        assert_eq!(survivors.len(), 3);
        assert_eq!(entries(&board_b), survivors, "{label}: {board_b}");
        // A filed run: B's header, A's inputs, state hashes and outcome.
        for entry in board_b["entries"].as_array().unwrap() {
            let id = entry["run_id"].as_i64().unwrap();
            let run = verdict(http, base, id).await;
            assert_eq!(run["status"], "verified");
            let bytes = http
                .get(format!("{base}/api/runs/{id}/replay"))
                .send()
                .await
                .unwrap()
                .bytes()
                .await
                .unwrap();
            let filed = Replay::decode(&bytes, Limits::default()).unwrap();
            let player = entry["player"].as_str().unwrap();
            let index = plan.iter().position(|p| p.0 == player).unwrap();
            let original = Replay::decode(&runs[index], Limits::default()).unwrap();
            assert_eq!(filed.header.tuning_hash, default.content_hash());
            assert_eq!(
                Header {
                    tuning_hash: original.header.tuning_hash,
                    ..filed.header.clone()
                },
                original.header
            );
            assert_eq!(filed.chunks, original.chunks);
            assert_eq!(
                (
                    filed.trailer.ticks,
                    &filed.trailer.finish,
                    filed.trailer.final_hash
                ),
                (
                    original.trailer.ticks,
                    &original.trailer.finish,
                    original.trailer.final_hash
                )
            );
            let before = board_a["entries"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["player"] == player)
                .unwrap();
            assert_eq!(
                run["uploaded_at"], before["uploaded_at"],
                "the original's upload time"
            );
            assert_ne!(entry["run_id"], before["run_id"], "a new run");
            assert_eq!(run["reverified_from"], before["run_id"]);
            assert_eq!(
                (run["season"].as_str(), &run["current_season"]),
                (Some(season_b.as_str()), &Value::Bool(true))
            );
            // The original: on its past season, no rank, no ghost here (409, not a 500).
            let original_id = before["run_id"].as_i64().unwrap();
            let old = verdict(http, base, original_id).await;
            assert_eq!(
                (old["season"].as_str(), &old["current_season"], &old["rank"]),
                (Some(season_a.as_str()), &Value::Bool(false), &Value::Null)
            );
            assert_eq!(old["reverified_from"], Value::Null);
            let (status, body) =
                get_json(http, &format!("{base}/api/runs/{original_id}/ghost")).await;
            assert_eq!(
                (status, body["error"].as_str()),
                (409, Some("past_season")),
                "{body}"
            );
            let (status, ghost) = get_json(http, &format!("{base}/api/runs/{id}/ghost")).await;
            assert_eq!(
                (status, &ghost["finish"]["tick"]),
                (200, &entry["finish_tick"]),
                "{ghost}"
            );
        }
        // A's board, untouched; the seasons list counts B's runs now.
        assert_eq!(
            text(http, &export_url(base, "csv")).await,
            (200, csv_a.clone()),
            "{label}"
        );
        let (_, past_after) = get_json(
            http,
            &format!("{base}/api/levels/sprint/leaderboard?season={season_a}"),
        )
        .await;
        assert_eq!(entries(&past_after), expected_a);
        let (_, seasons) = get_json(http, &format!("{base}/api/levels/sprint/seasons")).await;
        assert_eq!(seasons["seasons"][0]["runs"], 3, "{seasons}");
        assert_eq!(seasons["seasons"][1]["runs"], 5, "{seasons}");
        server.stop().await;
        db.remove().await;
    }
}

/// Moderation follows a run to its new season: a run an admin hid on the past board is
/// filed hidden, with the admin's reason, so re-verifying never puts it back on a board.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hidden_run_is_filed_hidden() {
    const ADMIN: &str = "seasons-test-admin-token";
    let level = sprint_level();
    let dir = tempfile::tempdir().unwrap();
    let level_file = dir.path().join("sprint.json");
    std::fs::write(&level_file, pogo_replay::level_to_json(&level)).unwrap();
    let tuning_file = dir.path().join("tuning-a.json");
    std::fs::write(&tuning_file, TUNING_A).unwrap();
    let a = tuning_a();
    let runs = [
        ("ana", record_tuned(&a, &level, "ana", 90, false)),
        ("ben", record_tuned(&a, &level, "ben", 127, false)),
    ];
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let label = backend.name();
        let mut config_a = config(&db);
        config_a.levels = vec![level_file.clone()];
        config_a.tuning = Some(tuning_file.clone());
        config_a.admin_token = Some(ADMIN.into());
        let server = TestServer::start(config_a).await;
        let (http, base) = (&server.http, server.base.as_str());
        let mut ids = Vec::new();
        for (name, bytes) in &runs {
            let token = register(http, base, name).await;
            let (_, body) = upload(http, base, &token, bytes).await;
            let id = body["id"].as_i64().unwrap();
            assert_eq!(verdict(http, base, id).await["status"], "verified");
            ids.push(id);
        }
        let hide = http
            .put(format!("{base}/api/admin/runs/{}/hidden", ids[1]))
            .bearer_auth(ADMIN)
            .json(&serde_json::json!({"hidden": true, "reason": "a cheat, by hand"}))
            .send()
            .await
            .unwrap();
        assert_eq!(hide.status(), 200, "{label}");
        server.stop().await;

        let stdout = reverify(&db.url, &level_file, &[]);
        assert_eq!(counts(&stdout), [2, 2, 0, 0, 0, 0], "{label}: {stdout}");
        let mut config_b = config(&db);
        config_b.levels = vec![level_file.clone()];
        config_b.admin_token = Some(ADMIN.into());
        let server = TestServer::start(config_b).await;
        let (http, base) = (&server.http, server.base.as_str());
        let (_, board) = get_json(http, &format!("{base}/api/levels/sprint/leaderboard")).await;
        assert_eq!(entries(&board).len(), 1, "{label}: {board}");
        assert_eq!(board["entries"][0]["player"], "ana");
        // The copies follow the originals in id order: ben's is the last run.
        let copy = ids[1] + 2;
        let admin: Value = http
            .get(format!("{base}/api/admin/runs/{copy}"))
            .bearer_auth(ADMIN)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(admin["run"]["reverified_from"], ids[1], "{label}: {admin}");
        assert_eq!(admin["hidden"], true, "{label}: {admin}");
        assert_eq!(
            admin["hidden_reason"], "a cheat, by hand",
            "{label}: {admin}"
        );
        server.stop().await;
        db.remove().await;
    }
}
