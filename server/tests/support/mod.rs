//! What the server's integration tests share: the databases to run against (SQLite always,
//! a real PostgreSQL when `POGO_TEST_POSTGRES_URL` reaches one — required in CI), a server
//! in this process or as the real binary, replays recorded at test time for the current
//! rules, and polling.
#![allow(dead_code)]

pub mod live;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use pogo_core::bot::Bot;
use pogo_core::world::{Aabb, Solid, World, WorldDesc};
use pogo_core::{Fx, Input, Simulation, Tuning, Vec3};
use pogo_replay::{Header, Limits, Recorder, Verifier};
use pogo_server::{Config, Server};
use serde_json::Value;
use sqlx::Connection;
use tokio::sync::oneshot;

/// The variable naming the PostgreSQL the tests use (a role that may create databases).
pub const POSTGRES_URL_VAR: &str = "POGO_TEST_POSTGRES_URL";

/// How long a test waits for verdicts before failing.
pub const VERDICT_WAIT: Duration = Duration::from_secs(60);

/// A database a test runs against.
#[derive(Clone, Debug)]
pub enum Backend {
    Sqlite,
    Postgres(String),
}

impl Backend {
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres(_) => "postgres",
        }
    }
}

/// SQLite, and PostgreSQL when `POGO_TEST_POSTGRES_URL` is set: a set URL that is not
/// reachable fails the test (it asked for PostgreSQL). Unset, PostgreSQL is skipped: in CI
/// (`CI=true`) that fails the test; elsewhere it is said on stderr (seen with
/// `--nocapture`) and, visibly in plain `cargo test` output, by the ignored test
/// `postgres_tests_skipped_because_POGO_TEST_POSTGRES_URL_is_unset` of `tests/api.rs`
/// (`build.rs`).
pub async fn backends() -> Vec<Backend> {
    let mut backends = vec![Backend::Sqlite];
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    match std::env::var(POSTGRES_URL_VAR) {
        Ok(url) => match sqlx::PgConnection::connect(&url).await {
            Ok(conn) => {
                let _ = conn.close().await;
                backends.push(Backend::Postgres(url));
            }
            Err(e) => panic!(
                "{POSTGRES_URL_VAR}={url} is not reachable: {e}. Start one with: export \
                 {POSTGRES_URL_VAR}=\"$(bash scripts/postgres.sh)\", or unset it to skip \
                 PostgreSQL"
            ),
        },
        Err(_) if ci => panic!("CI: {POSTGRES_URL_VAR} is not set (.ci/run starts PostgreSQL)"),
        Err(_) => eprintln!(
            "\n*** SKIPPING the PostgreSQL half of this test: {POSTGRES_URL_VAR} is not set. \
             Start one with: export {POSTGRES_URL_VAR}=\"$(bash scripts/postgres.sh)\" ***\n"
        ),
    }
    backends
}

/// The PostgreSQL of [`backends`], for a test that needs one database shared by several
/// processes; `None` (the test returns, having checked nothing) where [`backends`] skips it.
pub async fn postgres_backend() -> Option<Backend> {
    backends()
        .await
        .into_iter()
        .find(|b| matches!(b, Backend::Postgres(_)))
}

/// A fresh, empty database of a backend, removed when dropped (SQLite: a temp dir;
/// PostgreSQL: a database of its own on the test server).
pub struct TestDb {
    pub url: String,
    _dir: Option<tempfile::TempDir>,
    postgres: Option<(String, String)>,
}

static DB_COUNTER: AtomicU32 = AtomicU32::new(0);

impl TestDb {
    pub async fn new(backend: &Backend) -> TestDb {
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::Builder::new()
                    .prefix("pogo-server-test-")
                    .tempdir()
                    .unwrap();
                let url = format!("sqlite:{}", dir.path().join("pogo.db").display());
                TestDb {
                    url,
                    _dir: Some(dir),
                    postgres: None,
                }
            }
            Backend::Postgres(admin_url) => {
                let n = DB_COUNTER.fetch_add(1, Ordering::Relaxed);
                let name = format!("pogo_test_{}_{n}", std::process::id());
                let mut conn = sqlx::PgConnection::connect(admin_url).await.unwrap();
                sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                    .execute(&mut conn)
                    .await
                    .unwrap();
                sqlx::query(&format!("CREATE DATABASE {name}"))
                    .execute(&mut conn)
                    .await
                    .unwrap();
                let _ = conn.close().await;
                let (base, _) = admin_url.rsplit_once('/').unwrap();
                TestDb {
                    url: format!("{base}/{name}"),
                    _dir: None,
                    postgres: Some((admin_url.clone(), name)),
                }
            }
        }
    }

    /// Drops a PostgreSQL test database (SQLite's directory goes with the value).
    pub async fn remove(self) {
        if let Some((admin, name)) = &self.postgres {
            if let Ok(mut conn) = sqlx::PgConnection::connect(admin).await {
                let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                    .execute(&mut conn)
                    .await;
                let _ = conn.close().await;
            }
        }
    }
}

/// A test configuration: loopback, no rate limits to speak of and no cap on connections per
/// address (every test client is 127.0.0.1, standing for many players: `tests/connections.rs`
/// tests the cap, on the real binary), on `db`; no WebAssembly
/// module (a path that does not exist: the tests do not depend on `scripts/build-wasm.sh`
/// having run, nor gzip the real module at every start; `tests/web.rs` serves its own).
pub fn config(db: &TestDb) -> Config {
    Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        database: db.url.clone(),
        wasm: Some(std::env::temp_dir().join("pogo-server-tests-no-wasm/pogo_ffi.wasm")),
        workers: Some(2),
        token_rate: 10_000,
        token_burst: 10_000,
        address_rate: 100_000,
        address_burst: 100_000,
        connections_per_address_max: 0,
        // The popular tracks recounted each second (a test waits for the count).
        tracks_popular_every_s: 1,
        ..Config::defaults()
    }
}

/// The flags that lift a server process's rate limits out of a test's way (its requests come
/// from one loopback address and a few tokens, many a second).
pub const NO_RATE_LIMITS: [&str; 8] = [
    "--token-rate",
    "100000",
    "--token-burst",
    "100000",
    "--address-rate",
    "100000",
    "--address-burst",
    "100000",
];

/// A server running in this process, on an ephemeral loopback port.
pub struct TestServer {
    pub base: String,
    pub http: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl TestServer {
    pub async fn start(config: Config) -> TestServer {
        let server = Server::open(&config).await.unwrap();
        let listener = tokio::net::TcpListener::bind(config.listen).await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            server
                .run(listener, async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
        });
        TestServer {
            base,
            http: client(),
            stop: Some(stop),
            task,
        }
    }

    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        tokio::time::timeout(Duration::from_secs(30), &mut self.task)
            .await
            .expect("the server stops within 30 s")
            .unwrap();
    }
}

/// An HTTP client for loopback tests (bounded timeouts, no proxy; an idle pooled connection
/// is let go well before the server's idle timeout, so a request never races its close).
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(60))
        .pool_idle_timeout(Duration::from_secs(4))
        .build()
        .unwrap()
}

/// The real `pogo-server` binary, as an operator starts it.
pub struct ServerProcess {
    pub base: String,
    pub child: Arc<std::sync::Mutex<Child>>,
    pub log: PathBuf,
}

impl ServerProcess {
    /// Starts the binary with `args` (plus `--listen` on a free loopback port and JSON
    /// logs to `log`) and waits until `/healthz` answers.
    pub async fn start(args: &[&str], log: &Path) -> ServerProcess {
        ServerProcess::start_at(args, log, free_port()).await
    }

    /// [`start`](Self::start) on loopback port `port` (a restart at the same address: the
    /// same home for its live rooms).
    pub async fn start_at(args: &[&str], log: &Path, port: u16) -> ServerProcess {
        let log_file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .unwrap();
        let child = Command::new(server_binary())
            .args(args)
            .args([
                "--listen",
                &format!("127.0.0.1:{port}"),
                "--log-format",
                "json",
            ])
            .env("RUST_LOG", "info")
            .env_remove("ADMIN_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log_file)
            .spawn()
            .unwrap();
        let base = format!("http://127.0.0.1:{port}");
        let http = client();
        let started = Instant::now();
        loop {
            if let Ok(r) = http.get(format!("{base}/healthz")).send().await {
                if r.status() == 200 {
                    break;
                }
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the server did not start; log: {}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ServerProcess {
            base,
            child: Arc::new(std::sync::Mutex::new(child)),
            log: log.to_path_buf(),
        }
    }

    /// The loopback port it listens on.
    pub fn port(&self) -> u16 {
        self.base
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or(0)
    }

    /// Sends SIGTERM and waits (at most `within`) for the process to exit: how long it took,
    /// or `None` if it was still running (then it is killed).
    pub fn terminate(&self, within: Duration) -> Option<Duration> {
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        let pid = child.id().to_string();
        let sent = Instant::now();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        while sent.elapsed() < within {
            if let Ok(Some(_)) = child.try_wait() {
                return Some(sent.elapsed());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
        None
    }

    /// Sends the process a signal with `kill` (`-STOP` pauses it, `-CONT` resumes it).
    pub fn signal(&self, name: &str) {
        let pid = self.child.lock().unwrap().id().to_string();
        let status = std::process::Command::new("kill")
            .args([name, &pid])
            .status()
            .unwrap();
        assert!(status.success(), "kill {name} {pid}");
    }

    /// A function that SIGKILLs the process (no shutdown, no flushing, nothing) and reaps it;
    /// callable from any thread, any number of times.
    pub fn killer(&self) -> impl Fn() + Send + Sync + 'static {
        let child = self.child.clone();
        move || {
            let mut child = child.lock().unwrap_or_else(|p| p.into_inner());
            if let Ok(None) = child.try_wait() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.killer()();
    }
}

/// The binary [`ServerProcess`] starts: this build's, or the one `POGO_TEST_SERVER_BIN` names
/// (to see a drill fail against an older build).
pub fn server_binary() -> PathBuf {
    std::env::var_os("POGO_TEST_SERVER_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_pogo-server")))
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Registers `name`; returns the token.
pub async fn register(http: &reqwest::Client, base: &str, name: &str) -> String {
    let response = http
        .post(format!("{base}/api/players"))
        .json(&serde_json::json!({ "name": name }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201, "registering {name}");
    let body: Value = response.json().await.unwrap();
    body["token"].as_str().unwrap().to_string()
}

/// Uploads replay bytes with a token; returns the status and the JSON body.
pub async fn upload(http: &reqwest::Client, base: &str, token: &str, bytes: &[u8]) -> (u16, Value) {
    upload_to(http, &format!("{base}/api/runs"), token, bytes).await
}

/// [`upload`] to a given URL (`/api/runs` with a query, say).
pub async fn upload_to(
    http: &reqwest::Client,
    url: &str,
    token: &str,
    bytes: &[u8],
) -> (u16, Value) {
    let response = http
        .post(url)
        .bearer_auth(token)
        .header("content-type", "application/octet-stream")
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let body = response.json().await.unwrap_or(Value::Null);
    (status, body)
}

/// GET a JSON document; returns the status and the body.
pub async fn get_json(http: &reqwest::Client, url: &str) -> (u16, Value) {
    let response = http.get(url).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Polls a run until it is verified or rejected; returns its status document.
pub async fn verdict(http: &reqwest::Client, base: &str, id: i64) -> Value {
    let started = Instant::now();
    loop {
        let (status, run) = get_json(http, &format!("{base}/api/runs/{id}")).await;
        assert_eq!(status, 200, "run {id}: {run}");
        if run["status"] == "verified" || run["status"] == "rejected" {
            return run;
        }
        assert!(
            started.elapsed() < VERDICT_WAIT,
            "no verdict for run {id}: {run}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The verifier the server runs by default (built-in levels plus `levels`, default tuning).
pub fn verifier(levels: Vec<WorldDesc>) -> Verifier {
    Verifier::new(Tuning::default(), levels, Limits::default()).and_builtin_levels()
}

/// Records a single-player run of `desc` under `name` for the current rules: `input` picks
/// each tick's input from the state so far; stops after `ticks` ticks or, if
/// `stop_at_finish`, on the tick after the finish.
pub fn record(
    desc: &WorldDesc,
    name: &str,
    ticks: u32,
    stop_at_finish: bool,
    mut input: impl FnMut(u32, &Simulation) -> Input,
) -> Vec<u8> {
    let tuning = Tuning::default();
    let world = World::new(desc.clone(), &tuning).unwrap();
    let mut sim = Simulation::new(Arc::new(world), tuning, 1).unwrap();
    let header = Header::for_simulation(&sim, Some(name.to_string()), None);
    let mut recorder = Recorder::new(Vec::new(), header).unwrap();
    for tick in 0..ticks {
        let this = input(tick, &sim);
        sim.step(&[this]);
        recorder.record(&[this], || sim.state_hash()).unwrap();
        if stop_at_finish && sim.state().pogos[0].finish_tick.is_some() {
            break;
        }
    }
    recorder.finish_simulation(&sim).unwrap()
}

/// The demo bot's run of a level (to the finish, at most `ticks`), under `name`.
pub fn bot_run(level: &str, name: &str, ticks: u32) -> Vec<u8> {
    let desc = pogo_replay::builtin_level(level).unwrap();
    let mut bot = Bot::new();
    let tuning = Tuning::default();
    record(&desc, name, ticks, true, |_, sim| {
        bot.input(sim.world(), &tuning, &sim.state().pogos[0])
    })
}

/// A short level for ranking tests: a ground slab, the finish a tall box 12 m east of the
/// spawn; holding the stick east at different strengths finishes at different ticks.
pub fn sprint_level() -> WorldDesc {
    let m = Fx::from_int;
    WorldDesc {
        name: "sprint".into(),
        spawn: Vec3::ZERO,
        solids: vec![Solid {
            bounds: Aabb::new(
                Vec3::new(m(-20), m(-1), m(-20)),
                Vec3::new(m(60), m(0), m(20)),
            ),
            no_bounce: false,
        }],
        finishes: vec![Aabb::new(
            Vec3::new(m(12), m(-1), m(-20)),
            Vec3::new(m(14), m(30), m(20)),
        )],
        ..WorldDesc::default()
    }
}

/// A run of [`sprint_level`] holding the stick east at `steer_x`, under `name`.
pub fn sprint_run(name: &str, steer_x: i8) -> Vec<u8> {
    record(&sprint_level(), name, 3600, true, |_, _| Input {
        steer_x,
        ..Input::default()
    })
}

/// A short unfinished run of `flat` whose inputs are a function of `seed` (distinct seeds,
/// distinct bytes), under `name`.
pub fn flat_run(name: &str, seed: u32, ticks: u32) -> Vec<u8> {
    let desc = pogo_replay::builtin_level("flat").unwrap();
    let stick = |v: u32| (v % 255) as i32 - 127;
    record(&desc, name, ticks, false, |tick, _| Input {
        steer_x: stick(seed.wrapping_mul(2_654_435_761).rotate_left(tick / 30)) as i8,
        steer_z: stick(seed.wrapping_mul(40_503).rotate_left(tick / 45)) as i8,
        ..Input::default()
    })
}

/// A box spanning x = `x0`…`x1` m, the whole width of a [`track`], from 1 m below the ground
/// to 30 m above it.
pub fn gate(x0: i32, x1: i32) -> Aabb {
    let m = Fx::from_int;
    Aabb::new(
        Vec3::new(m(x0), m(-1), m(-20)),
        Vec3::new(m(x1), m(30), m(20)),
    )
}

/// A straight track east: a ground slab to x = `length` m, a checkpoint gate at each of
/// `checkpoints` (2 m deep, its spawn in its middle), the finish gate at `finish`.
pub fn track(name: &str, length: i32, checkpoints: &[i32], finish: i32) -> WorldDesc {
    let m = Fx::from_int;
    WorldDesc {
        name: name.into(),
        spawn: Vec3::ZERO,
        solids: vec![Solid {
            bounds: Aabb::new(
                Vec3::new(m(-20), m(-1), m(-20)),
                Vec3::new(m(length), m(0), m(20)),
            ),
            no_bounce: false,
        }],
        checkpoints: checkpoints
            .iter()
            .map(|&x| pogo_core::world::Checkpoint {
                bounds: gate(x, x + 2),
                spawn: Vec3::new(m(x + 1), m(0), m(0)),
            })
            .collect(),
        finishes: vec![gate(finish, finish + 2)],
        ..WorldDesc::default()
    }
}

/// A config serving `levels` (written as files into `dir`) on `db`.
pub fn config_with_levels(db: &TestDb, dir: &Path, levels: &[WorldDesc]) -> Config {
    let mut config = config(db);
    config.levels = levels
        .iter()
        .map(|level| {
            let file = dir.join(format!("{}.json", level.name));
            std::fs::write(&file, pogo_replay::level_to_json(level)).unwrap();
            file
        })
        .collect();
    config
}

/// The path of a file in the repository.
pub fn repo_file(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

/// How many of this process's threads have a name starting with `prefix` (Linux: each
/// thread's `/proc/self/task/TID/comm`).
#[cfg(target_os = "linux")]
pub fn threads_named(prefix: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with(prefix))
        .count()
}
