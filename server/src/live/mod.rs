//! Live races: racers in one room race each other in real time through the server,
//! spectators watch, and each racer's run is verified, judged real-time from every input and
//! ranked the moment they finish, with no upload.
//!
//! ## How a race goes
//!
//! 1. `POST /api/levels/{level}/rooms` makes a room in this process (its *home*; the row in
//!    `rooms` tells other processes where it is). Racers (1 to [`limits::ROOM_RACERS_MAX`])
//!    and spectators join over the room's WebSocket (`GET /api/rooms/{id}/socket`,
//!    [`socket`]); the protocol is `docs/live.md`, its messages [`wire`]'s.
//! 2. When every racer is ready the room sets **GO** on the server's clock (now plus the
//!    countdown) and every page counts down to it, each having estimated its offset from the
//!    server by round trips (`ping`/`pong`, as NTP does; a page errs late, never early).
//! 3. From GO each racer's page sends its input changes as they happen (the driver's events,
//!    stamped in integer ns of game time), which ticks it ran, and its state hash at each
//!    split; a few bytes each, binary, sequence-numbered. The room stamps each message on
//!    arrival, judges it against GO ([`crate::realtime::timing`]), relays it to every other
//!    member at once, and re-simulates the racer with the same core and driver
//!    ([`racer::RacerRun`]); a page whose hash differs at a split is desynced (named to
//!    everyone and in the log).
//! 4. At a racer's finish the room files the run ([`filer`](mod@filer)): the replay bytes it recorded
//!    from the stream (byte-identical to `pogo simulate --inputs … --record` of the same
//!    events, name and date), verified, on the level's board, and on the real-time board if
//!    every message came on time. A racer who leaves, is cut off for good or runs out of time
//!    has their run so far kept, unranked.
//!
//! A dropped connection resumes with the racer's key: the server says the last sequence
//! number it holds, and the page sends from the next one; a copy of a message taken before is
//! ignored, so nothing acknowledged is lost and nothing is taken twice. "Holds" means the
//! database holds it: a room journals what it takes ([`journal`]) and acknowledges a message
//! only once it is committed, so a race outlives its process — the restarted process, or
//! another on the same database, takes the room up from its journal ([`take_up_rooms`]).
//!
//! ## What real-time proves here, and what it cannot
//!
//! Every message about game time `t` must arrive within `[GO + t, GO + t + slack]`: a game
//! slowed anywhere, for any length, falls behind and every later message (inputs, and the
//! heartbeats a page sends several times a second) is late; a game run ahead is early. So a
//! real-time run was *produced in real time*: the most it can bank over its whole length is
//! the slack. It cannot tell who or what produced the inputs: inputs computed ahead (a
//! tool-assisted run) and played back on time are real-time, and a bot playing live is too.
//! Network delay counts against the racer, and a connection cut for longer than the slack
//! makes the messages resent after it late.
//!
//! ## Several processes
//!
//! A room lives in one process's memory. Any process accepts a join for any room: if the
//! room is not its own it reads the room's home from the database and proxies the WebSocket
//! there ([`proxy`]). To grow to many machines, each process advertises its own base URL
//! (`--advertise-url`) and rooms are spread by where they are made (any load balancer in
//! front); the database holds a row per room, written every few seconds, and each room's
//! journal. A room whose home is gone (its row not written for [`limits::ROOM_STALE`]) is
//! taken up by whichever process looks first.

pub mod client;
pub mod command;
pub mod filer;
pub mod journal;
pub mod limits;
pub mod proxy;
pub mod racer;
pub mod room;
pub mod socket;
pub mod wire;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pogo_core::Tuning;
use pogo_core::world::World;
use tokio::sync::watch;

use crate::catalog::{Catalog, Hidden, Level};
use crate::shutdown::{Shutdown, Stop};
use crate::store::{RoomRow, RoomWrite, Store};
use crate::times::now_ms;
use room::RoomHandle;
use wire::RoomView;

/// The timing a room runs on, and the test-only network faults.
#[derive(Clone, Debug)]
pub struct LiveSettings {
    /// From the countdown's start to GO (ms).
    pub countdown_ms: i64,
    /// How long a racer cut off mid-race may take to come back before being cut for good.
    pub resume_grace: Duration,
    /// The longest race, from GO (ms).
    pub race_ms_max: i64,
    /// Test only: delay every message both ways on the server's side of the socket.
    pub latency: Option<Latency>,
}

impl Default for LiveSettings {
    fn default() -> LiveSettings {
        LiveSettings {
            countdown_ms: limits::COUNTDOWN_MS,
            resume_grace: limits::RESUME_GRACE,
            race_ms_max: limits::RACE_MS_MAX,
            latency: None,
        }
    }
}

/// Injected network delay: `base_ms ± jitter_ms`, uniform, order kept (test only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Latency {
    pub base_ms: u64,
    pub jitter_ms: u64,
}

/// What every room of this process shares.
#[derive(Debug)]
pub struct LiveContext {
    pub store: Store,
    pub catalog: Arc<Catalog>,
    /// How late after GO plus its game time a message may arrive (ms).
    pub slack_ms: i64,
    pub settings: LiveSettings,
    /// This process's base URL, as other processes reach it (the rooms' `home`), set when
    /// the server starts listening.
    pub home: std::sync::OnceLock<String>,
    pub rooms: Rooms,
    /// Begun once, when the server shuts down: every room closes its connections and hands
    /// its race over (its journal holds it).
    pub shutdown: Stop,
    /// The rooms' journal writer's queue (`journal.rs`).
    pub journal: journal::Journal,
    /// The filing writer's queue (`filer.rs`).
    pub filings: filer::Filings,
    /// Held while a room is taken up, so that the sweep and a join never take the same room
    /// up twice in this process (a claim read after another's claim of this process matches).
    taking_up: tokio::sync::Mutex<()>,
}

/// The rooms this process holds.
#[derive(Debug, Default)]
pub struct Rooms {
    map: Mutex<HashMap<String, RoomHandle>>,
}

impl Rooms {
    /// Room `id`, if it lives in this process.
    pub fn get(&self, id: &str) -> Option<RoomHandle> {
        self.map.lock().ok()?.get(id).cloned()
    }

    /// How many rooms live here.
    pub fn len(&self) -> usize {
        self.map.lock().map_or(0, |m| m.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every room here, as its members see it.
    pub fn views(&self) -> Vec<RoomView> {
        self.map.lock().map_or_else(
            |_| Vec::new(),
            |m| m.values().map(|h| h.view.borrow().clone()).collect(),
        )
    }

    fn insert(&self, id: String, handle: RoomHandle) {
        if let Ok(mut map) = self.map.lock() {
            map.insert(id, handle);
        }
    }

    /// A room's task ended.
    fn forget(&self, id: &str) {
        if let Ok(mut map) = self.map.lock() {
            map.remove(id);
        }
    }
}

/// Why a room could not be made.
#[derive(Debug)]
pub enum CreateError {
    UnknownLevel,
    /// [`limits::ROOMS_MAX`] rooms live here already.
    Full,
    Store(crate::store::StoreError),
}

impl LiveContext {
    /// The context of a process that has not started listening yet.
    pub fn new(
        store: Store,
        catalog: Arc<Catalog>,
        slack_ms: i64,
        settings: LiveSettings,
    ) -> LiveContext {
        LiveContext {
            store,
            catalog,
            slack_ms,
            settings,
            home: std::sync::OnceLock::new(),
            rooms: Rooms::default(),
            shutdown: Stop::new(),
            journal: journal::Journal::default(),
            filings: filer::Filings::default(),
            taking_up: tokio::sync::Mutex::new(()),
        }
    }

    /// This process's base URL (empty before it listens).
    pub fn home(&self) -> &str {
        self.home.get().map_or("", String::as_str)
    }

    /// The level's world (none if the server does not run the level) and the tuning, the
    /// verifier's one copy, which every racer's simulation shares.
    pub fn level(&self, level: Option<&Level>) -> (Option<Arc<World>>, Arc<Tuning>) {
        let world = level.and_then(|level| self.catalog.world(level));
        (world, self.catalog.verifier().tuning().clone())
    }

    /// Makes a room on `level` in this process and writes its row; its view.
    pub async fn create_room(self: &Arc<Self>, level: &str) -> Result<RoomView, CreateError> {
        let info = self
            .catalog
            .resolve(&self.store, level, Hidden::Refused)
            .await
            .map_err(CreateError::Store)?
            .ok_or(CreateError::UnknownLevel)?;
        if self.rooms.len() >= limits::ROOMS_MAX {
            return Err(CreateError::Full);
        }
        let id = random_hex(8);
        let handle = room::spawn(self.clone(), id.clone(), level.to_string(), Some(info));
        let view = handle.view.borrow().clone();
        // Here before its row is written: a sweep that finds the row (this process's first
        // takes up its own home's rooms, those of before a restart) finds the room here and
        // leaves it be (`take_up`). Written the other way round, a sweep in between took the
        // new room up from its empty journal, and the copy replaced it here: members joined
        // one room, and a racer coming back found the other.
        self.rooms.insert(id.clone(), handle);
        // Written now, so another process finds the room at once; then by `write_rooms`.
        if let Err(e) = self.write_rooms(std::slice::from_ref(&view)).await {
            // Nobody knows its id: its lobby closes, empty, as any does.
            self.rooms.forget(&id);
            return Err(CreateError::Store(e));
        }
        Ok(view)
    }

    /// Writes `views`' rows in one transaction; the ids of those another process took up.
    async fn write_rooms(
        &self,
        views: &[RoomView],
    ) -> Result<Vec<String>, crate::store::StoreError> {
        let now = now_ms();
        let rows: Vec<(String, String, RoomView)> = views
            .iter()
            .map(|view| {
                let json = serde_json::to_string(view).unwrap_or_default();
                let phase = serde_json::to_value(view.phase)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                (json, phase, view.clone())
            })
            .collect();
        let writes: Vec<RoomWrite> = rows
            .iter()
            .map(|(json, phase, view)| RoomWrite {
                id: &view.id,
                level: &view.level,
                home: self.home(),
                phase,
                go_ms: view.go_ms,
                now_ms: now,
                view: json,
            })
            .collect();
        self.store.room_rows().write_rooms(&writes).await
    }
}

/// Keeps this process's rooms' rows up to date: every [`limits::ROOM_WRITE_INTERVAL`] the
/// rooms whose view changed (a room that ended: its last view), and every
/// [`limits::ROOM_HEARTBEAT`] every room (so the list of races in progress drops the rooms of a
/// process that died), all in one transaction. Runs until `stop`.
pub async fn write_rooms(ctx: Arc<LiveContext>, mut stop: Shutdown) {
    let mut watched: HashMap<String, watch::Receiver<RoomView>> = HashMap::new();
    let mut heartbeat = tokio::time::Instant::now();
    loop {
        tokio::select! {
            () = tokio::time::sleep(limits::ROOM_WRITE_INTERVAL) => {}
            () = stop.recv() => return,
        }
        if let Ok(map) = ctx.rooms.map.lock() {
            for (id, handle) in map.iter() {
                watched
                    .entry(id.clone())
                    .or_insert_with(|| handle.view.clone());
            }
        }
        let beat = heartbeat.elapsed() >= limits::ROOM_HEARTBEAT;
        if beat {
            heartbeat = tokio::time::Instant::now();
        }
        let mut views = Vec::new();
        watched.retain(|_, view| {
            let ended = view.has_changed().is_err();
            if beat || ended || view.has_changed().unwrap_or(false) {
                views.push(view.borrow_and_update().clone());
            }
            !ended
        });
        let written = tokio::select! {
            written = ctx.write_rooms(&views) => written,
            () = stop.recv() => return,
        };
        match written {
            Ok(moved) => {
                for id in moved {
                    if let Some(room) = ctx.rooms.get(&id) {
                        tracing::warn!(room = %id, "another process took this room up");
                        let _ = room.commands.try_send(command::Command::Moved);
                    }
                }
            }
            Err(e) => {
                tracing::warn!(rooms = views.len(), error = %e, "cannot write the rooms' rows")
            }
        }
    }
}

impl LiveContext {
    /// Takes room `row` up in this process, its home now: claimed (unless another process
    /// claimed it first: `None`), then rebuilt from its journal ([`room::restore`]). A room
    /// that cannot be rebuilt is ended, its journal kept, and its view says why.
    pub async fn take_up(
        self: &Arc<Self>,
        row: &RoomRow,
    ) -> Result<Option<RoomHandle>, crate::store::StoreError> {
        // One at a time: a take-up that claimed this room before us has put it in the map by
        // the time we hold the lock (claiming our `row`, read after its claim, would match).
        let _one_at_a_time = self.taking_up.lock().await;
        if let Some(handle) = self.rooms.get(&row.id) {
            return Ok(Some(handle));
        }
        let rooms = self.store.room_rows();
        if row.phase == "over" && !rooms.has_journal(&row.id).await? {
            // Closed in the normal way: nothing to take up.
            return Ok(None);
        }
        if !rooms.claim(row, self.home(), now_ms()).await? {
            return Ok(self.rooms.get(&row.id));
        }
        let lobby_for = i64::try_from(limits::LOBBY_EMPTY_MAX.as_millis()).unwrap_or(0);
        if row.phase == "lobby" && row.updated_ms < now_ms() - lobby_for {
            // A lobby gone quiet longer than an empty one stays open: nobody is coming back.
            self.end_room(row, "the room closed: its server went away")
                .await?;
            return Ok(None);
        }
        // Read once claimed: a home that was only slow appends nothing after the claim (each
        // append checks the home, `Rooms::append_journal`), and sends its members here.
        let journal = rooms.journal(&row.id).await?;
        // A race under way goes on if its track was hidden meanwhile (its run is filed).
        let info = self
            .catalog
            .resolve(&self.store, &row.level, Hidden::Included)
            .await?;
        match room::restore(
            self.clone(),
            row.id.clone(),
            row.level.clone(),
            info,
            &journal,
        ) {
            Ok(handle) => {
                tracing::info!(room = %row.id, from = %row.home, rows = journal.len(), "room taken up");
                self.rooms.insert(row.id.clone(), handle.clone());
                Ok(Some(handle))
            }
            Err(why) => {
                tracing::error!(room = %row.id, from = %row.home, why = %why, "a room cannot be taken up: ended");
                let note = format!(
                    "the race stopped: its server went away and it could not be taken up ({why})"
                );
                self.end_room(row, &note).await?;
                Ok(None)
            }
        }
    }

    /// Writes room `row` over, its view saying `note` (its journal, if any, is kept).
    async fn end_room(&self, row: &RoomRow, note: &str) -> Result<(), crate::store::StoreError> {
        let mut view: RoomView = serde_json::from_str(&row.view)
            .unwrap_or_else(|_| RoomView::empty(&row.id, &row.level, self));
        view.phase = wire::Phase::Over;
        view.note = Some(note.to_string());
        self.write_rooms(&[view]).await.map(|_| ())
    }
}

/// Takes up the rooms whose home is gone: at the start, this process's own (it restarted)
/// and any other's row gone stale; then every [`limits::ROOM_SWEEP_INTERVAL`] the stale ones
/// ([`limits::ROOM_STALE`]: a home that died, or stopped and handed its rooms over). Runs
/// until `stop`.
pub async fn take_up_rooms(ctx: Arc<LiveContext>, mut stop: Shutdown) {
    /// Rooms taken up a sweep at most (the rest wait for the next).
    const ROOMS_PER_SWEEP_MAX: i64 = 256;
    let mut own = Some(ctx.home().to_string());
    loop {
        let stale_before = now_ms() - i64::try_from(limits::ROOM_STALE.as_millis()).unwrap_or(0);
        // Never this process's own home after the first sweep: its live rooms are in memory,
        // and one that just closed may not have its last row written yet.
        let home = own.take().unwrap_or_default();
        let found = ctx
            .store
            .room_rows()
            .orphans(&home, stale_before, ROOMS_PER_SWEEP_MAX)
            .await;
        match found {
            Ok(rows) => {
                for row in rows {
                    if stop.is_shutdown() {
                        return;
                    }
                    if let Err(e) = ctx.take_up(&row).await {
                        tracing::warn!(room = %row.id, error = %e, "cannot take a room up");
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot look for rooms to take up"),
        }
        tokio::select! {
            () = tokio::time::sleep(limits::ROOM_SWEEP_INTERVAL) => {}
            () = stop.recv() => return,
        }
    }
}

/// Why the server closes a member's WebSocket: a code (4000–4999 are the application's) and
/// a reason for a human (at most 123 bytes, WebSocket's limit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Close {
    Malformed(String),
    Stream(racer::Refused),
    Refused(String),
    TooFast,
    TooSlow,
    NotARacer,
    BeforeCountdown,
    RoomFull,
    RaceStarted,
    NotHello,
    HelloTimeout,
    HelloTwice,
    BadToken(String),
    UnknownKey,
    Replaced,
    NoSuchRoom,
    Left,
    Over,
    ShuttingDown,
    Moved,
    Unreachable(String),
}

impl Close {
    /// The WebSocket close code.
    pub fn code(&self) -> u16 {
        match self {
            Close::Left | Close::Over => 1000,
            Close::ShuttingDown | Close::Moved => 1012,
            Close::Malformed(_) | Close::NotHello | Close::HelloTwice => 4000,
            Close::Stream(_) => 4001,
            Close::TooFast => 4002,
            Close::TooSlow => 4003,
            Close::NotARacer | Close::BeforeCountdown | Close::Refused(_) => 4004,
            Close::RoomFull => 4005,
            Close::RaceStarted => 4006,
            Close::HelloTimeout => 4007,
            Close::BadToken(_) => 4008,
            Close::UnknownKey => 4009,
            Close::Replaced => 4010,
            Close::NoSuchRoom => 4404,
            Close::Unreachable(_) => 4503,
        }
    }

    /// The reason, for a human (cut to 123 bytes on a character boundary).
    pub fn reason(&self) -> String {
        let text = self.to_string();
        let mut end = text.len().min(123);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text[..end].to_string()
    }
}

impl std::fmt::Display for Close {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Close::Malformed(why) => write!(f, "malformed message: {why}"),
            Close::Stream(refused) => refused.fmt(f),
            Close::Refused(why) => f.write_str(why),
            Close::TooFast => write!(
                f,
                "too many messages: at most {} a second",
                limits::MESSAGES_PER_SECOND_MAX
            ),
            Close::TooSlow => write!(f, "too slow to keep up with the room"),
            Close::NotARacer => write!(f, "only a racer sends that"),
            Close::BeforeCountdown => write!(f, "nothing is streamed before the countdown"),
            Close::RoomFull => write!(f, "the room is full"),
            Close::RaceStarted => write!(f, "the race has started: join as a spectator"),
            Close::NotHello => write!(f, "the first message is a hello"),
            Close::HelloTimeout => write!(f, "no hello in time"),
            Close::HelloTwice => write!(f, "hello was said already"),
            Close::BadToken(why) => write!(f, "token refused: {why}"),
            Close::UnknownKey => write!(f, "no racer of this room has that key"),
            Close::Replaced => write!(f, "this racer joined again on another connection"),
            Close::NoSuchRoom => write!(f, "no such room"),
            Close::Left => write!(f, "left the room"),
            Close::Over => write!(f, "the room is closed"),
            Close::ShuttingDown => write!(
                f,
                "this server is stopping: the race goes on, take your seat again with your key"
            ),
            Close::Moved => write!(
                f,
                "another server took the room up: take your seat again with your key"
            ),
            Close::Unreachable(why) => write!(f, "the room's server cannot be reached: {why}"),
        }
    }
}

/// `bytes` random bytes as lowercase hex.
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    // The OS's randomness; a failure leaves zeros, which only makes a collision likelier.
    let _ = getrandom::fill(&mut buf);
    crate::auth::hex(&buf)
}

/// The server's clock, Unix µs.
pub fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}
