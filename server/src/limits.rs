//! Every limit of the service, with why; the request body limit derived from the longest run
//! the verifier accepts; the per-token and per-address rate limits.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use pogo_replay::format::replay_bytes_max;

/// Bytes on top of the worst case, for what the estimate does not model (none known):
/// a small fixed slack, not a factor, so the limit stays close to the bound.
pub const BODY_SLACK_BYTES: u64 = 4096;

/// The request body limit for an upload: the largest legal single-player replay of at most
/// `ticks_max` ticks (`pogo_replay::format::replay_bytes_max`, the one bound), plus
/// [`BODY_SLACK_BYTES`]. An upload over it is refused with 413 before it is read (by
/// `Content-Length`) or as soon as it passes it (while reading).
pub fn upload_body_limit(ticks_max: u64) -> u64 {
    replay_bytes_max(ticks_max, 1).saturating_add(BODY_SLACK_BYTES)
}

/// The request body limit of `POST /api/tracks`: the level file at its largest
/// (`pogo_replay::track::TRACK_JSON_BYTES_MAX`) twice over (a JSON string escapes each `"`
/// and `\\` of it with one more byte, so a level file takes at most twice its bytes inside
/// the body), the author's replay at the upload limit as base64 (4 bytes per 3), and
/// [`TRACK_TEXT_BYTES_MAX`] for the name, the description and the rest. Over it the body is
/// refused with 413 before it is parsed, by `Content-Length` or while it is read; a level
/// file over its own limit inside a body that fits is refused by its size, before it is
/// parsed (`check_track`).
pub fn publish_body_limit(upload_limit: u64) -> u64 {
    let level = 2 * pogo_replay::track::TRACK_JSON_BYTES_MAX as u64;
    let replay = upload_limit.div_ceil(3).saturating_mul(4);
    level
        .saturating_add(replay)
        .saturating_add(TRACK_TEXT_BYTES_MAX)
}

/// The publish body's bytes besides the level and the replay: a name and a description
/// escaped at the worst (12 bytes a character), the keys and a remix id.
pub const TRACK_TEXT_BYTES_MAX: u64 = 16 << 10;

const _: () = assert!(
    ((TRACK_NAME_CHARS_MAX + TRACK_DESCRIPTION_CHARS_MAX) * 12 + 256) as u64
        <= TRACK_TEXT_BYTES_MAX
);

/// Most characters in a track's name: a title, shown in lists and above a board.
pub const TRACK_NAME_CHARS_MAX: usize = 64;

/// Most characters in a track's description: a paragraph.
pub const TRACK_DESCRIPTION_CHARS_MAX: usize = 500;

const _: () =
    assert!((TRACK_NAME_CHARS_MAX + TRACK_DESCRIPTION_CHARS_MAX) * 12 + 64 <= JSON_BODY_BYTES_MAX);

/// Tracks one player may publish in any 24 hours. Publishing costs a re-simulation of the
/// author's run (up to the verifier's longest run) and a row that lists forever; 20 a day is
/// more than any author makes by hand, and bounds what one token can add to the lists
/// (a script publishing variations of one track is stopped within the day). Counted before
/// the body is read; a 429 says when the oldest of the day's leaves the window. Two
/// publishes at once may both pass the count on PostgreSQL (it is read before the
/// transaction): at most one over per request in flight.
pub const TRACKS_PER_PLAYER_PER_DAY: i64 = 20;

/// The popular list's window: runs verified on a track in the last 7 days.
pub const TRACK_POPULAR_WINDOW_MS: i64 = 7 * 86_400_000;

/// Tracks the popular list holds (`track_popularity`, recounted every
/// `--tracks-popular-every-s`): fifty pages of twenty.
pub const TRACKS_POPULAR_MAX: i64 = 1_000;

/// How often the server brings the planner's statistics up to date (`store::statistics`):
/// often enough that a board growing by uploads is re-analyzed soon after each tenfold, and a
/// round that finds nothing to do costs a look at each table's size (well under a millisecond).
pub const STATISTICS_EVERY: Duration = Duration::from_secs(60);

/// Tracks on one page of `GET /api/tracks` at most, and the default.
pub const TRACK_LIST_LIMIT_MAX: i64 = 100;
pub const TRACK_LIST_LIMIT_DEFAULT: i64 = 20;

/// Largest JSON body of the small JSON routes (registration, admin). The largest legal one is
/// hiding a run with a reason of [`HIDDEN_REASON_CHARS_MAX`] characters, each of which JSON
/// may escape as a surrogate pair (`\uD83D\uDE00`, 12 bytes): 6 000 bytes and the braces; a
/// name (at most 64 bytes of UTF-8, escaped at most 6×) is far smaller. 8 KiB holds either.
pub const JSON_BODY_BYTES_MAX: usize = 8192;

/// Longest reason an admin may give for hiding a run (characters): a sentence or two, e.g.
/// "a desync found by hand in the replay at 1:02; reported by …". Enough to explain, short
/// enough that the column stays a note, not a document.
pub const HIDDEN_REASON_CHARS_MAX: usize = 500;

const _: () = assert!(HIDDEN_REASON_CHARS_MAX * 12 + 64 <= JSON_BODY_BYTES_MAX);

/// Uploads whose bodies are being read or checked at once. Each holds up to the body limit
/// in memory (7.8 MB at the default one-hour run), so this bounds that memory (≈ 250 MB);
/// beyond it an upload is answered 503 at once, before its body is read. Checking a body
/// (decoding it, no simulation) takes well under a millisecond, so 32 is never the
/// bottleneck for honest clients.
pub const UPLOADS_IN_FLIGHT_MAX: usize = 32;

/// How long a client may take to send an upload's body: a minute is ample for 8 MB on any
/// link a player has; a slower sender is holding an upload slot hostage.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(60);

/// Most points in one trajectory response. A long run asked for `every=1` would otherwise be
/// one point per tick (216 000 for an hour: ≈ 15 MB of JSON); 20 000 points is a smooth
/// line at any zoom a page shows, ≈ 1.4 MB. Past it `every` is raised (the response says so).
pub const TRAJECTORY_POINTS_MAX: u64 = 20_000;

/// Entries on one leaderboard page at most (and the default).
pub const LEADERBOARD_LIMIT_MAX: u32 = 100;
pub const LEADERBOARD_LIMIT_DEFAULT: u32 = 20;

/// Entries per batch of a leaderboard export: a read of the board's index or one short
/// keyset query (`Boards::board_rows_indexed`, `Boards::board_batch`), ≈ 150 kB of CSV or JSON,
/// held in memory while it is written. An export of a million entries is a thousand batches;
/// a client that reads slowly holds no connection between them.
pub const EXPORT_BATCH_ROWS: u32 = 1000;
/// Entries in an export's first batch, written with its head: few, so that the first byte
/// leaves as soon as the export's instant is settled (a batch of 1 000 took 2–4 ms to write).
pub const EXPORT_FIRST_BATCH_ROWS: u32 = 100;

/// Ghost trajectories computed at once (each re-simulates its run): bounds the CPU the read
/// side can take from verification. Waiting for a slot longer than
/// [`GHOST_WAIT_MAX`] is answered 503.
pub const GHOSTS_IN_FLIGHT_MAX: usize = 2;
pub const GHOST_WAIT_MAX: Duration = Duration::from_secs(10);

/// How often an idle worker looks for work it was not told about: runs uploaded to another
/// server process, and claims whose lease expired.
pub const WORKER_POLL_INTERVAL: Duration = Duration::from_millis(250);

/// Runs one worker claims at once (the default of `--verify-batch`): one claim statement and
/// one verdict statement serve the whole batch. A finished `course` run re-simulates in about
/// half a millisecond, so 64 runs are ≈ 30 ms of work per batch. 32 → 64 is the largest gain
/// in verification throughput measured; 128 gains little for twice the runs held away from
/// other workers and processes (a worker holds two batches: the one it verifies and the one
/// claimed ahead). The measurements: PERFORMANCE.md, "Why 64".
pub const VERIFY_BATCH_RUNS: u32 = 64;
/// The largest `--verify-batch` accepted: the batch's replays are held in memory at once
/// (up to the body limit each, 7.8 MB at the default one-hour run: 2 GB at this bound, in
/// the worst case of every run being an hour long).
pub const VERIFY_BATCH_RUNS_MAX: u32 = 256;

/// A batch's verdicts are written, and its runs not yet verified handed back to the queue,
/// before a verification that might end later than this fraction of the lease (numerator,
/// denominator) after the claim: the rest of the lease is left for the verdict transaction
/// and its retries, so no verdict outlives its lease needlessly. A batch of slow runs is
/// thus written run by run, each within its lease (`worker.rs`).
pub const VERIFY_BATCH_LEASE_FRACTION: (u32, u32) = (3, 4);

/// Claims of one run before it is given up as `abandoned` (each claim that did not end in a
/// verdict was a worker dying or losing the database mid-verification: a run that does that
/// five times is more likely the cause than the victim).
pub const CLAIM_ATTEMPTS_MAX: i64 = 5;

/// Seconds a client is told to wait when the queue or the upload slots are full.
pub const RETRY_AFTER_BUSY_S: u64 = 2;

/// How long a connection has to send a request's head (the request line and headers), from
/// when the server starts reading it: the connection's first request from the accept, each
/// next one from the previous response (so it is also the idle keep-alive timeout: hyper starts
/// the head's timer when a kept-alive connection goes idle). 10 s: an honest client on a slow
/// mobile link sends a head (≈ 1 kB) in well under a second, and a browser reconnects for a
/// closed idle connection without a word (Apache's keep-alive timeout is 5 s, nginx's header
/// timeout 60 s). A slow-loris connection — a head sent a byte at a time — is closed at 10 s,
/// and so is one that never sends anything. The default of `--header-read-timeout-s`.
/// Not applied to a body (`BODY_READ_TIMEOUT` is the upload's) nor to an upgraded connection
/// (a live room's WebSocket lives as long as its race).
pub const HEADER_READ_TIMEOUT_S_DEFAULT: u64 = 10;

/// Connections one client address (IP, any port; an IPv6 address by its /64, the block one
/// subscriber is given) may hold open at once: the default of
/// `--connections-per-address-max` (0: no cap). An extra one is closed as soon as it is
/// accepted, before anything is read: it costs the server one accept and one close, never a
/// task, a buffer or a header timer. 256 is far above what one person uses (a browser opens
/// at most 6 per host, plus a live room's WebSocket; a household or an office behind one NAT
/// address is a few dozen people), and far below the open-files limit a raised `nofile`
/// gives (hundreds of thousands), so one address cannot take the process's descriptors from
/// the others. Upgraded connections (WebSockets) count for as long as they are open.
/// Loopback is an address like any other: a local reverse proxy, the load generator or a
/// test that opens more sets a higher cap or 0 (docs/operations.md).
pub const CONNECTIONS_PER_ADDRESS_MAX_DEFAULT: usize = 256;

/// How long the server waits before it accepts again after an accept error that is not the
/// one connection's (out of file descriptors, `EMFILE`/`ENFILE`; out of memory): retrying at
/// once spins a core on the same error and floods the log. 100 ms frees the core and lets an
/// idle connection close meanwhile; it is logged once per burst of errors, with the count when
/// accepting works again.
pub const ACCEPT_ERROR_BACKOFF: Duration = Duration::from_millis(100);

/// The default of `--stop-deadline-s`: how long after SIGTERM the process has exited, whatever
/// clients do. 30 s: the default grace of Kubernetes (`terminationGracePeriodSeconds`) and
/// systemd's is 90 s, so a supervisor's SIGKILL never comes first; it holds an upload's body
/// read at a normal rate and a verification (`--duration-ms-max`, 10 s by default).
pub const STOP_DEADLINE_S_DEFAULT: u64 = 30;
/// The shortest `--stop-deadline-s`: the last [`STOP_RESERVE`] of it is for closing.
pub const STOP_DEADLINE_S_MIN: u64 = 2;
/// The end of the stop deadline kept for what comes after the connections and the workers: the
/// background tasks, closing the database (half of it), the runtime's blocking threads
/// (`RUNTIME_SHUTDOWN_GRACE`). Open connections are dropped this long before the deadline.
pub const STOP_RESERVE: Duration = Duration::from_secs(1);
/// How long the runtime waits for its blocking threads at exit (a verification that outlived
/// the deadline is abandoned: its claim's lease expires and another worker or the next start
/// takes the run over, as after a crash).
pub const RUNTIME_SHUTDOWN_GRACE: Duration = Duration::from_millis(250);

/// Seconds a client is told to wait (`Retry-After`) for an upload, a room or a ticket refused
/// because the server is stopping: a restart takes a few seconds; with several processes
/// behind one name, the next try may reach another one at once.
pub const RETRY_AFTER_STOPPING_S: u64 = 5;

/// How long after its issue a run ticket may still be named by an upload: a week. The
/// commitments fixed the timing while the run was played, so the replay may come much later
/// (after a server outage, a browser kept offline); past a week the ticket is expired (410).
pub const TICKET_UPLOAD_WINDOW_MS: i64 = 7 * 24 * 3600 * 1000;

/// Run tickets one player may mint: one per [`TICKET_MINT_PERIOD`] sustained, a burst of
/// [`TICKET_MINT_BURST`]. A run takes at least the page's countdown (3 s) and a restart or
/// two in quick succession is normal play; faster than that is no person playing.
pub const TICKET_MINT_PERIOD: Duration = Duration::from_secs(2);
pub const TICKET_MINT_BURST: u32 = 3;

/// Tickets a player may hold that are issued, not yet started and still within their start
/// window: a page asks for one per race, so a few cover two open tabs and a restart.
pub const TICKETS_OPEN_MAX: i64 = 3;

/// The per-player rate limit on minting run tickets.
#[derive(Debug)]
pub struct TicketRate(DefaultKeyedRateLimiter<i64>);

impl TicketRate {
    pub fn new() -> TicketRate {
        let burst = NonZeroU32::new(TICKET_MINT_BURST).unwrap_or(NonZeroU32::MIN);
        let quota = Quota::with_period(TICKET_MINT_PERIOD).map_or_else(
            || Quota::per_second(NonZeroU32::MIN),
            |q| q.allow_burst(burst),
        );
        TicketRate(RateLimiter::keyed(quota))
    }

    /// `Ok` if player `id` may mint a ticket now, else the seconds to wait (at least 1).
    pub fn check(&self, id: i64) -> Result<(), u64> {
        self.0.check_key(&id).map_err(wait_seconds)
    }

    /// Forgets players whose limit has fully recovered.
    pub fn forget_idle(&self) {
        self.0.retain_recent();
        self.0.shrink_to_fit();
    }
}

impl Default for TicketRate {
    fn default() -> TicketRate {
        TicketRate::new()
    }
}

/// Rate limits, per key, with the wait until the next allowed request when over.
#[derive(Debug)]
pub struct RateLimits {
    /// Uploads per player (token).
    pub token: DefaultKeyedRateLimiter<i64>,
    /// API requests per client address.
    pub address: DefaultKeyedRateLimiter<IpAddr>,
}

impl RateLimits {
    /// `rate` per second sustained, `burst` at once, for each; zeros are raised to 1 (the
    /// configuration refuses them before this).
    pub fn new(token_rate: u32, token_burst: u32, address_rate: u32, address_burst: u32) -> Self {
        let quota = |rate: u32, burst: u32| {
            Quota::per_second(NonZeroU32::new(rate).unwrap_or(NonZeroU32::MIN))
                .allow_burst(NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN))
        };
        RateLimits {
            token: RateLimiter::keyed(quota(token_rate, token_burst)),
            address: RateLimiter::keyed(quota(address_rate, address_burst)),
        }
    }

    /// `Ok` if player `id` may upload now, else the seconds to wait (at least 1).
    pub fn check_token(&self, id: i64) -> Result<(), u64> {
        self.token.check_key(&id).map_err(wait_seconds)
    }

    /// `Ok` if `address` may make a request now, else the seconds to wait (at least 1).
    pub fn check_address(&self, address: IpAddr) -> Result<(), u64> {
        self.address.check_key(&address).map_err(wait_seconds)
    }

    /// Forgets keys whose limits have fully recovered (run periodically: the maps would
    /// otherwise grow with every address ever seen).
    pub fn forget_idle(&self) {
        self.token.retain_recent();
        self.address.retain_recent();
        self.token.shrink_to_fit();
        self.address.shrink_to_fit();
    }
}

fn wait_seconds(not_until: governor::NotUntil<<DefaultClock as Clock>::Instant>) -> u64 {
    let wait = not_until.wait_time_from(DefaultClock::default().now());
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pogo_replay::format::tick_bytes_max;
    use pogo_replay::{Header, InputChunk, Limits, Replay, Run, Trailer};

    /// The worst case the bound claims to cover, built as a real file: one tick per chunk,
    /// a hash per tick with the longest varint, the longest header strings.
    fn worst_case(ticks: u32) -> Vec<u8> {
        let header = Header {
            rules_version: pogo_core::RULES_VERSION,
            tick_rate: 60,
            frac_bits: 32,
            level_name: "x".repeat(64),
            level_hash: u64::MAX,
            tuning_hash: u64::MAX,
            players: 1,
            chunk_ticks: 1,
            hash_interval: 1,
            player_name: Some("y".repeat(32)),
            date: Some("2026-01-01T00:00:00.000000+00:00".into()),
        };
        let chunks = (0..ticks)
            .map(|t| InputChunk {
                first_tick: t,
                ticks: 1,
                runs: vec![vec![Run {
                    length: 1,
                    steer_x: -127,
                    steer_z: 127,
                    buttons: 3,
                }]],
                hashes: vec![u64::MAX],
            })
            .collect();
        let replay = Replay {
            header,
            chunks,
            trailer: Trailer {
                ticks,
                finish: vec![Some(ticks - 1)],
                final_hash: u64::MAX,
                file_check: 0,
            },
        };
        let bytes = replay.encode();
        let limits = Limits {
            ticks_max: ticks,
            player_ticks_max: u64::from(ticks),
            ..Limits::default()
        };
        Replay::decode(&bytes, limits).expect("the worst case is a legal replay");
        bytes
    }

    /// The largest legal file fits the limit, and the per-tick bound is not loose: the
    /// marginal cost of a tick in the worst case is within 3 bytes of it (`first_tick`
    /// below 2^14 takes 2 bytes, not the 5 the bound allows for any u32).
    #[test]
    fn the_body_limit_holds_the_largest_legal_replay_and_is_tight() {
        for ticks in [1, 100, 3000] {
            let size = worst_case(ticks).len() as u64;
            let limit = upload_body_limit(u64::from(ticks));
            assert!(
                size <= limit,
                "{ticks} ticks: {size} bytes over the limit {limit}"
            );
        }
        // Rounded up: the trailer's file check is a varint of a hash, 9 or 10 bytes by chance.
        let marginal = ((worst_case(3000).len() - worst_case(2000).len()) as u64).div_ceil(1000);
        assert!(
            marginal <= tick_bytes_max(1) && marginal + 3 >= tick_bytes_max(1),
            "a worst-case tick takes {marginal} bytes, the bound says {}",
            tick_bytes_max(1)
        );
    }

    #[test]
    fn rate_limits_allow_the_burst_then_say_how_long_to_wait() {
        let limits = RateLimits::new(1, 3, 1, 2);
        for _ in 0..3 {
            assert_eq!(limits.check_token(7), Ok(()));
        }
        let wait = limits.check_token(7).unwrap_err();
        assert!((1..=2).contains(&wait), "{wait}");
        // Another player has its own bucket.
        assert_eq!(limits.check_token(8), Ok(()));
        let address: IpAddr = "127.0.0.1".parse().unwrap();
        assert_eq!(limits.check_address(address), Ok(()));
        assert_eq!(limits.check_address(address), Ok(()));
        assert!(limits.check_address(address).is_err());
    }
}
