//! What the web page needs from the server, over HTTP on SQLite:
//! `GET /api/runs/{id}/inspect` (the run page's header).

mod support;

use pogo_replay::{Limits, Replay};
use serde_json::{Value, json};
use support::*;

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(repo_file(&format!("samples/{name}"))).unwrap()
}

/// The run page's header: what the file says about itself, the same as the library decodes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inspect_gives_the_files_header_and_claims_for_any_visible_run() {
    let db = TestDb::new(&Backend::Sqlite).await;
    let server = TestServer::start(config(&db)).await;
    let (http, base) = (&server.http, server.base.as_str());
    let honest = sample("course-bot.pogo");
    let mut forged = Replay::decode(&honest, Limits::default()).unwrap();
    let real = forged.trailer.finish[0].unwrap();
    forged.trailer.finish = vec![Some(real - 600)];
    let forged = forged.encode();
    let token = register(http, base, "bot").await;
    for bytes in [&honest, &forged] {
        let (status, uploaded) = upload(http, base, &token, bytes).await;
        assert_eq!(status, 202, "{uploaded}");
        let id = uploaded["id"].as_i64().unwrap();
        let run = verdict(http, base, id).await;
        let (status, got) = get_json(http, &format!("{base}/api/runs/{id}/inspect")).await;
        assert_eq!(status, 200, "{got}");
        let replay = Replay::decode(bytes, Limits::default()).unwrap();
        let (h, t) = (&replay.header, &replay.trailer);
        let finish = t.finish[0].unwrap();
        let ms = pogo_server::times::millis(u64::from(finish) + 1, h.tick_rate);
        assert_eq!(
            got,
            json!({
                "id": id,
                "format_version": pogo_replay::FORMAT_VERSION,
                "rules_version": h.rules_version,
                "tick_rate": h.tick_rate,
                "frac_bits": h.frac_bits,
                "level": h.level_name,
                "level_hash": format!("{:016x}", h.level_hash),
                "tuning_hash": format!("{:016x}", h.tuning_hash),
                "players": 1,
                "player_name": "bot",
                "date": Value::Null,
                "chunks": replay.chunks.len(),
                "chunk_ticks": h.chunk_ticks,
                "hash_interval": h.hash_interval,
                "ticks": t.ticks,
                "duration_s": pogo_server::times::millis(u64::from(t.ticks), h.tick_rate) as f64 / 1000.0,
                "claimed_finish": [{
                    "tick": finish,
                    "time_s": ms as f64 / 1000.0,
                    "time": pogo_server::times::clock(ms),
                }],
                "final_hash": format!("{:016x}", t.final_hash),
                "bytes": bytes.len(),
            }),
            "run {id} ({})",
            run["status"]
        );
    }
    for (path, status) in [("/api/runs/999/inspect", 404), ("/api/runs/x/inspect", 400)] {
        let (got, body) = get_json(http, &format!("{base}{path}")).await;
        assert_eq!(got, status, "{path}: {body}");
    }
    server.stop().await;
}
