//! One live room: the race and everything in it, behind one lock. A member's connection
//! takes the lock to hand the room what the member sent ([`RoomHandle::deliver`]: a join, a
//! control message, a stream message, the connection gone), on its own task, so a stream
//! message is judged and relayed where it was read, with no hop through another task. The
//! room's own task takes it for the rest: its deadlines, and what its filing and its journal
//! answer. Nothing else touches a room's state.
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
//! | `durable.rs` | the journal: records, batches, acks once committed, the replay | (the writer's [`Answer`]) |
//! | `publish.rs` | telling the members: the view, broadcasts, closes | |

use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::{Notify, mpsc, watch};
use tokio::time::Instant;

use super::command::{Answer, Command, ConnId, Outbox};
use super::journal;
use super::racer::RacerRun;
use super::wire::{self, Backlog, Phase, RacerState, Role, RoomView};
use super::{Close, LiveContext, limits};
use crate::catalog::Level;
use crate::store::PlayerRow;

mod control;
mod deadlines;
mod durable;
mod join;
mod publish;
mod stream;

use durable::RoomAnswer;

struct Member {
    role: Role,
    racer: Option<u8>,
    out: Outbox,
}

/// A room's members by connection, in the order they joined: at most
/// [`limits::ROOM_RACERS_MAX`] racers and [`limits::ROOM_SPECTATORS_MAX`] spectators, found
/// by a scan. Every racer's message looks its sender up and then goes to all the others; a
/// few entries side by side are fewer cache lines for that than a hash table's, and no hash.
#[derive(Default)]
struct Members(Vec<(ConnId, Member)>);

impl Members {
    fn get(&self, conn: &ConnId) -> Option<&Member> {
        self.0.iter().find(|(c, _)| c == conn).map(|(_, m)| m)
    }

    fn get_mut(&mut self, conn: &ConnId) -> Option<&mut Member> {
        self.0.iter_mut().find(|(c, _)| c == conn).map(|(_, m)| m)
    }

    /// Adds `member` as `conn` (in place of one already there).
    fn insert(&mut self, conn: ConnId, member: Member) {
        match self.get_mut(&conn) {
            Some(old) => *old = member,
            None => self.0.push((conn, member)),
        }
    }

    fn remove(&mut self, conn: &ConnId) -> Option<Member> {
        let at = self.0.iter().position(|(c, _)| c == conn)?;
        Some(self.0.remove(at).1)
    }

    fn iter(&self) -> impl Iterator<Item = (&ConnId, &Member)> {
        self.0.iter().map(|(c, m)| (c, m))
    }

    fn values(&self) -> impl Iterator<Item = &Member> {
        self.0.iter().map(|(_, m)| m)
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn clear(&mut self) {
        self.0.clear();
    }
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
    /// The racer's stream as relayed (`wire::Frames::relay` frames), for members who catch up.
    relayed: Backlog,
    run_id: Option<i64>,
    /// The last message of theirs the journal holds: what their page is told is held.
    durable: Option<u32>,
    /// An ack not yet sent (the last message the journal holds): it goes with the next relay
    /// to the racer, or alone with the journal's next commit ([`Answer`]).
    ack_held: Option<u32>,
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
            relayed: Backlog::new(number),
            run_id: None,
            durable: None,
            ack_held: None,
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
    members: Members,
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
    /// Where the room's relays and acks are cut from (`wire::Frames`).
    frames: wire::Frames,
    /// A batch is with the writer (one at a time: a room's rows stay in order).
    journal_busy: bool,
    /// Replaying the journal (`restore`): nothing is journaled again.
    restoring: bool,
    /// Why the room ended before its race did (it could not go on), for its view.
    note: Option<String>,
    /// The deadline the room's task sleeps until (a member's message that brings a deadline
    /// nearer wakes the task).
    sleeping_until: Option<Instant>,
    /// The room's task has ended: members' messages are refused.
    closed: bool,
    /// How the journal's writer answers the room (its cell, from `start`).
    answer: Arc<dyn Answer>,
}

/// A room's handle: its members' way in, where its own events go, and its latest view.
#[derive(Clone, Debug)]
pub struct RoomHandle {
    /// The room's own events, which its task handles: [`Command::Filed`], [`Command::Moved`].
    /// A member's messages go through [`deliver`](RoomHandle::deliver), the journal's
    /// commits through an [`Answer`].
    pub commands: mpsc::Sender<Command>,
    pub view: watch::Receiver<RoomView>,
    cell: Arc<Cell>,
}

/// The room, shared by its task and its members' connections.
struct Cell {
    room: Mutex<Room>,
    /// Wakes the room's task when a member's message brought a deadline nearer.
    poke: Notify,
}

impl std::fmt::Debug for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Cell")
    }
}

/// A member's message that brings the next deadline nearer by less than this does not wake
/// the room's task (`next_deadline` converts wall-clock times with a millisecond's jitter).
const DEADLINE_SLOP: Duration = Duration::from_millis(1);

impl RoomHandle {
    /// Hands the room what a member's connection says (`Join`, `Text`, `Binary`, `Gone`),
    /// handled at once on the caller's task as the room's own task would; `false` if the
    /// room is closed.
    pub fn deliver(&self, command: Command) -> bool {
        let Ok(mut room) = self.cell.room.lock() else {
            return false;
        };
        if room.closed {
            return false;
        }
        room.handle(command);
        room.flush_journal();
        // A deadline that moved later, or went, leaves the task a wake-up that finds nothing
        // due (`run`); one that came nearer wakes it now.
        let next = room.next_deadline();
        let nearer = match (next, room.sleeping_until) {
            (Some(next), Some(sleeping)) => next + DEADLINE_SLOP < sleeping,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if nearer {
            room.sleeping_until = next;
            drop(room);
            self.cell.poke.notify_one();
        }
        true
    }
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
            members: Members::default(),
            guests: 0,
            empty_since: Some(Instant::now()),
            over_at: None,
            journal: Vec::new(),
            journal_acks: Vec::new(),
            frames: wire::Frames::default(),
            journal_busy: false,
            restoring: false,
            note: None,
            sleeping_until: None,
            closed: false,
            answer: Arc::new(RoomAnswer {
                cell: Weak::new(),
                commands: commands.clone(),
            }),
            commands,
        }
    }

    fn start(
        mut self,
        commands: mpsc::Sender<Command>,
        inbox: mpsc::Receiver<Command>,
    ) -> RoomHandle {
        self.publish();
        let view = self.view.subscribe();
        let (ctx, id) = (self.ctx.clone(), self.id.clone());
        let cell = Arc::new_cyclic(|this| {
            self.answer = Arc::new(RoomAnswer {
                cell: this.clone(),
                commands: commands.clone(),
            });
            Cell {
                room: Mutex::new(self),
                poke: Notify::new(),
            }
        });
        tokio::spawn(run(cell.clone(), inbox, ctx, id));
        RoomHandle {
            commands,
            view,
            cell,
        }
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
            // Handled by `run`.
            Command::Moved => {}
        }
    }
}

/// What woke the room's task.
enum Woken {
    Command(Option<Command>),
    Deadline,
    /// A member's message brought a deadline nearer: sleep again, until it.
    Poked,
    Shutdown,
}

/// The room's task: its deadlines and its own events, until the room is over and has
/// lingered, or the server shuts down.
async fn run(
    cell: Arc<Cell>,
    mut inbox: mpsc::Receiver<Command>,
    ctx: Arc<LiveContext>,
    id: String,
) {
    let mut shutdown = ctx.shutdown.subscribe();
    // A handler that panicked poisons the lock: the room stops as if handed over, its
    // journal kept for whichever process takes it up.
    let handed_over = loop {
        let deadline = {
            let Ok(mut room) = cell.room.lock() else {
                break true;
            };
            room.sleeping_until = room.next_deadline();
            room.sleeping_until
        };
        let woken = tokio::select! {
            command = inbox.recv() => Woken::Command(command),
            () = deadlines::sleep_until(deadline) => Woken::Deadline,
            () = cell.poke.notified() => Woken::Poked,
            () = shutdown.recv() => Woken::Shutdown,
        };
        let Ok(mut room) = cell.room.lock() else {
            break true;
        };
        // `Some(handed_over)` when the room ends.
        let end = match woken {
            Woken::Command(Some(Command::Moved)) => {
                room.close_all(Close::Moved);
                Some(true)
            }
            Woken::Command(Some(command)) => {
                room.handle(command);
                None
            }
            Woken::Command(None) => Some(false),
            Woken::Deadline => {
                // Unless the deadline slept on has moved since (a member's message).
                let due = room.next_deadline().is_some_and(|t| t <= Instant::now());
                (due && room.on_deadline()).then_some(false)
            }
            Woken::Poked => None,
            Woken::Shutdown => {
                // Handed over: the journal holds the race, and the members come back to
                // whichever process takes it up (this one, restarted, or another).
                room.close_all(Close::ShuttingDown);
                Some(true)
            }
        };
        if let Some(handed_over) = end {
            // No member's message is taken from now on.
            room.closed = true;
            break handed_over;
        }
        room.flush_journal();
    };
    if let Ok(mut room) = cell.room.lock() {
        room.closed = true;
        // What is left goes to the writer now, in order, acknowledged or not.
        room.journal_busy = false;
        room.flush_journal();
        if !handed_over {
            // Closed in the normal way: the room's row says so, and its journal goes.
            room.phase = Phase::Over;
            room.publish();
            // A stopped writer leaves the journal: a room with one is an orphan
            // (`RoomRows::orphans`), taken up again at the next start.
            let _ = ctx.journal.push(journal::Op::Forget(id.clone()));
        }
    }
    ctx.rooms.forget(&id);
    tracing::info!(room = %id, handed_over, "room closed");
}
