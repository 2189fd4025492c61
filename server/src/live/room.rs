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

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::command::{Command, ConnId, Joining, Outbox, Outgoing, RoomHandle};
use super::journal::{self, Record};
use super::racer::{RacerRun, Taken};
use super::wire::{
    self, LiveClientMessage, LiveServerMessage, Phase, RacerState, RacerView, Role, RoomView,
    Stream,
};
use super::{Close, LiveContext, limits};
use crate::catalog::Level;
use crate::store::PlayerRow;
use crate::times::now_ms;

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
                () = sleep_until(deadline) => {
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

    /// Appends `record` to the journal (not while replaying it).
    fn record(&mut self, record: &Record) {
        if !self.restoring {
            journal::append(&mut self.journal, record);
        }
    }

    /// Hands the records waiting to the journal's writer, unless a batch is there already.
    fn flush_journal(&mut self) {
        if self.journal_busy || self.journal.is_empty() {
            return;
        }
        self.journal_busy = true;
        self.ctx.journal.push(journal::Op::Append(journal::Batch {
            room_id: self.id.clone(),
            body: std::mem::take(&mut self.journal),
            acks: std::mem::take(&mut self.journal_acks),
            reply: self.commands.clone(),
        }));
    }

    /// The journal holds `acks`: each racer's page is told (cumulative acks).
    fn on_journaled(&mut self, acks: Vec<(u8, u32)>) {
        self.journal_busy = false;
        for (number, seq) in acks {
            let Some(racer) = self.racers.get_mut(usize::from(number)) else {
                continue;
            };
            racer.durable = Some(seq);
            if let Some(member) = racer.conn.and_then(|c| self.members.get(&c)) {
                member.out.push(Outgoing::Binary(wire::ack(seq).into()));
            }
        }
    }

    /// One journal record, replayed by [`restore`] through the code that took it first.
    fn replay(&mut self, record: Record) -> Result<(), String> {
        match record {
            Record::Roster(roster) => {
                if self.phase != Phase::Lobby {
                    return Err("a second roster".into());
                }
                for (i, seat) in roster.seats.iter().enumerate() {
                    let number = u8::try_from(i).map_err(|_| "too many seats")?;
                    self.racers.push(Racer::new(
                        number,
                        seat.name.clone(),
                        seat.player(),
                        seat.key.clone(),
                    ));
                    self.racers[i].ready = true;
                }
                self.begin_countdown(roster.go_ms, roster.ends_ms)?;
                if now_ms() >= roster.go_ms {
                    self.go();
                }
            }
            Record::Stream {
                racer,
                since_go_us,
                message,
            } => {
                let seq = Stream::decode(&message).map_err(|e| e.to_string())?.seq();
                if usize::from(racer) >= self.racers.len() {
                    return Err(format!("a message of racer {racer}, who has no seat"));
                }
                match self.take_from(racer, &message, since_go_us) {
                    Ok(Some((number, _))) => self.after_take(number),
                    Ok(None) => {}
                    Err(why) => return Err(format!("racer {racer}'s message {seq}: {why}")),
                }
                self.racers[usize::from(racer)].durable = Some(seq);
            }
            Record::Ended { racer, state } => {
                if usize::from(racer) >= self.racers.len() {
                    return Err(format!("the end of racer {racer}, who has no seat"));
                }
                self.end_racer(racer, state);
            }
        }
        Ok(())
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
            Command::Filed { racer, run_id } => {
                if let Some(r) = self.racers.get_mut(usize::from(racer)) {
                    r.run_id = run_id;
                }
                self.publish();
            }
            Command::Journaled { acks } => self.on_journaled(acks),
            // Handled by `run`.
            Command::Moved => {}
        }
    }

    // -- joining and leaving -------------------------------------------------------------------

    fn join(&mut self, conn: ConnId, joining: Joining) -> Result<(), Close> {
        let member = match joining.role {
            Role::Spectator => {
                let watching = self.members.values().filter(|m| m.racer.is_none()).count();
                if watching >= limits::ROOM_SPECTATORS_MAX {
                    return Err(Close::RoomFull);
                }
                Member {
                    role: Role::Spectator,
                    racer: None,
                    out: joining.out,
                }
            }
            Role::Racer => {
                let number = self.seat(&joining)?;
                let racer = &mut self.racers[usize::from(number)];
                if let Some(old) = racer.conn.replace(conn) {
                    if let Some(old) = self.members.remove(&old) {
                        old.out.push(Outgoing::Close(Close::Replaced));
                    }
                }
                racer.cut_at = None;
                racer.away = false;
                Member {
                    role: Role::Racer,
                    racer: Some(number),
                    out: joining.out,
                }
            }
        };
        self.empty_since = None;
        let welcome = LiveServerMessage::Welcome {
            racer: member.racer,
            key: member
                .racer
                .map(|n| self.racers[usize::from(n)].key.clone()),
            acked: member
                .racer
                .and_then(|n| self.racers[usize::from(n)].durable),
            server_ms: now_ms(),
            room: self.view(),
        };
        send_text(&member.out, &welcome);
        // The stream so far, every racer's but the member's own, one message a racer.
        for racer in &self.racers {
            if Some(racer.number) == member.racer || racer.relayed.is_empty() {
                continue;
            }
            let backlog = wire::backlog(racer.number, &racer.relayed);
            if !member.out.push(Outgoing::Binary(backlog.into())) {
                return Err(Close::TooSlow);
            }
        }
        tracing::info!(room = %self.id, role = ?member.role, racer = ?member.racer, "joined");
        self.members.insert(conn, member);
        self.publish();
        Ok(())
    }

    /// The racer seat for `joining`: theirs again (by key, or by player), or a new one in
    /// the lobby.
    fn seat(&mut self, joining: &Joining) -> Result<u8, Close> {
        if let Some(key) = &joining.resume {
            return self
                .racers
                .iter()
                .find(|r| &r.key == key)
                .map(|r| r.number)
                .ok_or(Close::UnknownKey);
        }
        if let Some(player) = &joining.player {
            if let Some(r) = self
                .racers
                .iter()
                .find(|r| r.player.as_ref().is_some_and(|p| p.id == player.id))
            {
                return Ok(r.number);
            }
        }
        if self.phase != Phase::Lobby {
            return Err(Close::RaceStarted);
        }
        if self.racers.len() >= limits::ROOM_RACERS_MAX {
            return Err(Close::RoomFull);
        }
        let number = u8::try_from(self.racers.len()).map_err(|_| Close::RoomFull)?;
        let name = match &joining.player {
            Some(p) => p.name.clone(),
            None => {
                self.guests += 1;
                format!("guest {}", self.guests)
            }
        };
        let racer = Racer::new(number, name, joining.player.clone(), super::random_hex(16));
        self.racers.push(racer);
        Ok(number)
    }

    fn on_gone(&mut self, conn: ConnId) {
        let Some(member) = self.members.remove(&conn) else {
            return;
        };
        if let Some(number) = member.racer {
            let racer = &mut self.racers[usize::from(number)];
            if racer.conn == Some(conn) {
                racer.conn = None;
                if self.phase == Phase::Lobby {
                    self.remove_racer(number);
                } else if racer.state == RacerState::Racing || racer.state == RacerState::Waiting {
                    racer.cut_at = Some(Instant::now());
                    tracing::info!(room = %self.id, racer = number, "racer cut off: waiting for a resume");
                }
            }
        }
        if self.members.is_empty() && self.phase == Phase::Lobby {
            self.empty_since = Some(Instant::now());
        }
        self.publish();
    }

    /// A racer leaves the lobby: the seats after theirs move down one (numbers are seats).
    fn remove_racer(&mut self, number: u8) {
        self.racers.remove(usize::from(number));
        for (i, racer) in self.racers.iter_mut().enumerate() {
            racer.number = i as u8;
            if let Some(conn) = racer.conn {
                if let Some(member) = self.members.get_mut(&conn) {
                    member.racer = Some(racer.number);
                }
            }
        }
        self.maybe_start();
    }

    // -- control messages ---------------------------------------------------------------------

    fn on_text(&mut self, conn: ConnId, message: LiveClientMessage) {
        let Some(member) = self.members.get(&conn) else {
            return;
        };
        match message {
            LiveClientMessage::Ping { id } => {
                let now_us = super::now_us();
                send_text(
                    &member.out,
                    &LiveServerMessage::Pong {
                        id,
                        server_ms: now_us.div_euclid(1000),
                        server_us: now_us,
                    },
                );
            }
            LiveClientMessage::Ready { ready } => {
                let Some(number) = member.racer else {
                    self.close(conn, Close::NotARacer);
                    return;
                };
                if self.phase == Phase::Lobby {
                    self.racers[usize::from(number)].ready = ready;
                    self.maybe_start();
                    self.publish();
                }
            }
            LiveClientMessage::Leave {} => {
                if let Some(number) = member.racer {
                    if self.phase == Phase::Lobby {
                        self.members.remove(&conn);
                        self.remove_racer(number);
                    } else {
                        self.end_racer(number, RacerState::Left);
                    }
                }
                self.close(conn, Close::Left);
                self.publish();
            }
            LiveClientMessage::Away {} => {
                if let Some(number) = member.racer {
                    if self.phase != Phase::Lobby {
                        self.racers[usize::from(number)].away = true;
                    }
                }
            }
            LiveClientMessage::Hello { .. } => self.close(conn, Close::HelloTwice),
        }
    }

    /// The countdown starts when every racer is connected and ready.
    fn maybe_start(&mut self) {
        let all_ready =
            !self.racers.is_empty() && self.racers.iter().all(|r| r.ready && r.conn.is_some());
        if self.phase != Phase::Lobby || !all_ready {
            return;
        }
        let go = now_ms() + self.ctx.settings.countdown_ms;
        let ends = go + self.ctx.settings.race_ms_max;
        if let Err(e) = self.begin_countdown(go, ends) {
            tracing::error!(room = %self.id, error = %e, "cannot start the racers' runs");
        }
        let roster = Record::Roster(journal::Roster {
            go_ms: go,
            ends_ms: ends,
            seats: self
                .racers
                .iter()
                .map(|r| journal::Seat {
                    name: r.name.clone(),
                    player: r.player.as_ref().map(|p| (p.id, p.hidden)),
                    key: r.key.clone(),
                })
                .collect(),
        });
        self.record(&roster);
        tracing::info!(room = %self.id, racers = self.racers.len(), go_ms = go, "countdown");
    }

    /// GO is set at `go` (Unix ms), the race ends at `ends` at the latest: each racer's run
    /// begins (on the level's world, dated GO to the second).
    fn begin_countdown(&mut self, go: i64, ends: i64) -> Result<(), String> {
        let date = crate::times::rfc3339_seconds(go);
        let (world, tuning) = self.ctx.level(self.info.as_deref());
        let mut refused = Ok(());
        for racer in &mut self.racers {
            let name = racer.player.as_ref().map(|p| p.name.clone());
            match RacerRun::new_checked(&world, &tuning, name, &date, &self.ctx) {
                Ok(run) => racer.run = Some(run),
                Err(e) => refused = Err(e),
            }
        }
        self.phase = Phase::Countdown;
        self.go_ms = Some(go);
        self.ends_ms = Some(ends);
        refused
    }

    /// GO: the race is on for every racer still waiting for it.
    fn go(&mut self) {
        self.phase = Phase::Racing;
        for racer in &mut self.racers {
            if racer.state == RacerState::Waiting {
                racer.state = RacerState::Racing;
            }
        }
    }

    // -- the stream ---------------------------------------------------------------------------

    fn on_stream(&mut self, conn: ConnId, bytes: &[u8], received_us: i64) {
        match self.take(conn, bytes, received_us) {
            Ok(Some((number, frame))) => {
                self.relay(conn, frame);
                self.after_take(number);
            }
            Ok(None) => {}
            Err(why) => self.close(conn, why),
        }
    }

    /// Takes a racer's stream message: checked, acknowledged, kept and returned as the frame
    /// to relay (none: a copy of one taken before). `Err`: the connection is closed with it,
    /// and nothing changed.
    fn take(
        &mut self,
        conn: ConnId,
        bytes: &[u8],
        received_us: i64,
    ) -> Result<Option<(u8, Bytes)>, Close> {
        let Some(member) = self.members.get(&conn) else {
            return Ok(None);
        };
        let number = member.racer.ok_or(Close::NotARacer)?;
        let go_ms = self.go_ms.ok_or(Close::BeforeCountdown)?;
        self.take_from(number, bytes, received_us - go_ms * 1000)
    }

    /// Takes racer `number`'s stream message `bytes`, which arrived `since_go_us` after GO
    /// (as [`take`](Self::take); also the journal's replay): journaled, to be acknowledged
    /// once the journal holds it.
    fn take_from(
        &mut self,
        number: u8,
        bytes: &[u8],
        since_go_us: i64,
    ) -> Result<Option<(u8, Bytes)>, Close> {
        let message = Stream::decode(bytes).map_err(|e| Close::Malformed(e.to_string()))?;
        let racer = &mut self.racers[usize::from(number)];
        // Waiting: the countdown's last instant, GO not yet seen by this task's timer (the
        // message is judged against GO all the same).
        if !matches!(racer.state, RacerState::Racing | RacerState::Waiting) {
            return Err(Close::Refused("the race is over for you".into()));
        }
        if racer.relayed.len() >= limits::RACER_MESSAGES_MAX {
            return Err(Close::Refused("the stream is over its limit".into()));
        }
        let run = racer.run.as_mut().ok_or(Close::Refused("no run".into()))?;
        let taken = run.take(&message, since_go_us).map_err(Close::Stream)?;
        if taken == Taken::Again {
            return Ok(None);
        }
        let frame = Bytes::from(wire::relay(
            number,
            u64::try_from(since_go_us).unwrap_or(0),
            bytes,
        ));
        racer.relayed.push(frame.clone());
        // Acknowledged once the journal holds it: one cumulative ack a racer a batch.
        let seq = message.seq();
        match self.journal_acks.iter_mut().find(|(n, _)| *n == number) {
            Some(ack) => ack.1 = seq,
            None => self.journal_acks.push((number, seq)),
        }
        self.record(&Record::Stream {
            racer: number,
            since_go_us,
            message: bytes.to_vec(),
        });
        Ok(Some((number, frame)))
    }

    /// Every other member gets `frame`; one whose queue is full is too slow and is closed.
    fn relay(&mut self, from: ConnId, frame: Bytes) {
        let mut slow = Vec::new();
        for (&conn, member) in &self.members {
            if conn != from && !member.out.push(Outgoing::Binary(frame.clone())) {
                slow.push(conn);
            }
        }
        for conn in slow {
            self.close(conn, Close::TooSlow);
        }
    }

    /// After a racer's message: a desync named, a finish filed.
    fn after_take(&mut self, number: u8) {
        let racer = &mut self.racers[usize::from(number)];
        let Some(run) = racer.run.as_ref() else {
            return;
        };
        if let Some(desync) = run.desync() {
            let message = LiveServerMessage::Desync {
                racer: number,
                tick: desync.tick,
                expected: desync.expected.map_or("-".into(), |h| format!("{h:016x}")),
                found: format!("{:016x}", desync.found),
            };
            tracing::warn!(room = %self.id, racer = number, name = %racer.name, "desync: {}", desync.why);
            racer.state = RacerState::Desynced;
            self.broadcast(&message);
            self.check_over();
            self.publish();
        } else if run.finished() {
            self.end_racer(number, RacerState::Finished);
            self.publish();
        }
    }

    /// A racer's run ends in `state`: it is filed (if they race under a name and did not
    /// desync), and the race may be over.
    fn end_racer(&mut self, number: u8, state: RacerState) {
        let racer = &mut self.racers[usize::from(number)];
        if racer.state != RacerState::Racing && racer.state != RacerState::Waiting {
            return;
        }
        racer.state = state;
        tracing::info!(room = %self.id, racer = number, name = %racer.name, state = ?state, "racer done");
        let by_stream = matches!(state, RacerState::Finished | RacerState::Desynced);
        if let (Some(player), Some(run)) = (racer.player.clone(), racer.run.as_mut()) {
            if let Some(bytes) = run.replay() {
                let realtime_note = if state == RacerState::Finished {
                    run.realtime_note().map(str::to_string)
                } else {
                    Some(format!("the run did not finish ({state:?})").to_lowercase())
                };
                super::filer::spawn(
                    self.ctx.clone(),
                    self.commands.clone(),
                    self.id.clone(),
                    number,
                    player,
                    bytes,
                    realtime_note,
                );
            }
        }
        if !by_stream {
            self.record(&Record::Ended {
                racer: number,
                state,
            });
        }
        self.check_over();
    }

    fn check_over(&mut self) {
        let racing = self
            .racers
            .iter()
            .any(|r| matches!(r.state, RacerState::Racing | RacerState::Waiting));
        if !racing && self.phase == Phase::Racing {
            self.phase = Phase::Over;
            self.over_at = Some(Instant::now());
            tracing::info!(room = %self.id, "race over");
        }
    }

    // -- deadlines ------------------------------------------------------------------------------

    fn next_deadline(&self) -> Option<Instant> {
        let at_ms = |ms: i64| {
            let wait = u64::try_from(ms - now_ms()).unwrap_or(0);
            Instant::now() + Duration::from_millis(wait)
        };
        let grace = self.ctx.settings.resume_grace;
        [
            self.empty_since.map(|t| t + limits::LOBBY_EMPTY_MAX),
            (self.phase == Phase::Countdown)
                .then(|| self.go_ms.map(at_ms))
                .flatten(),
            (self.phase == Phase::Racing)
                .then(|| self.ends_ms.map(at_ms))
                .flatten(),
            self.racers.iter().filter_map(|r| r.back_by(grace)).min(),
            self.over_at.map(|t| t + limits::ROOM_LINGER),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Whatever is due now; `true` when the room should close.
    fn on_deadline(&mut self) -> bool {
        let now = Instant::now();
        if self
            .empty_since
            .is_some_and(|t| now >= t + limits::LOBBY_EMPTY_MAX)
        {
            return true;
        }
        if self.over_at.is_some_and(|t| now >= t + limits::ROOM_LINGER) {
            self.close_all(Close::Over);
            return true;
        }
        let now_ms = now_ms();
        if self.phase == Phase::Countdown && self.go_ms.is_some_and(|go| now_ms >= go) {
            self.go();
            tracing::info!(room = %self.id, "GO");
        }
        if self.phase == Phase::Racing && self.ends_ms.is_some_and(|end| now_ms >= end) {
            for number in 0..self.racers.len() as u8 {
                self.end_racer(number, RacerState::Timeout);
            }
        }
        let grace = self.ctx.settings.resume_grace;
        let cut: Vec<(u8, bool)> = self
            .racers
            .iter()
            .filter(|r| r.back_by(grace).is_some_and(|t| now >= t))
            .map(|r| (r.number, r.away))
            .collect();
        for (number, away) in cut {
            self.racers[usize::from(number)].cut_at = None;
            let state = if away {
                RacerState::Left
            } else {
                RacerState::Cut
            };
            self.end_racer(number, state);
        }
        self.publish();
        false
    }

    // -- telling the members --------------------------------------------------------------------

    fn view(&self) -> RoomView {
        RoomView {
            id: self.id.clone(),
            level: self.level.clone(),
            tick_rate: self.ctx.catalog.tick_rate(),
            phase: self.phase,
            go_ms: self.go_ms,
            ends_ms: self.ends_ms,
            slack_ms: self.ctx.slack_ms,
            racers: self.racers.iter().map(Racer::view).collect(),
            spectators: self.members.values().filter(|m| m.racer.is_none()).count(),
            note: self.note.clone(),
        }
    }

    /// The room changed: every member is told, and the view handle (the API, the database)
    /// gets the new view.
    fn publish(&mut self) {
        let view = self.view();
        let message = LiveServerMessage::Room { room: view.clone() };
        self.broadcast(&message);
        self.view.send_replace(view);
    }

    fn broadcast(&mut self, message: &LiveServerMessage) {
        let Ok(text) = serde_json::to_string(message) else {
            return;
        };
        let mut slow = Vec::new();
        for (&conn, member) in &self.members {
            if !member.out.push(Outgoing::Text(text.clone())) {
                slow.push(conn);
            }
        }
        for conn in slow {
            self.close(conn, Close::TooSlow);
        }
    }

    /// Closes `conn` with `why`: the member leaves the room (a racer's seat stays theirs to
    /// resume, as after a cut).
    fn close(&mut self, conn: ConnId, why: Close) {
        if let Some(member) = self.members.get(&conn) {
            tracing::info!(room = %self.id, racer = ?member.racer, reason = %why, "closing a connection");
            member.out.push(Outgoing::Close(why));
        }
        self.on_gone(conn);
    }

    fn close_all(&mut self, why: Close) {
        for member in self.members.values() {
            member.out.push(Outgoing::Close(why.clone()));
        }
        self.members.clear();
    }
}

impl Racer {
    fn view(&self) -> RacerView {
        let run = self.run.as_ref();
        RacerView {
            racer: self.number,
            name: self.name.clone(),
            registered: self.player.is_some(),
            ready: self.ready,
            connected: self.conn.is_some(),
            state: self.state,
            tick: run.map_or(0, RacerRun::ticks),
            splits: run.map_or_else(Vec::new, |r| {
                r.splits()
                    .iter()
                    .map(|&(checkpoint, tick)| wire::SplitView { checkpoint, tick })
                    .collect()
            }),
            finish_tick: run.and_then(RacerRun::finish_tick),
            realtime: run.is_some_and(|r| r.realtime_note().is_none()),
            realtime_note: run.and_then(|r| r.realtime_note().map(str::to_string)),
            run_id: self.run_id,
        }
    }
}

impl RacerRun {
    /// A run for a racer of `world` (if the level loads) with the room's settings.
    fn new_checked(
        world: &Option<Arc<pogo_core::world::World>>,
        tuning: &pogo_core::Tuning,
        name: Option<String>,
        date: &str,
        ctx: &LiveContext,
    ) -> Result<RacerRun, String> {
        let world = world.clone().ok_or("the level is gone")?;
        RacerRun::new(
            world,
            tuning.clone(),
            name,
            date.to_string(),
            ctx.slack_ms,
            ctx.catalog.verifier().limits().ticks_max,
        )
    }
}

fn send_text(out: &Outbox, message: &LiveServerMessage) {
    if let Ok(text) = serde_json::to_string(message) {
        out.push(Outgoing::Text(text));
    }
}

/// Sleeps until `deadline`, or forever without one.
async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
