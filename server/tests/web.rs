//! What the web page needs from the server, over HTTP on SQLite: the embedded files with
//! their content types, ETags (304 on a match) and security headers (the page's own, the JS
//! binding `pogo.mjs`, the vendored three.js), the WebAssembly module read from disk
//! (gzipped when accepted; `wasm_missing` with how to build it; too large refused), and
//! `GET /api/runs/{id}/inspect` (the run page's header). The page itself is tested in a
//! real browser by `server/tests/browser/` (run by `.ci/run`).

mod support;

use std::io::Read;
use std::path::Path;

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
        ("/", "server/web/index.html", "text/html; charset=utf-8"),
        (
            "/web/app.js",
            "server/web/app.js",
            "text/javascript; charset=utf-8",
        ),
        (
            "/web/routes.js",
            "server/web/routes.js",
            "text/javascript; charset=utf-8",
        ),
        (
            "/web/race/race.js",
            "server/web/race/race.js",
            "text/javascript; charset=utf-8",
        ),
        (
            "/web/play/play.js",
            "server/web/play/play.js",
            "text/javascript; charset=utf-8",
        ),
        (
            "/web/style.css",
            "server/web/style.css",
            "text/css; charset=utf-8",
        ),
        (
            "/web/pogo.mjs",
            "ffi/js/pogo.mjs",
            "text/javascript; charset=utf-8",
        ),
        (
            "/web/vendor/three.module.min.js",
            "server/web/vendor/three.module.min.js",
            "text/javascript; charset=utf-8",
        ),
        (
            "/web/vendor/LICENSE",
            "server/web/vendor/LICENSE",
            "text/plain; charset=utf-8",
        ),
    ] {
        let response = http.get(format!("{base}{path}")).send().await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let headers = response.headers().clone();
        assert_eq!(headers["content-type"], content_type, "{path}");
        assert_eq!(headers["cache-control"], "no-cache", "{path}");
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        let policy = headers["content-security-policy"].to_str().unwrap();
        assert!(
            policy.contains("script-src 'self' 'wasm-unsafe-eval';"),
            "{path}: {policy}"
        );
        let etag = headers["etag"].to_str().unwrap().to_string();
        assert!(
            etag.starts_with("W/\"") && etag.len() == 20,
            "{path}: {etag}"
        );
        let body = response.bytes().await.unwrap();
        let on_disk = std::fs::read(repo_file(file)).unwrap();
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
    assert_ne!(tag("/web/app.js").await, tag("/web/race/race.js").await);
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
        ("/web/..%2F..%2FCargo.toml", "unknown_file"),
        ("/web/%7Bfile%7D", "unknown_file"),
        ("/web/", "no_route"),
        ("/web/a/b.js", "unknown_file"),
        ("/web/play/nope.js", "unknown_file"),
        ("/web/play/..%2Fapp.js", "unknown_file"),
        ("/web/..%2Fsrc/web.rs", "unknown_file"),
        ("/web/../Cargo.toml", "no_route"),
        ("/web/play/../../Cargo.toml", "no_route"),
        ("/web/play%2Fplay.js", "unknown_file"),
        ("/web/play.js", "unknown_file"),
        ("/web/vendor/nope.js", "unknown_file"),
        ("/web/vendor/..%2Findex.html", "unknown_file"),
        ("/web/vendor%2FLICENSE", "unknown_file"),
        ("/web/vendor/", "no_route"),
        ("/web/play/a/b.js", "no_route"),
    ] {
        let (status, body) = get_json(http, &format!("{base}{missing}")).await;
        assert_eq!(status, 404, "{missing}: {body}");
        assert_eq!(body["error"], code, "{missing}");
    }
    server.stop().await;
}

/// A stand-in for the page's WebAssembly module: the wasm header and `len` bytes of padding
/// varied by `seed` (compressible, as a real module is), written to `path`.
fn fake_module(path: &Path, len: usize, seed: u8) -> Vec<u8> {
    let mut bytes = b"\0asm\x01\0\0\0".to_vec();
    bytes.extend((0..len).map(|i| (i % 251) as u8 ^ seed));
    std::fs::write(path, &bytes).unwrap();
    bytes
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// `GET /web/pogo_ffi.wasm` from the file `--wasm` names: gzipped (once, served with
/// `Content-Encoding: gzip` and `Vary`) to a client that accepts it, raw to one that does
/// not, a 304 on its ETag; rebuilt while the server runs, the new file is served; missing,
/// `404 wasm_missing` with how to build it; over the size limit or not WebAssembly, refused
/// (503 `wasm_unusable`) naming the profile to build; and back once the file is good.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wasm_module_is_served_gzipped_from_disk_or_says_how_to_build_it() {
    let db = TestDb::new(&Backend::Sqlite).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pogo_ffi.wasm");
    let module = fake_module(&path, 300_000, 0);
    let mut config = config(&db);
    config.wasm = Some(path.clone());
    let server = TestServer::start(config).await;
    let (http, base) = (&server.http, server.base.as_str());
    let url = format!("{base}/web/pogo_ffi.wasm");
    let get = |accept: Option<&'static str>| {
        let mut request = http.get(&url);
        if let Some(accept) = accept {
            request = request.header("accept-encoding", accept);
        }
        request.send()
    };

    let gzipped = get(Some("gzip, deflate, br")).await.unwrap();
    assert_eq!(gzipped.status(), 200);
    let headers = gzipped.headers().clone();
    assert_eq!(headers["content-type"], "application/wasm");
    assert_eq!(headers["content-encoding"], "gzip");
    assert_eq!(headers["vary"], "accept-encoding");
    assert_eq!(headers.get_all("vary").iter().count(), 1);
    assert_eq!(headers["cache-control"], "no-cache");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert!(
        headers["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("'wasm-unsafe-eval'")
    );
    let etag = headers["etag"].to_str().unwrap().to_string();
    assert!(etag.starts_with("W/\"") && etag.len() == 20, "{etag}");
    let body = gzipped.bytes().await.unwrap();
    assert_eq!(
        headers["content-length"].to_str().unwrap(),
        body.len().to_string(),
        "sent as stored, not compressed again on the way"
    );
    assert!(body.len() < module.len() / 4, "{} bytes", body.len());
    assert_eq!(gunzip(&body), module, "one gzip layer over the file");

    for accept in [None, Some("identity"), Some("gzip;q=0, br")] {
        let raw = get(accept).await.unwrap();
        assert_eq!(raw.status(), 200, "{accept:?}");
        assert_eq!(raw.headers()["content-type"], "application/wasm");
        assert!(
            raw.headers().get("content-encoding").is_none(),
            "{accept:?}"
        );
        assert_eq!(raw.headers()["vary"], "accept-encoding");
        assert_eq!(
            raw.headers()["etag"],
            etag.as_str(),
            "one tag for both encodings"
        );
        assert_eq!(raw.bytes().await.unwrap().to_vec(), module, "{accept:?}");
    }
    let again = http
        .get(&url)
        .header("if-none-match", &etag)
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    assert!(again.bytes().await.unwrap().is_empty());

    // Rebuilt while the server runs: the new module, under a new tag.
    std::fs::remove_file(&path).unwrap();
    let rebuilt = fake_module(&path, 200_000, 7);
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .unwrap();
    drop(file);
    let response = get(Some("gzip")).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_ne!(response.headers()["etag"], etag.as_str());
    assert_eq!(gunzip(&response.bytes().await.unwrap()), rebuilt);

    // Missing: 404 with the build hint the page shows.
    std::fs::remove_file(&path).unwrap();
    let (status, body) = get_json(http, &url).await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(
        body,
        json!({
            "error": "wasm_missing",
            "message": "the page's WebAssembly module is not built: run `bash scripts/build-wasm.sh` \
                (adds the wasm32 target and builds pogo-ffi with --profile wasm-release), then reload",
        })
    );

    // Over the limit (a build of the `release` profile), or not WebAssembly: refused.
    let limit = pogo_server::web::WASM_BYTES_MAX as usize;
    fake_module(&path, limit + 1 - 8, 1);
    let (status, body) = get_json(http, &url).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (503, Some("wasm_unusable")),
        "{body}"
    );
    let message = body["message"].as_str().unwrap();
    assert!(message.contains(&format!("{}", limit + 1)), "{message}");
    assert!(message.contains("--profile wasm-release"), "{message}");
    assert!(message.contains("scripts/build-wasm.sh"), "{message}");
    std::fs::write(&path, b"<!doctype html> not a module").unwrap();
    let (status, body) = get_json(http, &url).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (503, Some("wasm_unusable")),
        "{body}"
    );
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("not a WebAssembly module")
    );

    // Just under the limit is served; and once the file is good again, so is it.
    let largest = fake_module(&path, limit - 8, 2);
    let response = get(None).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.bytes().await.unwrap().len(), largest.len());
    let module = fake_module(&path, 1000, 3);
    let response = get(Some("gzip")).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(gunzip(&response.bytes().await.unwrap()), module);
    server.stop().await;
}

/// `GET /web/pogo_ffi_wide.wasm`: the build with wide arithmetic, from beside the module
/// `--wasm` names (`pogo_ffi_wide.wasm` in its directory, whatever the module's own name), a
/// `404 wasm_missing` while it is not built (the page then loads the other), its own bytes
/// and tag once it is; neither route serves the other's file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wide_module_is_served_from_beside_the_other() {
    let db = TestDb::new(&Backend::Sqlite).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("core.wasm");
    let plain = fake_module(&path, 30_000, 0);
    let mut config = config(&db);
    config.wasm = Some(path.clone());
    let server = TestServer::start(config).await;
    let (http, base) = (&server.http, server.base.as_str());
    let (plain_url, wide_url) = (
        format!("{base}/web/pogo_ffi.wasm"),
        format!("{base}/web/pogo_ffi_wide.wasm"),
    );

    let (status, body) = get_json(http, &wide_url).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (404, Some("wasm_missing"))
    );
    let wide = fake_module(&dir.path().join("pogo_ffi_wide.wasm"), 20_000, 9);
    let mut tags = Vec::new();
    for (url, bytes) in [(&plain_url, &plain), (&wide_url, &wide)] {
        let response = http.get(url).send().await.unwrap();
        assert_eq!(response.status(), 200, "{url}");
        assert_eq!(response.headers()["content-type"], "application/wasm");
        tags.push(response.headers()["etag"].to_str().unwrap().to_string());
        assert_eq!(&response.bytes().await.unwrap().to_vec(), bytes, "{url}");
    }
    assert_ne!(tags[0], tags[1]);
    let gzipped = http
        .get(&wide_url)
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(gzipped.headers()["content-encoding"], "gzip");
    assert_eq!(gunzip(&gzipped.bytes().await.unwrap()), wide);
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
