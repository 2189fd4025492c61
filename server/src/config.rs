//! The server's configuration: its flags (`--listen`, `--database`, `--level`,
//! `--tuning`, `--wasm`) and the operator's limits, each also settable by an environment variable
//! (`POGO_…`; a flag wins over the variable). The admin token comes from the environment
//! only (`ADMIN_TOKEN`), never from a flag, so it does not show in `ps`.
//!
//! Limits are named with the qualifier last, `*_max` (as everywhere in the project):
//! `--player-ticks-max`, `--hash-interval-max`, `--duration-ms-max`, `--queue-max`. The first
//! three were once `--max-player-ticks`, `--max-hash-interval` and `--max-duration-ms`
//! (`POGO_MAX_…`); those spellings are still accepted, as flags and as variables.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use std::ffi::OsString;
use std::str::FromStr;

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser, ValueEnum};

/// Shortest admin token accepted: 16 characters is 64+ bits for any reasonable generator
/// (`openssl rand -hex 16` gives 32). A shorter one is a configuration error, not a warning.
pub const ADMIN_TOKEN_CHARS_MIN: usize = 16;

/// Largest `--ticket-slack-ms`: a minute.
pub const TICKET_SLACK_MS_MAX: u64 = 60_000;

/// `pogo-server`: the ghost-racing leaderboard service. Players upload replays, the server
/// re-simulates each one and ranks it only on what the re-simulation shows, and serves the
/// verified runs back as ghosts.
#[derive(Clone, Debug, Parser)]
#[command(name = "pogo-server", version, about)]
pub struct Config {
    /// Address to listen on.
    #[arg(long, env = "POGO_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Database: `postgres://…` (or `postgresql://…`) for PostgreSQL; anything else is a
    /// SQLite file (a path, or `sqlite:PATH`), created with its schema if missing.
    #[arg(long, env = "POGO_DATABASE", default_value = "pogo.db", global = true)]
    pub database: String,
    /// A level JSON file runs may be of, besides the built-in levels (it replaces a built-in
    /// level of the same name). May be repeated (comma-separated in the variable).
    #[arg(
        long = "level",
        value_name = "FILE",
        env = "POGO_LEVELS",
        value_delimiter = ',',
        global = true
    )]
    pub levels: Vec<PathBuf>,
    /// Tuning file (JSON) the server verifies with (default: the default tuning).
    #[arg(long, value_name = "FILE", env = "POGO_TUNING", global = true)]
    pub tuning: Option<PathBuf>,
    /// The page's WebAssembly module (pogo-ffi built by `bash scripts/build-wasm.sh`), served
    /// at `/web/pogo_ffi.wasm`. Default: the first that exists of
    /// `<the executable's directory>/../wasm32-unknown-unknown/wasm-release/pogo_ffi.wasm`
    /// (the same target directory as this build) and the workspace's
    /// `target/wasm32-unknown-unknown/wasm-release/pogo_ffi.wasm`. Looked for on each request
    /// and read again when it changes: building it while the server runs needs no restart.
    #[arg(long, value_name = "FILE", env = "POGO_WASM")]
    pub wasm: Option<PathBuf>,
    /// Verification workers (batches verifying at once), default one per core. They verify on
    /// the queue lane's threads (one a core, on what the live relay leaves idle: `lanes.rs`), so
    /// more workers than cores add no verifications at once. 0: this process serves the API
    /// and verifies nothing (another process on the same PostgreSQL database does).
    #[arg(long, value_name = "N", env = "POGO_WORKERS")]
    pub workers: Option<usize>,
    /// Longest run accepted, in ticks (the verifier's player-tick budget for one
    /// single-player run; default 216000, one hour at 60 Hz). The request body limit is
    /// derived from it. Also `--max-player-ticks`, `POGO_MAX_PLAYER_TICKS` (old spellings).
    #[arg(
        long,
        alias = "max-player-ticks",
        value_name = "N",
        env = "POGO_PLAYER_TICKS_MAX",
        default_value_t = 216_000,
        global = true
    )]
    pub player_ticks_max: u64,
    /// Longest stretch of play between two stored state hashes a replay may have, in
    /// seconds (1 to 10). Also `--max-hash-interval`, `POGO_MAX_HASH_INTERVAL` (old
    /// spellings).
    #[arg(
        long = "hash-interval-max",
        alias = "max-hash-interval",
        value_name = "SECONDS",
        env = "POGO_HASH_INTERVAL_MAX",
        default_value_t = 1,
        global = true
    )]
    pub hash_interval_s_max: u32,
    /// Wall-clock bound on one verification, in milliseconds (a run over it is rejected
    /// `out_of_time`). Also `--max-duration-ms`, `POGO_MAX_DURATION_MS` (old spellings).
    #[arg(
        long,
        alias = "max-duration-ms",
        value_name = "MS",
        env = "POGO_DURATION_MS_MAX",
        default_value_t = 10_000,
        global = true
    )]
    pub duration_ms_max: u64,
    /// How long a claim on a run lasts before another worker may take it over (ms); must
    /// exceed the verification bound, with room for the database round trips.
    #[arg(
        long,
        value_name = "MS",
        env = "POGO_LEASE_MS",
        default_value_t = 30_000
    )]
    pub lease_ms: u64,
    /// Runs a worker claims at once (1 to 256): one claim statement and one verdict
    /// transaction per batch. 1 claims run by run.
    #[arg(
        long,
        value_name = "N",
        env = "POGO_VERIFY_BATCH",
        default_value_t = crate::limits::VERIFY_BATCH_RUNS
    )]
    pub verify_batch: u32,
    /// Most runs waiting for verification (in the database, over all servers); an upload
    /// beyond it is answered 503 with Retry-After.
    #[arg(
        long,
        value_name = "N",
        env = "POGO_QUEUE_MAX",
        default_value_t = 10_000
    )]
    pub queue_max: u64,
    /// Uploads per second one token may make, sustained.
    #[arg(
        long,
        value_name = "PER_S",
        env = "POGO_TOKEN_RATE",
        default_value_t = 1
    )]
    pub token_rate: u32,
    /// Uploads one token may make in a burst.
    #[arg(long, value_name = "N", env = "POGO_TOKEN_BURST", default_value_t = 10)]
    pub token_burst: u32,
    /// API requests per second one client address may make, sustained.
    #[arg(
        long,
        value_name = "PER_S",
        env = "POGO_ADDRESS_RATE",
        default_value_t = 20
    )]
    pub address_rate: u32,
    /// API requests one client address may make in a burst.
    #[arg(
        long,
        value_name = "N",
        env = "POGO_ADDRESS_BURST",
        default_value_t = 60
    )]
    pub address_burst: u32,
    /// How much later than GO plus its game time a run ticket's commitment, or a live
    /// racer's message, may reach the server and the run still count as real-time (ms):
    /// network delay and a frame's hiccup must fit in it, and it is all the slowdown a
    /// cheater can bank over a whole run.
    #[arg(
        long,
        value_name = "MS",
        env = "POGO_TICKET_SLACK_MS",
        default_value_t = crate::realtime::SLACK_MS_DEFAULT
    )]
    pub ticket_slack_ms: u64,
    /// How often the most raced tracks of the last 7 days are recounted (s, 1–3600): the
    /// popular list is as old as this at most. A recount reads the window's runs once.
    #[arg(
        long,
        value_name = "S",
        env = "POGO_TRACKS_POPULAR_EVERY_S",
        default_value_t = 60
    )]
    pub tracks_popular_every_s: u64,
    /// This process's base URL as other server processes reach it: a live room made here is
    /// joined through any process, which proxies to it (default: http:// and the address it
    /// listens on).
    #[arg(long, value_name = "URL", env = "POGO_ADVERTISE_URL")]
    pub advertise_url: Option<String>,
    /// Seconds a connection has to send a request's head (request line and headers): its
    /// first from when it is accepted, each next one from the previous response (so it is also
    /// how long an idle kept-alive connection stays open). A WebSocket, once upgraded, is not
    /// subject to it.
    #[arg(
        long,
        value_name = "SECONDS",
        env = "POGO_HEADER_READ_TIMEOUT_S",
        default_value_t = crate::limits::HEADER_READ_TIMEOUT_S_DEFAULT
    )]
    pub header_read_timeout_s: u64,
    /// Connections one client IP address (an IPv6 one by its /64) may hold open at once
    /// (WebSockets included); an extra one is closed unread. 0: no cap (behind a reverse proxy on the same machine
    /// every client has the proxy's address: let the proxy limit them and set 0 or a cap
    /// above its connections).
    #[arg(
        long,
        value_name = "N",
        env = "POGO_CONNECTIONS_PER_ADDRESS_MAX",
        default_value_t = crate::limits::CONNECTIONS_PER_ADDRESS_MAX_DEFAULT
    )]
    pub connections_per_address_max: usize,
    /// Seconds from SIGTERM (or SIGINT) to the process's exit, whatever clients do: new
    /// connections, uploads, rooms and tickets are refused at once (503, `Retry-After`), open
    /// requests and the workers' verifications may finish within it, and what is still open
    /// one second before it is dropped.
    #[arg(
        long,
        value_name = "SECONDS",
        env = "POGO_STOP_DEADLINE_S",
        default_value_t = crate::limits::STOP_DEADLINE_S_DEFAULT
    )]
    pub stop_deadline_s: u64,
    /// Test only: every live-room message waits this many ms on the server's side of the
    /// socket, both ways (plus or minus `--live-test-jitter-ms`), as if the network were slow.
    #[arg(long, hide = true, value_name = "MS")]
    pub live_test_latency_ms: Option<u64>,
    /// Test only: the jitter around `--live-test-latency-ms`.
    #[arg(long, hide = true, value_name = "MS", default_value_t = 0)]
    pub live_test_jitter_ms: u64,
    /// Test only: how long a live racer cut off may take to come back (ms).
    #[arg(long, hide = true, value_name = "MS")]
    pub live_resume_grace_ms: Option<u64>,
    /// Log format on stderr.
    #[arg(long, value_enum, env = "POGO_LOG_FORMAT", default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,
    /// The admin token (from the environment variable `ADMIN_TOKEN` only); enables the admin
    /// routes.
    #[arg(skip)]
    pub admin_token: Option<String>,
    /// A maintenance command instead of serving (the database, level, tuning and limit flags
    /// above apply to it too, before or after its name).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// `pogo-server <COMMAND>`.
#[derive(Clone, Debug, PartialEq, Eq, clap::Subcommand)]
pub enum Command {
    /// Re-verify the past seasons' runs under this binary's rules, tuning and levels: file
    /// those that still verify on the current boards (the old boards stay as they are) and
    /// report those that no longer do, with the verifier's reason. Resumable: what is done is
    /// recorded, and a second run skips it.
    Reverify(ReverifyArgs),
    /// Check the database: its own integrity check (SQLite `PRAGMA integrity_check`,
    /// PostgreSQL amcheck when installed), every run's replay against its hash and its row,
    /// every player's name against its copy. Read only; the report on stdout, one line per
    /// problem naming its row; exit code 1 if anything is wrong.
    Check,
}

/// `pogo-server reverify`'s own flags.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
pub struct ReverifyArgs {
    /// Most runs to re-verify in this invocation (run it again for more).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub limit: u64,
    /// Runs re-verified and recorded per database transaction (1–256).
    #[arg(long, value_name = "N", default_value_t = 32)]
    pub batch: u32,
    /// Only the runs of this season (an id from `GET /api/levels/{level}/seasons`).
    #[arg(long, value_name = "ID")]
    pub season: Option<String>,
    /// Only this level (by name; default every level the server runs). Not `--level`: that
    /// flag adds a level file, as it does for the server.
    #[arg(long, value_name = "NAME")]
    pub only_level: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines with `key=value` fields.
    Text,
    /// One JSON object per event.
    Json,
}

/// What `--database` names: the store's own type (`store::DatabaseUrl`).
pub use crate::store::DatabaseUrl;

/// The limits' old environment variables (`POGO_MAX_…`), by the argument they set. clap
/// reads one variable per argument (the new name); these are read after it, for an argument
/// neither a flag nor its new variable set. The old flags are clap aliases.
const OLD_VARIABLES: [(&str, &str); 3] = [
    ("player_ticks_max", "POGO_MAX_PLAYER_TICKS"),
    ("hash_interval_s_max", "POGO_MAX_HASH_INTERVAL"),
    ("duration_ms_max", "POGO_MAX_DURATION_MS"),
];

impl Config {
    /// The configuration from the command line and the environment; prints clap's message
    /// and exits on a bad one (as `Config::parse` would).
    pub fn from_env() -> Config {
        let mut config =
            Config::parse_with_old_variables(std::env::args_os(), |name| std::env::var_os(name))
                .unwrap_or_else(|e| e.exit());
        config.admin_token = std::env::var("ADMIN_TOKEN").ok().filter(|t| !t.is_empty());
        config
    }

    /// Parses `args` (the new variables from the environment, as clap does), then sets each
    /// limit that is still at its default from its old variable, looked up with `old`.
    pub fn parse_with_old_variables(
        args: impl IntoIterator<Item = impl Into<OsString> + Clone>,
        old: impl Fn(&str) -> Option<OsString>,
    ) -> Result<Config, clap::Error> {
        let matches = Config::command().try_get_matches_from(args)?;
        let mut config = Config::from_arg_matches(&matches)?;
        for (id, variable) in OLD_VARIABLES {
            if matches.value_source(id) != Some(ValueSource::DefaultValue) {
                continue; // a flag or the new variable said it: it wins
            }
            let Some(value) = old(variable) else {
                continue;
            };
            match id {
                "player_ticks_max" => config.player_ticks_max = parse_old(variable, &value)?,
                "hash_interval_s_max" => config.hash_interval_s_max = parse_old(variable, &value)?,
                _ => config.duration_ms_max = parse_old(variable, &value)?,
            }
        }
        Ok(config)
    }

    /// Defaults, as if started with no flags and no environment (for tests and embedding).
    pub fn defaults() -> Config {
        Config::parse_from(["pogo-server"])
    }

    pub fn database_url(&self) -> DatabaseUrl {
        DatabaseUrl::parse(&self.database)
    }

    pub fn workers(&self) -> usize {
        self.workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    pub fn duration_max(&self) -> Duration {
        Duration::from_millis(self.duration_ms_max)
    }

    pub fn lease(&self) -> Duration {
        Duration::from_millis(self.lease_ms)
    }

    /// The connection limits and the stop deadline (`--header-read-timeout-s`,
    /// `--connections-per-address-max`, `--stop-deadline-s`).
    pub fn connection_limits(&self) -> crate::serve::ConnectionLimits {
        crate::serve::ConnectionLimits {
            header_read_timeout: Duration::from_secs(self.header_read_timeout_s),
            per_address_max: self.connections_per_address_max,
            stop_deadline: Duration::from_secs(self.stop_deadline_s),
        }
    }

    /// The live rooms' settings: the defaults, and the test-only network faults and grace.
    pub fn live_settings(&self) -> crate::live::LiveSettings {
        let mut settings = crate::live::LiveSettings::default();
        if let Some(base_ms) = self.live_test_latency_ms {
            settings.latency = Some(crate::live::Latency {
                base_ms,
                jitter_ms: self.live_test_jitter_ms.min(base_ms),
            });
        }
        if let Some(ms) = self.live_resume_grace_ms {
            settings.resume_grace = Duration::from_millis(ms);
        }
        settings
    }

    /// Checks the values against each other; the message names the flag.
    pub fn check(&self) -> Result<(), String> {
        if self.player_ticks_max == 0 || self.player_ticks_max > u64::from(u32::MAX) {
            return Err(format!(
                "--player-ticks-max {}: must be within 1..={}",
                self.player_ticks_max,
                u32::MAX
            ));
        }
        let hash_max = pogo_replay::format::HASH_INTERVAL_SECONDS_MAX;
        if !(1..=hash_max).contains(&self.hash_interval_s_max) {
            return Err(format!(
                "--hash-interval-max {}: must be within 1..={hash_max} seconds",
                self.hash_interval_s_max
            ));
        }
        if self.duration_ms_max == 0 {
            return Err("--duration-ms-max 0: must be at least 1 ms".into());
        }
        if self.lease_ms <= self.duration_ms_max {
            return Err(format!(
                "--lease-ms {} must exceed --duration-ms-max {}: a claim must outlast the \
                 longest verification, or a second worker would take a run over mid-way",
                self.lease_ms, self.duration_ms_max
            ));
        }
        let batch_max = crate::limits::VERIFY_BATCH_RUNS_MAX;
        if !(1..=batch_max).contains(&self.verify_batch) {
            return Err(format!(
                "--verify-batch {}: must be within 1..={batch_max}",
                self.verify_batch
            ));
        }
        if self.queue_max == 0 {
            return Err("--queue-max 0: must be at least 1".into());
        }
        for (flag, value) in [
            ("--token-rate", self.token_rate),
            ("--token-burst", self.token_burst),
            ("--address-rate", self.address_rate),
            ("--address-burst", self.address_burst),
        ] {
            if value == 0 {
                return Err(format!("{flag} 0: must be at least 1"));
            }
        }
        if !(1..=3600).contains(&self.tracks_popular_every_s) {
            return Err(format!(
                "--tracks-popular-every-s {}: must be within 1..=3600",
                self.tracks_popular_every_s
            ));
        }
        if self.ticket_slack_ms > TICKET_SLACK_MS_MAX {
            return Err(format!(
                "--ticket-slack-ms {}: at most {TICKET_SLACK_MS_MAX} (a minute of slack is no \
                 real-time check)",
                self.ticket_slack_ms
            ));
        }
        if self.header_read_timeout_s == 0 {
            return Err("--header-read-timeout-s 0: must be at least 1 s".into());
        }
        let stop_min = crate::limits::STOP_DEADLINE_S_MIN;
        if self.stop_deadline_s < stop_min {
            return Err(format!(
                "--stop-deadline-s {}: must be at least {stop_min} s (its last second is for \
                 closing the database)",
                self.stop_deadline_s
            ));
        }
        if let Some(token) = &self.admin_token {
            if token.chars().count() < ADMIN_TOKEN_CHARS_MIN {
                return Err(format!(
                    "ADMIN_TOKEN is shorter than {ADMIN_TOKEN_CHARS_MIN} characters"
                ));
            }
        }
        Ok(())
    }
}

/// An old variable's value, as clap would have parsed it under the new name.
fn parse_old<T: FromStr>(variable: &str, value: &OsString) -> Result<T, clap::Error>
where
    T::Err: std::fmt::Display,
{
    let text = value.to_str().unwrap_or("\u{FFFD}");
    text.parse().map_err(|e| {
        clap::Error::raw(
            clap::error::ErrorKind::ValueValidation,
            format!("invalid value '{text}' for {variable}: {e}\n"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_urls_name_their_backend() {
        assert_eq!(
            DatabaseUrl::parse("pogo.db"),
            DatabaseUrl::Sqlite("pogo.db".into())
        );
        assert_eq!(
            DatabaseUrl::parse("sqlite:/tmp/x.db"),
            DatabaseUrl::Sqlite("/tmp/x.db".into())
        );
        assert_eq!(
            DatabaseUrl::parse("sqlite:///tmp/x.db"),
            DatabaseUrl::Sqlite("/tmp/x.db".into())
        );
        assert_eq!(
            DatabaseUrl::parse("postgres://u@h/db"),
            DatabaseUrl::Postgres("postgres://u@h/db".into())
        );
    }

    #[test]
    fn defaults_are_spec_9s_and_consistent() {
        let config = Config::defaults();
        assert_eq!(config.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(config.database_url(), DatabaseUrl::Sqlite("pogo.db".into()));
        assert!(config.levels.is_empty() && config.tuning.is_none());
        assert_eq!(config.check(), Ok(()));
        let lease_too_short = Config {
            lease_ms: 10_000,
            ..Config::defaults()
        };
        assert!(lease_too_short.check().unwrap_err().contains("--lease-ms"));
        for verify_batch in [0, crate::limits::VERIFY_BATCH_RUNS_MAX + 1] {
            let batch = Config {
                verify_batch,
                ..Config::defaults()
            };
            assert!(batch.check().unwrap_err().contains("--verify-batch"));
        }
        let short_admin = Config {
            admin_token: Some("short".into()),
            ..Config::defaults()
        };
        assert!(short_admin.check().unwrap_err().contains("ADMIN_TOKEN"));
        let limits = config.connection_limits();
        assert_eq!(
            (
                limits.header_read_timeout.as_secs(),
                limits.per_address_max,
                limits.stop_deadline.as_secs()
            ),
            (10, 256, 30)
        );
        for (config, flag) in [
            (
                Config {
                    stop_deadline_s: 1,
                    ..Config::defaults()
                },
                "--stop-deadline-s",
            ),
            (
                Config {
                    header_read_timeout_s: 0,
                    ..Config::defaults()
                },
                "--header-read-timeout-s",
            ),
        ] {
            assert!(config.check().unwrap_err().contains(flag), "{flag}");
        }
    }

    /// The limits' old spellings still work, as flags and as variables; a new spelling wins
    /// over an old variable. (The new variables are clap's own `env`, not tested here: a
    /// test cannot set the process environment without racing the other tests.)
    #[test]
    fn old_limit_spellings_are_still_accepted() {
        let none = |_: &str| None;
        let parse = |args: &[&str], old: &dyn Fn(&str) -> Option<OsString>| {
            let args = std::iter::once("pogo-server").chain(args.iter().copied());
            Config::parse_with_old_variables(args, old).unwrap()
        };
        let new = parse(
            &[
                "--player-ticks-max=3600",
                "--hash-interval-max=2",
                "--duration-ms-max=500",
            ],
            &none,
        );
        let old = parse(
            &[
                "--max-player-ticks=3600",
                "--max-hash-interval=2",
                "--max-duration-ms=500",
            ],
            &none,
        );
        for config in [&new, &old] {
            assert_eq!(
                (
                    config.player_ticks_max,
                    config.hash_interval_s_max,
                    config.duration_ms_max
                ),
                (3600, 2, 500)
            );
        }
        let old_variables = |name: &str| {
            let value = match name {
                "POGO_MAX_PLAYER_TICKS" => "7200",
                "POGO_MAX_HASH_INTERVAL" => "3",
                "POGO_MAX_DURATION_MS" => "900",
                _ => return None,
            };
            Some(OsString::from(value))
        };
        let from_old = parse(&[], &old_variables);
        assert_eq!(
            (
                from_old.player_ticks_max,
                from_old.hash_interval_s_max,
                from_old.duration_ms_max
            ),
            (7200, 3, 900)
        );
        let flag_wins = parse(&["--player-ticks-max=60"], &old_variables);
        assert_eq!(
            (flag_wins.player_ticks_max, flag_wins.duration_ms_max),
            (60, 900)
        );
        let bad = Config::parse_with_old_variables(["pogo-server"], |name: &str| {
            (name == "POGO_MAX_DURATION_MS").then(|| OsString::from("soon"))
        })
        .unwrap_err();
        assert!(
            bad.to_string().contains("'soon' for POGO_MAX_DURATION_MS"),
            "{bad}"
        );
    }
}
