//! One live room: a task that owns the race and everything in it, driven by commands from its
//! members' connections and by its own deadlines. Nothing else touches a room's state.
//!
//! ```text
//!            all racers ready                GO                 all done / time limit
//!   lobby ─────────────────────▶ countdown ──────▶ racing ───────────────────────────▶ over
//!     ▲ join, ready, leave          (GO is set on the server's clock; every page counts down)
//! ```
//!
//! A racer's stream message is checked and taken by their [`RacerRun`], relayed at once to
//! every other member (and kept, so a spectator or a resuming racer catches up from the
//! stream so far), then re-simulated. A racer's run is filed when it ends: finished (ranked,
//! real-time if every message came on time), left, cut off for good or out of time (kept,
//! unranked); a desynced run is not filed. Filing (verification and the database) runs in a
//! task of its own: the room never waits on the database.
//!
//! This file holds the room's state, its task and where each [`Command`] goes; each concern
//! is a file of its own, every one of them an `impl Room` block:
//!
//! | file | the concern | commands |
//! | --- | --- | --- |
//! | `join.rs` | joining and leaving: seats, resumes, a connection gone | `Join`, `Gone` |
//! | `control.rs` | control messages: ping, ready, leave, away | `Text` |
//! | `stream.rs` | the stream: take, judge, relay, finish, file | `Binary`, `Filed` |
//! | `deadlines.rs` | the countdown, GO, the time limit, resume graces, the linger | (its timer) |
//! | `durable.rs` | the journal: records, batches, acks once committed, the replay | `Journaled` |
//! | `publish.rs` | telling the members: the view, broadcasts, closes | |

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::command::{Command, ConnId, Outbox, RoomHandle};
use super::journal;
use super::racer::RacerRun;
use super::wire::{Phase, RacerState, Role, RoomView};
use super::{Close, LiveContext, limits};
use crate::catalog::Level;
use crate::store::PlayerRow;

mod control;
mod deadlines;
mod durable;
mod join;
mod publish;
mod stream;

struct Member {
    role: Role,
    racer: Option<u8>,
    out: Outbox,
}

struct Racer {
    number: u8,
    name: String,
    player: Option<PlayerRow>,
    key: String,
    ready: bool,
    conn: Option<ConnId>,
    /// When the racer's connection dropped mid-race: the resume grace runs from it.
    cut_at: Option<Instant>,
    /// Their page said it was going away (`away`): a cut ends as a leave after
    /// [`limits::AWAY_GRACE`] instead of the resume grace.
    away: bool,
    state: RacerState,
    run: Option<RacerRun>,
    /// The racer's stream as relayed (`wire::relay` frames), for members who catch up.
    relayed: Vec<Bytes>,
    run_id: Option<i64>,
    /// The last message of theirs the journal holds: what their page is told is held.
    durable: Option<u32>,
}

impl Racer {
    fn new(number: u8, name: String, player: Option<PlayerRow>, key: String) -> Racer {
        Racer {
            number,
            name,
            player,
            key,
            ready: false,
            conn: None,
            cut_at: None,
            away: false,
            state: RacerState::Waiting,
            run: None,
            relayed: Vec::new(),
            run_id: None,
            durable: None,
        }
    }

    /// When a racer cut off must be back by (`grace`: the resume grace; a page that said it
    /// was going away has [`limits::AWAY_GRACE`] at most), or `None` when they are not cut.
    fn back_by(&self, grace: Duration) -> Option<Instant> {
        let grace = if self.away {
            grace.min(limits::AWAY_GRACE)
        } else {
            grace
        };
        self.cut_at.map(|t| t + grace)
    }
}

struct Room {
    ctx: Arc<LiveContext>,
    id: String,
    level: String,
    /// The level, resolved when the room was made or taken up (`None`: it is gone, and the
    /// race cannot start).
    info: Option<Arc<Level>>,
    phase: Phase,
    go_ms: Option<i64>,
    ends_ms: Option<i64>,
    racers: Vec<Racer>,
    members: HashMap<ConnId, Member>,
    /// Guests numbered for their names.
    guests: u32,
    /// Lobby with nobody in it since; the room closes after [`limits::LOBBY_EMPTY_MAX`].
    empty_since: Option<Instant>,
    over_at: Option<Instant>,
    view: watch::Sender<RoomView>,
    commands: mpsc::Sender<Command>,
    /// Journal records not yet handed to the writer, and each racer's last message in them.
    journal: Vec<u8>,
    journal_acks: Vec<(u8, u32)>,
    /// A batch is with the writer (one at a time: a room's rows stay in order).
    journal_busy: bool,
    /// Replaying the journal (`restore`): nothing is journaled again.
    restoring: bool,
    /// Why the room ended before its race did (it could not go on), for its view.
    note: Option<String>,
}

/// Starts room `id` on `level`; its task ends when the room is over and has lingered, or
/// the server shuts down.
pub fn spawn(
    ctx: Arc<LiveContext>,
    id: String,
    level: String,
    info: Option<Arc<Level>>,
) -> RoomHandle {
    let (commands, inbox) = mpsc::channel(limits::ROOM_INBOX_MAX);
    let room = Room::new(ctx, id, level, info, commands.clone());
    room.start(commands, inbox)
}

/// Takes room `id` on `level` up from its journal's rows (`journal.rs`), in the order they
/// were appended: the race as it was when its last row was committed, every racer cut off
/// (each has the resume grace from now to come back with their key). `Err`: why it cannot
/// be taken up.
pub fn restore(
    ctx: Arc<LiveContext>,
    id: String,
    level: String,
    info: Option<Arc<Level>>,
    rows: &[Vec<u8>],
) -> Result<RoomHandle, String> {
    let (commands, inbox) = mpsc::channel(limits::ROOM_INBOX_MAX);
    let mut room = Room::new(ctx, id, level, info, commands.clone());
    room.restoring = true;
    for row in rows {
        for record in journal::decode(row)? {
            room.replay(record)?;
        }
    }
    room.restoring = false;
    let now = Instant::now();
    for racer in &mut room.racers {
        if matches!(racer.state, RacerState::Racing | RacerState::Waiting) {
            racer.cut_at = Some(now);
        }
    }
    if room.phase != Phase::Lobby {
        room.empty_since = None;
    }
    Ok(room.start(commands, inbox))
}

impl RoomView {
    pub(super) fn empty(id: &str, level: &str, ctx: &LiveContext) -> RoomView {
        RoomView {
            id: id.to_string(),
            level: level.to_string(),
            tick_rate: ctx.catalog.tick_rate(),
            phase: Phase::Lobby,
            go_ms: None,
            ends_ms: None,
            slack_ms: ctx.slack_ms,
            racers: Vec::new(),
            spectators: 0,
            note: None,
        }
    }
}

impl Room {
    fn new(
        ctx: Arc<LiveContext>,
        id: String,
        level: String,
        info: Option<Arc<Level>>,
        commands: mpsc::Sender<Command>,
    ) -> Room {
        Room {
            view: watch::channel(RoomView::empty(&id, &level, &ctx)).0,
            ctx,
            id,
            level,
            info,
            phase: Phase::Lobby,
            go_ms: None,
            ends_ms: None,
            racers: Vec::new(),
            members: HashMap::new(),
            guests: 0,
            empty_since: Some(Instant::now()),
            over_at: None,
            commands,
            journal: Vec::new(),
            journal_acks: Vec::new(),
            journal_busy: false,
            restoring: false,
            note: None,
        }
    }

    fn start(
        mut self,
        commands: mpsc::Sender<Command>,
        inbox: mpsc::Receiver<Command>,
    ) -> RoomHandle {
        self.publish();
        let view = self.view.subscribe();
        tokio::spawn(self.run(inbox));
        RoomHandle { commands, view }
    }

    async fn run(mut self, mut inbox: mpsc::Receiver<Command>) {
        let mut shutdown = self.ctx.shutdown.subscribe();
        let handed_over = loop {
            let deadline = self.next_deadline();
            tokio::select! {
                command = inbox.recv() => match command {
                    Some(Command::Moved) => {
                        self.close_all(Close::Moved);
                        break true;
                    }
                    Some(command) => self.handle(command),
                    None => break false,
                },
                () = deadlines::sleep_until(deadline) => {
                    if self.on_deadline() {
                        break false;
                    }
                }
                () = shutdown.recv() => {
                    // Handed over: the journal holds the race, and the members come back to
                    // whichever process takes it up (this one, restarted, or another).
                    self.close_all(Close::ShuttingDown);
                    break true;
                }
            }
            self.flush_journal();
        };
        // What is left goes to the writer now, in order, acknowledged or not.
        self.journal_busy = false;
        self.flush_journal();
        if !handed_over {
            // Closed in the normal way: the room's row says so, and its journal goes.
            self.phase = Phase::Over;
            self.publish();
            self.ctx.journal.push(journal::Op::Forget(self.id.clone()));
        }
        self.ctx.rooms.forget(&self.id);
        tracing::info!(room = %self.id, handed_over, "room closed");
    }

    fn handle(&mut self, command: Command) {
        match command {
            Command::Join {
                conn,
                joining,
                done,
            } => {
                let _ = done.send(self.join(conn, joining));
            }
            Command::Text { conn, message } => self.on_text(conn, message),
            Command::Binary {
                conn,
                bytes,
                received_us,
            } => self.on_stream(conn, &bytes, received_us),
            Command::Gone { conn } => self.on_gone(conn),
            Command::Filed { racer, run_id } => self.on_filed(racer, run_id),
            Command::Journaled { acks } => self.on_journaled(acks),
            // Handled by `run`.
            Command::Moved => {}
        }
    }
}
