//! What the web page needs from the server, over HTTP on SQLite: the embedded files with
//! their content types, ETags (304 on a match) and security headers, and
//! `GET /api/runs/{id}/inspect` (the run page's header). The page itself is tested in a
//! real browser by `server/tests/browser/` (run by `.ci/run`).

mod support;

use pogo_replay::{Limits, Replay};
use serde_json::{Value, json};
use support::*;

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(repo_file(&format!("samples/{name}"))).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_and_its_files_are_served_with_types_etags_and_a_policy() {
    let db = TestDb::new(&Backend::Sqlite).await;
    let server = TestServer::start(config(&db)).await;
    let (http, base) = (&server.http, server.base.as_str());
    for (path, file, content_type) in [
        ("/", "index.html", "text/html; charset=utf-8"),
        ("/web/app.js", "app.js", "text/javascript; charset=utf-8"),
        ("/web/race.js", "race.js", "text/javascript; charset=utf-8"),
        ("/web/style.css", "style.css", "text/css; charset=utf-8"),
    ] {
        let response = http.get(format!("{base}{path}")).send().await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let headers = response.headers().clone();
        assert_eq!(headers["content-type"], content_type, "{path}");
        assert_eq!(headers["cache-control"], "no-cache", "{path}");
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        let policy = headers["content-security-policy"].to_str().unwrap();
        assert!(policy.contains("script-src 'self'"), "{path}: {policy}");
        let etag = headers["etag"].to_str().unwrap().to_string();
        assert!(
            etag.starts_with("W/\"") && etag.len() == 20,
            "{path}: {etag}"
        );
        let body = response.bytes().await.unwrap();
        let on_disk = std::fs::read(repo_file(&format!("server/web/{file}"))).unwrap();
        assert_eq!(body.to_vec(), on_disk, "{path} is the file as committed");

        // Asked again with its ETag: 304, no body; with another: the file.
        let again = http
            .get(format!("{base}{path}"))
            .header("if-none-match", &etag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), 304, "{path}");
        assert_eq!(again.headers()["etag"], etag.as_str());
        assert!(again.bytes().await.unwrap().is_empty());
        let stale = http
            .get(format!("{base}{path}"))
            .header("if-none-match", "W/\"0000000000000000\", \"x\"")
            .send()
            .await
            .unwrap();
        assert_eq!(stale.status(), 200, "{path}");
    }
    // Each file has its own tag.
    let tag = |path: &'static str| {
        let http = http.clone();
        let url = format!("{base}{path}");
        async move { http.get(url).send().await.unwrap().headers()["etag"].clone() }
    };
    assert_ne!(tag("/web/app.js").await, tag("/web/race.js").await);
    let page = http
        .get(format!("{base}/"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains(r#"<script type="module" src="/web/app.js"></script>"#));
    assert!(page.contains("/api/openapi.json"));

    for (missing, code) in [
        ("/web/nope.js", "unknown_file"),
        ("/web/..%2Fsrc%2Flib.rs", "unknown_file"),
        ("/web/%7Bfile%7D", "unknown_file"),
        ("/web/", "no_route"),
        ("/web/a/b.js", "no_route"),
    ] {
        let (status, body) = get_json(http, &format!("{base}{missing}")).await;
        assert_eq!(status, 404, "{missing}: {body}");
        assert_eq!(body["error"], code, "{missing}");
    }
    server.stop().await;
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
