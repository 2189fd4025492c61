//! Fault drills, with the real binary: a full disk under SQLite (a small tmpfs filled up, then
//! freed), PostgreSQL unreachable (a TCP proxy between the server and the database, cut and
//! restored), and damage at rest (a bit flipped in a stored replay and in a stored player
//! name) found by `pogo-server check` and not served. Each prints its figures (time to 503,
//! time to recover) on stderr (`--nocapture`), the ones `docs/operations.md` quotes.
//!
//! The full-disk drill mounts a tmpfs, so it needs root (CI runs as root). Elsewhere it says
//! on stderr that it skipped the drill; under `CI=true` it fails instead.

mod support;

use std::io::{Read, Write};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};
use sqlx::Connection;
use support::*;

/// The real binary's flags for a drill: two workers, no rate limit to speak of.
fn drill_args(database: &str) -> Vec<String> {
    [
        "--database",
        database,
        "--workers",
        "2",
        "--duration-ms-max",
        "1000",
    ]
    .iter()
    .chain(&NO_RATE_LIMITS)
    .map(|s| s.to_string())
    .collect()
}

async fn start(args: &[String], log: &Path) -> ServerProcess {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ServerProcess::start(&args, log).await
}

/// `pogo-server check` on `database`: its exit code and stdout.
fn run_check(database: &str) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pogo-server"))
        .args(["check", "--database", database])
        .env_remove("ADMIN_TOKEN")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    eprintln!(
        "pogo-server check → {:?}\n{stdout}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), stdout)
}

/// Whether this process may mount a tmpfs; if not, says it skipped (and fails under CI).
fn root_or_skip(drill: &str) -> bool {
    let uid = Command::new("id").arg("-u").output().unwrap();
    if String::from_utf8_lossy(&uid.stdout).trim() == "0" {
        return true;
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(!ci, "CI: the {drill} drill needs root (to mount a tmpfs)");
    eprintln!("\n*** SKIPPING the {drill} drill: not root, cannot mount a tmpfs ***\n");
    false
}

/// A tmpfs of `size` mounted on a fresh directory, unmounted when dropped (also when the test
/// fails).
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Tmpfs {
        let dir = tempfile::Builder::new()
            .prefix("pogo-full-disk-")
            .tempdir()
            .unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(status.success(), "mount -t tmpfs");
        Tmpfs { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// Writes `path` until the file system is full; returns the bytes written.
fn fill(path: &Path) -> u64 {
    let mut file = std::fs::File::create(path).unwrap();
    let block = vec![0x5a_u8; 16 * 1024];
    let mut written = 0;
    loop {
        match file.write(&block) {
            Ok(0) => break,
            Ok(n) => written += n as u64,
            Err(_) => break,
        }
    }
    // The last partial blocks.
    for _ in 0..64 {
        match file.write(&block[..512]) {
            Ok(n) if n > 0 => written += n as u64,
            _ => break,
        }
    }
    let _ = file.sync_all();
    written
}

/// The server log's lines at level ERROR (JSON logs).
fn log_errors(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let errors: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("\"level\":\"ERROR\""))
        .collect();
    errors[errors.len().saturating_sub(5)..].join("\n")
}

/// One upload's outcome: status, body, `Retry-After`, `Connection`.
struct Answer {
    status: u16,
    body: Value,
    retry_after: Option<String>,
    connection: Option<String>,
}

async fn upload_answer(http: &reqwest::Client, base: &str, token: &str, bytes: &[u8]) -> Answer {
    let response = http
        .post(format!("{base}/api/runs"))
        .bearer_auth(token)
        .header("content-type", "application/octet-stream")
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap_or("").to_string())
    };
    let (retry_after, connection) = (header("retry-after"), header("connection"));
    let status = response.status().as_u16();
    let body = response.json().await.unwrap_or(Value::Null);
    Answer {
        status,
        body,
        retry_after,
        connection,
    }
}

/// The disk under SQLite fills: uploads are refused with 503 (`storage_full`) and
/// Retry-After, never 500; once the filler file is deleted, uploads are accepted again
/// within seconds, by the same process; every 202 is verified and serves its bytes back;
/// `pogo-server check` finds nothing wrong.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_refuses_uploads_with_503_and_heals_when_space_returns() {
    if !root_or_skip("full-disk") {
        return;
    }
    let tmpfs = Tmpfs::mount("6m");
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("server.log");
    let database = format!("sqlite:{}", tmpfs.path().join("pogo.db").display());
    let server = start(&drill_args(&database), &log).await;
    let http = client();
    let token = register(&http, &server.base, "full").await;
    let mut acked: Vec<(i64, Vec<u8>)> = Vec::new();
    let mut seed = 0u32;
    let mut next_run = || {
        seed += 1;
        flat_run("full", seed, 600)
    };
    // Some runs before the disk fills.
    for _ in 0..5 {
        let bytes = next_run();
        let answer = upload_answer(&http, &server.base, &token, &bytes).await;
        assert_eq!(answer.status, 202, "{}", answer.body);
        acked.push((answer.body["id"].as_i64().unwrap(), bytes));
    }
    let filler = tmpfs.path().join("filler");
    let filled = fill(&filler);
    eprintln!("filled the tmpfs with {filled} bytes");
    // Upload until the database refuses (the WAL may still have room for a few).
    let (mut refused, mut storage_full) = (0, 0);
    let full_since = Instant::now();
    let mut time_to_refusal = None;
    for _ in 0..200 {
        let bytes = next_run();
        let answer = upload_answer(&http, &server.base, &token, &bytes).await;
        match answer.status {
            202 => acked.push((answer.body["id"].as_i64().unwrap(), bytes)),
            503 => {
                // SQLITE_FULL; an I/O error on the full disk would be database_unavailable.
                let code = answer.body["error"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                assert!(
                    code == "storage_full" || code == "database_unavailable",
                    "{}",
                    answer.body
                );
                storage_full += usize::from(code == "storage_full");
                assert!(answer.retry_after.is_some(), "503 without Retry-After");
                assert_eq!(answer.connection.as_deref(), Some("close"));
                time_to_refusal.get_or_insert(full_since.elapsed());
                refused += 1;
                if refused == 10 {
                    break;
                }
            }
            other => panic!(
                "disk full: upload answered {other}, not 202 or 503: {}\nthe log's errors:\n{}",
                answer.body,
                log_errors(&log)
            ),
        }
    }
    assert_eq!(refused, 10, "the disk never filled");
    assert!(storage_full > 0, "no refusal said storage_full");
    // Reads still answer while the disk is full.
    let (status, _) = get_json(&http, &format!("{}/api/runs/{}", server.base, acked[0].0)).await;
    assert_eq!(status, 200, "a read while the disk is full");
    // Space returns: the next uploads are accepted by the same process.
    std::fs::remove_file(&filler).unwrap();
    let freed = Instant::now();
    let recovered = loop {
        let bytes = next_run();
        let answer = upload_answer(&http, &server.base, &token, &bytes).await;
        match answer.status {
            202 => {
                acked.push((answer.body["id"].as_i64().unwrap(), bytes));
                break freed.elapsed();
            }
            503 => {}
            other => panic!(
                "after freeing space: {other}: {}\nthe log's errors:\n{}",
                answer.body,
                log_errors(&log)
            ),
        }
        assert!(
            freed.elapsed() < Duration::from_secs(10),
            "uploads still refused 10 s after space returned: {}",
            answer.body
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    // And keep being accepted (no pooled connection left broken).
    for _ in 0..20 {
        let bytes = next_run();
        let answer = upload_answer(&http, &server.base, &token, &bytes).await;
        assert_eq!(answer.status, 202, "after recovery: {}", answer.body);
        acked.push((answer.body["id"].as_i64().unwrap(), bytes));
    }
    for (id, bytes) in &acked {
        let run = verdict(&http, &server.base, *id).await;
        assert_eq!(run["status"], "verified", "run {id}: {run}");
        let served = http
            .get(format!("{}/api/runs/{id}/replay", server.base))
            .send()
            .await
            .unwrap();
        assert_eq!(served.status(), 200);
        assert_eq!(&served.bytes().await.unwrap()[..], &bytes[..], "run {id}");
    }
    eprintln!(
        "FIGURES full disk (SQLite, tmpfs 6 MiB): first 503 {:?} after the filler; {} uploads \
         refused (503, {} of them storage_full); first 202 {:?} after the filler was deleted; {} \
         acknowledged uploads all verified and intact",
        time_to_refusal.unwrap(),
        refused,
        storage_full,
        recovered,
        acked.len()
    );
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        !logged.contains("\"internal error\""),
        "an internal error in the log"
    );
    drop(server);
    let (code, report) = run_check(&database);
    assert_eq!(code, 0, "check after the drill:\n{report}");
    assert!(report.ends_with("ok\n"), "{report}");
    drop(tmpfs);
}

/// A TCP proxy from a loopback port to `upstream`, which the test can cut and restore. Cut,
/// every open connection is dropped and the port is closed (a new connection is refused, as
/// by a stopped PostgreSQL's host); restored, the same port listens again.
struct Proxy {
    port: u16,
    upstream: String,
    /// The accept loop, while not cut.
    accepting: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// Bumped at each cut: the connections of an older generation end.
    generation: Arc<tokio::sync::watch::Sender<u64>>,
}

impl Proxy {
    async fn start(upstream: String) -> Proxy {
        let port = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let proxy = Proxy {
            port,
            upstream,
            accepting: std::sync::Mutex::new(None),
            generation: Arc::new(tokio::sync::watch::channel(0u64).0),
        };
        proxy.restore().await;
        proxy
    }

    fn cut(&self) {
        if let Some(accepting) = self.accepting.lock().unwrap().take() {
            accepting.abort();
        }
        self.generation.send_modify(|g| *g += 1);
    }

    async fn restore(&self) {
        let listener = loop {
            // The port was ours a moment ago; the aborted listener may take a moment to close.
            match tokio::net::TcpListener::bind(("127.0.0.1", self.port)).await {
                Ok(listener) => break listener,
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            }
        };
        let (upstream, generation) = (self.upstream.clone(), self.generation.clone());
        let accepting = tokio::spawn(async move {
            loop {
                let Ok((mut client, _)) = listener.accept().await else {
                    return;
                };
                let upstream = upstream.clone();
                let mut cut = generation.subscribe();
                tokio::spawn(async move {
                    let Ok(mut server) = tokio::net::TcpStream::connect(&upstream).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        _ = cut.changed() => {}
                    }
                });
            }
        });
        *self.accepting.lock().unwrap() = Some(accepting);
    }
}

/// One request on a raw keep-alive connection: the response's status line and headers
/// (lower-cased names), then whether the server closed the connection after it.
fn raw_request(
    stream: &mut std::net::TcpStream,
    request: &str,
    body: &[u8],
) -> (String, Vec<(String, String)>, bool) {
    stream.write_all(request.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut received = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "closed before a response");
        received.extend_from_slice(&buf[..n]);
        if let Some(i) = received.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&received[..head_end]).into_owned();
    let mut lines = head.lines();
    let status = lines.next().unwrap().to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .map_or(0, |(_, v)| v.parse().unwrap());
    while received.len() < head_end + length {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "closed mid-body");
        received.extend_from_slice(&buf[..n]);
    }
    // Closed after the response? (EOF or a reset within 2 s; a timeout: still open.)
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let closed = match stream.read(&mut buf) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => !matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
    };
    (status, headers, closed)
}

/// PostgreSQL becomes unreachable (the proxy cut): `/healthz` says 503 within a second; an
/// upload is refused 503 `database_unavailable` with Retry-After and `Connection: close`, and
/// the server closes that connection; when PostgreSQL is back, the same process accepts
/// uploads again; the run acknowledged before the cut is verified.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_unreachable_gives_503_within_a_second_and_heals() {
    let Some(Backend::Postgres(admin)) = backends().await.into_iter().nth(1) else {
        return;
    };
    let db = TestDb::new(&Backend::Postgres(admin)).await;
    let mut url = reqwest::Url::parse(&db.url).unwrap();
    let upstream = format!("{}:{}", url.host_str().unwrap(), url.port().unwrap_or(5432));
    let proxy = Proxy::start(upstream).await;
    url.set_host(Some("127.0.0.1")).unwrap();
    url.set_port(Some(proxy.port)).unwrap();
    let logs = tempfile::tempdir().unwrap();
    let server = start(&drill_args(url.as_str()), &logs.path().join("server.log")).await;
    let http = client();
    let token = register(&http, &server.base, "away").await;
    let (status, before) = upload(&http, &server.base, &token, &flat_run("away", 1, 600)).await;
    assert_eq!(status, 202, "{before}");
    let before = before["id"].as_i64().unwrap();

    proxy.cut();
    let cut = Instant::now();
    let time_to_503 = loop {
        let response = http
            .get(format!("{}/healthz", server.base))
            .send()
            .await
            .unwrap();
        if response.status() == 503 {
            break cut.elapsed();
        }
        assert_eq!(response.status(), 200);
        assert!(
            cut.elapsed() < Duration::from_secs(1),
            "/healthz still 200 a second after the database went away"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    // Each later probe answers 503 within a second too (no cached answer, no 10 s wait).
    let mut slowest_probe = Duration::ZERO;
    for _ in 0..3 {
        let asked = Instant::now();
        let response = http
            .get(format!("{}/healthz", server.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 503);
        assert_eq!(
            response.headers().get("connection").unwrap(),
            "close",
            "a database 503 closes the connection"
        );
        slowest_probe = slowest_probe.max(asked.elapsed());
    }
    assert!(slowest_probe < Duration::from_secs(1), "{slowest_probe:?}");
    // An upload on a keep-alive connection: 503, Retry-After, Connection: close, closed.
    let bytes = flat_run("away", 2, 600);
    let address = server.base.trim_start_matches("http://").to_string();
    let request = format!(
        "POST /api/runs HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/octet-stream\r\nContent-Length: {}\r\n\
         Connection: keep-alive\r\n\r\n",
        bytes.len()
    );
    let asked = Instant::now();
    let upload_503 = tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(&address).unwrap();
        raw_request(&mut stream, &request, &bytes)
    })
    .await
    .unwrap();
    let time_upload_503 = asked.elapsed();
    let (status_line, headers, closed) = upload_503;
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    assert!(status_line.contains(" 503 "), "{status_line}");
    assert!(header("retry-after").is_some(), "{headers:?}");
    assert_eq!(header("connection"), Some("close"), "{headers:?}");
    assert!(
        closed,
        "the server keeps a connection it said it would close"
    );

    proxy.restore().await;
    let restored = Instant::now();
    let time_to_200 = loop {
        let response = http
            .get(format!("{}/healthz", server.base))
            .send()
            .await
            .unwrap();
        if response.status() == 200 {
            break restored.elapsed();
        }
        assert!(
            restored.elapsed() < Duration::from_secs(10),
            "/healthz still 503 10 s after the database came back"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let (status, after) = upload(&http, &server.base, &token, &flat_run("away", 3, 600)).await;
    assert_eq!(status, 202, "after the database came back: {after}");
    let time_to_202 = restored.elapsed();
    for id in [before, after["id"].as_i64().unwrap()] {
        let run = verdict(&http, &server.base, id).await;
        assert_eq!(run["status"], "verified", "run {id}: {run}");
    }
    eprintln!(
        "FIGURES database away (PostgreSQL behind a cut proxy): /healthz 503 {time_to_503:?} \
         after the cut (each later probe within {slowest_probe:?}); an upload's 503 took \
         {time_upload_503:?}; back: /healthz 200 after {time_to_200:?}, an upload 202 after \
         {time_to_202:?}"
    );
    drop(server);
    db.remove().await;
}

/// Flips bit `bit` of byte `at` of `bytes`.
fn flipped(bytes: &[u8], at: usize, bit: u8) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    bytes[at] ^= 1 << bit;
    bytes
}

/// Damage at rest: one bit flipped in a stored replay's bytes and one in a stored player's
/// name (`ana` → `ala`, the name of another player). `pogo-server check` reports each by its
/// id and exits 1; the server answers the damaged replay's downloads and ghost with
/// `corrupt_replay` (never the bytes), and shows the damaged name as a marker no player can
/// have, never as `ala`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damage_at_rest_is_found_by_check_and_not_served() {
    for backend in backends().await {
        let db = TestDb::new(&backend).await;
        let server = TestServer::start(config(&db)).await;
        let http = &server.http;
        let base = &server.base;
        let ana = register(http, base, "ana").await;
        let ala = register(http, base, "ala").await;
        let mut runs = Vec::new();
        for (token, name, seed) in [(&ana, "ana", 1), (&ana, "ana", 2), (&ala, "ala", 3)] {
            let bytes = flat_run(name, seed, 600);
            let (status, body) = upload(http, base, token, &bytes).await;
            assert_eq!(status, 202, "{body}");
            let id = body["id"].as_i64().unwrap();
            assert_eq!(verdict(http, base, id).await["status"], "verified");
            runs.push((id, bytes));
        }
        let (code, report) = run_check(&db.url);
        assert_eq!(code, 0, "{}: a sound database:\n{report}", backend.name());

        // The damage, written behind the server's back.
        let (damaged_run, damaged_bytes) = &runs[0];
        let hash: [u8; 32] = Sha256::digest(damaged_bytes).into();
        let bad = flipped(damaged_bytes, damaged_bytes.len() / 2, 3);
        let ana_id = corrupt(&db.url, &hash, &bad).await;

        // Not served as data.
        for route in ["replay", "ghost"] {
            let response = http
                .get(format!("{base}/api/runs/{damaged_run}/{route}"))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 500, "{route}");
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["error"], "corrupt_replay", "{route}: {body}");
            assert!(
                body["message"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("run {damaged_run}")),
                "{body}"
            );
        }
        // An intact replay still is.
        let response = http
            .get(format!("{base}/api/runs/{}/replay", runs[2].0))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(&response.bytes().await.unwrap()[..], &runs[2].1[..]);
        // The damaged name is never `ala`.
        let marker = format!("(corrupt name: player {ana_id})");
        for (id, player) in [(runs[0].0, &marker), (runs[1].0, &marker)] {
            let (status, run) = get_json(http, &format!("{base}/api/runs/{id}")).await;
            assert_eq!(status, 200);
            assert_eq!(&run["player"], player.as_str(), "run {id}");
        }
        let (_, run) = get_json(http, &format!("{base}/api/runs/{}", runs[2].0)).await;
        assert_eq!(run["player"], "ala");
        let (status, ghost) = get_json(http, &format!("{base}/api/runs/{}/ghost", runs[1].0)).await;
        assert_eq!(status, 200);
        assert_eq!(ghost["player"], marker.as_str());

        let (code, report) = run_check(&db.url);
        assert_eq!(code, 1, "{}: damage found:\n{report}", backend.name());
        assert!(
            report.contains(&format!("run {damaged_run}: its replay")),
            "{report}"
        );
        assert!(
            report.contains(&format!("player {ana_id}: name")),
            "{report}"
        );
        assert!(
            !report.contains(&format!("run {}:", runs[2].0)),
            "an intact run reported:\n{report}"
        );
        server.stop().await;
        db.remove().await;
    }
}

/// Writes the damage: replay `hash`'s bytes become `bad`; player `ana`'s name becomes `ala`
/// (`n` 0x6e → `l` 0x6c: one bit). Returns ana's id.
async fn corrupt(url: &str, hash: &[u8], bad: &[u8]) -> i64 {
    macro_rules! on {
        ($conn:expr) => {{
            let conn = $conn;
            sqlx::query("UPDATE replays SET bytes = $1 WHERE hash = $2")
                .bind(bad)
                .bind(hash)
                .execute(&mut *conn)
                .await
                .unwrap();
            let row =
                sqlx::query("UPDATE players SET name = 'ala' WHERE name_key = 'ana' RETURNING id")
                    .fetch_one(&mut *conn)
                    .await
                    .unwrap();
            sqlx::Row::get::<i64, _>(&row, 0)
        }};
    }
    if url.starts_with("sqlite:") {
        let mut conn = sqlx::SqliteConnection::connect(url).await.unwrap();
        on!(&mut conn)
    } else {
        let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
        on!(&mut conn)
    }
}

/// A queued run whose stored replay is damaged before a worker claims it is not judged: no
/// verdict on bytes that are not the player's; the log names the run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_replay_is_not_judged() {
    let db = TestDb::new(&Backend::Sqlite).await;
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("server.log");
    let mut idle = drill_args(&db.url);
    let workers = idle.iter().position(|a| a == "--workers").unwrap();
    idle[workers + 1] = "0".into();
    let server = start(&idle, &log).await;
    let http = client();
    let token = register(&http, &server.base, "cat").await;
    let bytes = flat_run("cat", 7, 600);
    let (status, body) = upload(&http, &server.base, &token, &bytes).await;
    assert_eq!(status, 202, "{body}");
    let id = body["id"].as_i64().unwrap();
    drop(server);
    let hash: [u8; 32] = Sha256::digest(&bytes).into();
    let mut conn = sqlx::SqliteConnection::connect(&db.url).await.unwrap();
    sqlx::query("UPDATE replays SET bytes = $1 WHERE hash = $2")
        .bind(flipped(&bytes, 100, 0))
        .bind(&hash[..])
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    let server = start(&drill_args(&db.url), &log).await;
    let line = format!("stored replay of run {id} is corrupt: not verified");
    let started = Instant::now();
    while !std::fs::read_to_string(&log).unwrap().contains(&line) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no log line {line:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (_, run) = get_json(&http, &format!("{}/api/runs/{id}", server.base)).await;
    assert!(
        run["status"] == "queued" || run["status"] == "verifying",
        "judged: {run}"
    );
}

/// PostgreSQL's disk full (SQLSTATE 53100, raised for real by the server) is the same 503
/// `storage_full` as SQLite's; its other resource and connection errors `database_unavailable`;
/// an error in the query itself stays a 500.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_disk_full_is_a_503_storage_full() {
    use pogo_server::error::ApiError;
    use pogo_server::store::StoreError;
    let Some(Backend::Postgres(admin)) = backends().await.into_iter().nth(1) else {
        return;
    };
    let mut conn = sqlx::PgConnection::connect(&admin).await.unwrap();
    for (state, code, status) in [
        ("53100", "storage_full", 503),
        ("53300", "database_unavailable", 503),
        ("57P01", "database_unavailable", 503),
        ("08006", "database_unavailable", 503),
        ("22012", "internal", 500),
    ] {
        let raise =
            format!("DO $$ BEGIN RAISE EXCEPTION 'drill' USING ERRCODE = '{state}'; END $$");
        let e = sqlx::Executor::execute(&mut conn, raise.as_str())
            .await
            .unwrap_err();
        let e = ApiError::from(StoreError::from(e));
        assert_eq!((e.code(), e.status().as_u16()), (code, status), "{state}");
    }
    conn.close().await.unwrap();
}
