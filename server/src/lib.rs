//! # pogo-server
//!
//! The ghost-racing leaderboard service: players upload replays, the server re-simulates
//! each one and ranks it only on what the re-simulation shows, and serves the verified runs
//! back as ghosts. `GET /api/openapi.json` is the API's contract.
//!
//! ## How it works
//!
//! 1. An upload (`POST /api/runs`, a player's bearer token, the replay's bytes) is checked
//!    without simulating anything — token, rate limits, size, every checksum and record, a
//!    single player under the token's name, a level/tuning/rules this server runs — then
//!    stored with a queued run in one committed transaction and answered 202 ([`api::runs`]).
//! 2. Workers ([`worker`]) claim queued runs from the database in batches under a lease,
//!    re-simulate each with [`pogo_replay::Verifier`] on a blocking thread, within the
//!    operator's budget, and write the batch's verdicts in one transaction, each once, under
//!    its claim. Several server processes on one
//!    PostgreSQL database share the queue (`FOR UPDATE SKIP LOCKED`); a claim whose process
//!    died is taken over when its lease expires.
//! 3. Leaderboards ([`api::leaderboard`]) rank the verified finish ticks, one entry per
//!    player; ghosts ([`api::trajectory`]) re-simulate a verified run for its trajectory.
//! 4. A board is a level's content under one tuning and rules version: changing the level
//!    file, the tuning or the rules starts a new **season** ([`season`]); past seasons stay
//!    readable ([`api::seasons`], `?season=` on the leaderboard and the export), and
//!    `pogo-server reverify` ([`reverify`]) files their runs that still verify under the
//!    running rules on the current board, without touching the old one.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let config = pogo_server::Config::defaults();
//! let listener = tokio::net::TcpListener::bind(config.listen).await?;
//! let server = pogo_server::Server::open(&config).await?;
//! server.run(listener, async { let _ = tokio::signal::ctrl_c().await; }).await?;
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]
// No function over 120 lines (blank lines and comments aside; the threshold is clippy.toml's).
#![warn(clippy::too_many_lines)]

pub mod api;
pub mod auth;
pub mod catalog;
pub mod check;
pub mod config;
pub mod error;
pub mod lanes;
pub mod limits;
pub mod live;
pub mod metrics;
pub mod openapi;
pub mod realtime;
pub mod reverify;
pub mod season;
pub mod serve;
pub mod shutdown;
pub mod state;
pub mod store;
pub mod times;
pub mod verdict;
pub mod web;
pub mod worker;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use pogo_core::Tuning;
use pogo_core::world::World;
use pogo_replay::{LEVEL_FILE_BYTES_MAX, Limits, TUNING_FILE_BYTES_MAX};
use tokio::net::TcpListener;
use tokio::sync::{Notify, Semaphore};
use tokio::task::JoinHandle;

pub use config::Config;
pub use state::AppState;

use catalog::Catalog;
use limits::{GHOSTS_IN_FLIGHT_MAX, RateLimits, UPLOADS_IN_FLIGHT_MAX};
use shutdown::{Shutdown, Stop};
use state::Shared;
use store::Store;
use worker::Workers;

/// How often idle rate-limit keys are forgotten.
const RATE_LIMIT_SWEEP_INTERVAL: Duration = Duration::from_secs(60);
/// How often the server reads the board change feed without being asked (a read also does).
const RANKS_KEEP_UP_INTERVAL: Duration = Duration::from_secs(1);

/// Why the server could not start or stopped.
#[derive(Debug)]
pub enum ServerError {
    /// A bad flag, level file or tuning file (the message names it).
    Config(String),
    Store(store::StoreError),
    /// The PostgreSQL database at `address` (`host:port`) could not be opened.
    Postgres {
        address: String,
        error: store::StoreError,
    },
    Io(std::io::Error),
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServerError::Config(e) => f.write_str(e),
            ServerError::Store(e) => e.fmt(f),
            ServerError::Postgres { address, error } => {
                write!(f, "PostgreSQL at {address}: {error}")
            }
            ServerError::Io(e) => write!(f, "I/O: {e}"),
        }
    }
}

impl std::error::Error for ServerError {}

/// A server ready to serve: configuration checked, levels and tuning loaded, the database
/// open and migrated.
#[derive(Debug)]
pub struct Server {
    /// The handlers'.
    state: AppState,
    /// The verification workers'.
    workers: Arc<Workers>,
    /// Begins the stop (`AppState::stopping` is its listener).
    stop: Stop,
    /// The connections' limits and the stop deadline.
    limits: serve::ConnectionLimits,
    /// How often the popular tracks are recounted (`--tracks-popular-every-s`).
    popular_every: Duration,
}

impl Server {
    /// Checks the configuration, loads the tuning and level files, opens the database.
    pub async fn open(config: &Config) -> Result<Server, ServerError> {
        config.check().map_err(ServerError::Config)?;
        let tuning = load_tuning(config)?;
        let levels = load_levels(config, &tuning)?;
        // The verifier's limits: the server's flags, one for one.
        let ticks_max = config.player_ticks_max;
        let limits = Limits {
            ticks_max: u32::try_from(ticks_max).unwrap_or(u32::MAX),
            player_ticks_max: ticks_max,
            hash_interval_s_max: config.hash_interval_s_max,
            duration_max: Some(config.duration_max()),
        };
        let catalog = Arc::new(Catalog::new(tuning, levels, limits));
        // Build every level's world now (sprawl's takes a moment), not in the first request
        // that names it.
        let warm = catalog.clone();
        tokio::task::spawn_blocking(move || {
            for level in warm.levels() {
                warm.verifier().world(&level.name);
            }
        })
        .await
        .map_err(|e| ServerError::Config(format!("building the levels: {e}")))?;
        let database = config.database_url();
        let store = Store::open(&database)
            .await
            .map_err(|error| match &database {
                config::DatabaseUrl::Postgres(url) => ServerError::Postgres {
                    address: store::postgres_address(url),
                    error,
                },
                config::DatabaseUrl::Sqlite(_) => ServerError::Store(error),
            })?;
        // Before the first request is planned: a read planned without statistics on a big
        // board can take seconds (`store::statistics`); gathering them takes one at most.
        gather_statistics(&store, true).await;
        let instance = {
            let mut bytes = [0u8; 6];
            getrandom::fill(&mut bytes).map_err(|e| ServerError::Config(e.to_string()))?;
            format!("{}-{}", std::process::id(), auth::hex(&bytes))
        };
        let slack_ms = i64::try_from(config.ticket_slack_ms).unwrap_or(i64::MAX);
        let live = Arc::new(live::LiveContext::new(
            store.clone(),
            catalog.clone(),
            slack_ms,
            config.live_settings(),
        ));
        if let Some(url) = &config.advertise_url {
            let _ = live.home.set(url.trim_end_matches('/').to_string());
        }
        let metrics = Arc::new(metrics::Metrics::new());
        let work = Arc::new(Notify::new());
        let workers = Arc::new(Workers {
            store: store.clone(),
            catalog: catalog.clone(),
            metrics: metrics.clone(),
            instance,
            count: config.workers(),
            lease: config.lease(),
            verify_batch: config.verify_batch,
            ticket_slack_ms: slack_ms,
            work: work.clone(),
        });
        let stop = Stop::new();
        let state = AppState(Arc::new(Shared {
            store,
            catalog,
            metrics,
            rates: RateLimits::new(
                config.token_rate,
                config.token_burst,
                config.address_rate,
                config.address_burst,
            ),
            admin: config.admin_token.as_deref().map(auth::AdminToken::new),
            workers: workers.count,
            queue_max: config.queue_max,
            upload_limit: limits::upload_body_limit(ticks_max),
            work,
            uploads: Semaphore::new(UPLOADS_IN_FLIGHT_MAX),
            ghosts: Semaphore::new(GHOSTS_IN_FLIGHT_MAX),
            wasm: Arc::new(web::WasmModules::new(config.wasm.clone())),
            ticket_rate: limits::TicketRate::new(),
            ticket_slack_ms: slack_ms,
            live,
            stopping: stop.subscribe(),
        }));
        state.wasm.log_at_start().await;
        Ok(Server {
            state,
            workers,
            stop,
            limits: config.connection_limits(),
            popular_every: Duration::from_secs(config.tracks_popular_every_s),
        })
    }

    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Serves HTTP on `listener` and runs the verification workers until `shutdown`
    /// completes; then stops, within the stop deadline (`--stop-deadline-s`) whatever clients
    /// do: it stops accepting connections, refuses new uploads, rooms and tickets (503), tells
    /// the live rooms, and at once lets open requests finish and each worker finish the runs
    /// it holds; what is still open [`limits::STOP_RESERVE`] before the deadline is dropped
    /// (a worker's claims then expire and are taken over, as after a crash). Then it stops
    /// the background tasks and closes the database, each within half the reserve.
    pub async fn run(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServerError> {
        let Server {
            state,
            workers,
            stop,
            limits,
            popular_every,
        } = self;
        // Two stops besides the server's own: the workers (at the stop's beginning), then the
        // rest (once serving has ended).
        let (stop_workers, stop_tasks) = (Stop::new(), Stop::new());
        let verifying = worker::spawn(&workers, &stop_workers.subscribe());
        let quick_check = tokio::spawn(check::at_start(state.store.clone()));
        let tasks = [
            tokio::spawn(forget_idle_rates(state.clone(), stop_tasks.subscribe())),
            tokio::spawn(keep_ranks_up(state.clone(), stop_tasks.subscribe())),
            tokio::spawn(keep_statistics(state.clone(), stop_tasks.subscribe())),
            tokio::spawn(count_popular_tracks(
                state.clone(),
                popular_every,
                stop_tasks.subscribe(),
            )),
            tokio::spawn(live::write_rooms(
                state.live.clone(),
                stop_tasks.subscribe(),
            )),
            tokio::spawn(live::journal::write(
                state.live.clone(),
                stop_tasks.subscribe(),
            )),
            tokio::spawn(live::filer::write(
                state.live.clone(),
                stop_tasks.subscribe(),
            )),
        ];
        let address = listener.local_addr().map_err(ServerError::Io)?;
        let _ = state.live.home.set(default_home(address));
        // The rooms this process held before a restart, and any whose home is gone.
        let taking_up = tokio::spawn(live::take_up_rooms(
            state.live.clone(),
            state.live.shutdown.subscribe(),
        ));
        tracing::info!(
            address = %address,
            home = %state.live.home(),
            database = state.store.backend(),
            workers = state.workers,
            upload_limit = state.upload_limit,
            instance = %workers.instance,
            header_read_timeout_s = limits.header_read_timeout.as_secs(),
            connections_per_address_max = limits.per_address_max,
            stop_deadline_s = limits.stop_deadline.as_secs(),
            "serving"
        );
        // Until the reserve: what is open then is dropped.
        let drain = limits.stop_deadline.saturating_sub(limits::STOP_RESERVE);
        let app = api::router(state.clone()).layer(axum::middleware::from_fn_with_state(
            state.stopping.clone(),
            serve::stopping_layer,
        ));
        let begin = {
            let live = state.live.clone();
            async move {
                shutdown.await;
                tracing::info!("stopping");
                stop.begin();
                // The rooms close their WebSockets (upgraded connections are not the HTTP
                // server's to wait for), the workers finish what they hold.
                live.shutdown.begin();
                stop_workers.begin();
            }
        };
        let mut stopping = state.stopping.clone();
        let workers_done = async move {
            stopping.recv().await;
            let done = async {
                join(verifying).await;
                let _ = taking_up.await;
            };
            if tokio::time::timeout(drain, done).await.is_err() {
                tracing::warn!(
                    "stop deadline: workers still verifying, or rooms still being taken up, \
                     are left (their claims expire and are taken over)"
                );
            }
        };
        tokio::join!(
            begin,
            serve::serve(listener, app, limits, drain, state.stopping.clone()),
            workers_done
        );
        tracing::info!("stopping: the connections are closed and the workers done");
        let half_reserve = limits::STOP_RESERVE / 2;
        stop_tasks.begin();
        if tokio::time::timeout(half_reserve, join(tasks))
            .await
            .is_err()
        {
            tracing::warn!("stop deadline: background tasks left running");
        }
        quick_check.abort();
        if tokio::time::timeout(half_reserve, state.store.close())
            .await
            .is_err()
        {
            tracing::warn!("stop deadline: the database did not close in time");
        }
        Ok(())
    }
}

/// Waits for every task (one that panicked is past waiting for).
async fn join(tasks: impl IntoIterator<Item = JoinHandle<()>>) {
    for task in tasks {
        let _ = task.await;
    }
}

/// Forgets idle rate-limit keys every [`RATE_LIMIT_SWEEP_INTERVAL`] until `stop`.
async fn forget_idle_rates(state: AppState, mut stop: Shutdown) {
    loop {
        tokio::select! {
            () = tokio::time::sleep(RATE_LIMIT_SWEEP_INTERVAL) => {}
            () = stop.recv() => return,
        }
        state.rates.forget_idle();
        state.ticket_rate.forget_idle();
    }
}

/// The base URL other processes reach this one at when `--advertise-url` is not given:
/// `http://` and the listening address (loopback for an unspecified one: one machine).
fn default_home(address: SocketAddr) -> String {
    let ip = if address.ip().is_unspecified() {
        std::net::IpAddr::from([127, 0, 0, 1])
    } else {
        address.ip()
    };
    format!("http://{}", SocketAddr::new(ip, address.port()))
}

/// Builds the rank index of every level's current boards, then reads the board change feed
/// every [`RANKS_KEEP_UP_INTERVAL`], so that reads find little to apply and the index never
/// goes stale (`store::ranks`), until `stop` (a build or read under way is dropped).
async fn keep_ranks_up(state: AppState, mut stop: Shutdown) {
    let boards: Vec<store::Board> = state
        .catalog
        .levels()
        .flat_map(|level| {
            [store::Category::Open, store::Category::RealTime]
                .map(|category| state.catalog.board(level, category))
        })
        .collect();
    let keep_up = async {
        loop {
            if let Err(e) = state.store.boards().keep_ranks_up(&boards).await {
                tracing::warn!(error = %e, "cannot read the board change feed");
            }
            tokio::time::sleep(RANKS_KEEP_UP_INTERVAL).await;
        }
    };
    tokio::select! {
        () = keep_up => {}
        () = stop.recv() => {}
    }
}

/// Keeps the query planner's statistics up to date every [`limits::STATISTICS_EVERY`] (the
/// first round ran before serving: `Server::new`), until `stop`.
async fn keep_statistics(state: AppState, mut stop: Shutdown) {
    let keep = async {
        loop {
            tokio::time::sleep(limits::STATISTICS_EVERY).await;
            gather_statistics(&state.store, false).await;
        }
    };
    tokio::select! {
        () = keep => {}
        () = stop.recv() => {}
    }
}

/// One round of `store::statistics`, logged: what was analyzed, and (the round at start,
/// `at_start`) that PostgreSQL's autovacuum is off.
async fn gather_statistics(store: &store::Store, at_start: bool) {
    match store.keep_statistics().await {
        Ok(gathered) => {
            if !gathered.analyzed.is_empty() {
                tracing::info!(
                    tables = %gathered.analyzed.join("; "),
                    ms = gathered.ms,
                    "planner statistics gathered"
                );
            }
            if gathered.autovacuum == Some(false) && at_start {
                tracing::warn!(
                    "PostgreSQL's autovacuum is off: the planner's statistics are not kept up \
                     as the boards grow; run ANALYZE after large changes"
                );
            }
        }
        Err(e) => tracing::warn!(error = %e, "cannot gather the planner's statistics"),
    }
}

/// Recounts the most raced tracks of the last 7 days every `every`, from the start: what
/// `GET /api/tracks?sort=popular` lists (migration 0018).
async fn count_popular_tracks(state: AppState, every: Duration, mut stop: Shutdown) {
    let count = async {
        loop {
            let since = times::now_ms() - limits::TRACK_POPULAR_WINDOW_MS;
            let started = std::time::Instant::now();
            match state
                .store
                .tracks()
                .count_popular(since, limits::TRACKS_POPULAR_MAX)
                .await
            {
                Ok(held) => tracing::debug!(
                    held,
                    took_ms = started.elapsed().as_millis() as u64,
                    "popular tracks recounted"
                ),
                Err(e) => tracing::warn!(error = %e, "cannot recount the popular tracks"),
            }
            tokio::time::sleep(every).await;
        }
    };
    tokio::select! {
        () = count => {}
        () = stop.recv() => {}
    }
}

fn load_tuning(config: &Config) -> Result<Tuning, ServerError> {
    let mut spec = pogo_core::TuningSpec::default();
    if let Some(path) = &config.tuning {
        let text = read_text(path, TUNING_FILE_BYTES_MAX)?;
        pogo_replay::apply_tuning_json(&mut spec, &text)
            .map_err(|e| ServerError::Config(format!("--tuning {}: {e}", path.display())))?;
    }
    Tuning::new(spec).map_err(|e| ServerError::Config(format!("invalid tuning: {e}")))
}

fn load_levels(
    config: &Config,
    tuning: &Tuning,
) -> Result<Vec<pogo_core::world::WorldDesc>, ServerError> {
    let mut levels = Vec::new();
    for path in &config.levels {
        let text = read_text(path, LEVEL_FILE_BYTES_MAX)?;
        let name = path.display();
        let desc = pogo_replay::parse_level_json(&text)
            .map_err(|e| ServerError::Config(format!("--level {name}: {e}")))?;
        World::new(desc.clone(), tuning)
            .map_err(|e| ServerError::Config(format!("--level {name}: {e}")))?;
        levels.push(desc);
    }
    Ok(levels)
}

/// Reads a text file of at most `max` bytes.
fn read_text(path: &std::path::Path, max: usize) -> Result<String, ServerError> {
    use std::io::Read;
    let name = path.display();
    let file = std::fs::File::open(path)
        .map_err(|e| ServerError::Config(format!("{name}: cannot open: {e}")))?;
    let mut text = String::new();
    file.take(max as u64 + 1)
        .read_to_string(&mut text)
        .map_err(|e| ServerError::Config(format!("{name}: cannot read: {e}")))?;
    if text.len() > max {
        return Err(ServerError::Config(format!(
            "{name}: larger than the {max}-byte limit"
        )));
    }
    Ok(text)
}
