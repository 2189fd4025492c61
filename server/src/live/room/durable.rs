//! The journal, from the room's side: each record appended as it happens, the waiting
//! records handed to the writer one batch at a time, each racer's page told what the
//! database holds once it is committed, and the records read back through the code that
//! took them first when the room is taken up ([`restore`](super::restore)).
//!
//! The writer answers a room through its [`Answer`] (a [`RoomAnswer`]), on the writer's own
//! task, as a member's message is handled on its reader's: the room's task is not woken for
//! a commit. An ack goes with the next relay to its racer (one write for both) or, if none
//! comes by the writer's next commit (at least [`COMMIT_EVERY`](journal::COMMIT_EVERY)
//! later), alone then: no timer a room. Racers who send only their changes get their relays
//! in bursts (rivals change their inputs at about the same moments), and an ack held only
//! 25 ms went alone 2 200 times a second more for 400 of them than one held 100 ms, a tenth
//! of the server's CPU (PERFORMANCE.md, "The relay and its floor"). A racer alone gets every
//! ack that late; nothing else waits for an ack.

use std::sync::Weak;

use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;

use super::{Cell, Racer, Room};
use crate::live::command::{Answer, Command, Outgoing};
use crate::live::journal::{self, Record};
use crate::live::wire::{Phase, Stream};
use crate::times::now_ms;

/// The journal writer's way back into a room ([`Answer`]). Weak: a room gone is not kept
/// alive by its last batch.
#[derive(Debug)]
pub(super) struct RoomAnswer {
    pub(super) cell: Weak<Cell>,
    pub(super) commands: mpsc::Sender<Command>,
}

impl Answer for RoomAnswer {
    fn journaled(&self, acks: Vec<(u8, u32)>) -> bool {
        self.with_room(|room| {
            room.on_journaled(acks);
            room.flush_journal();
            room.holds_acks()
        })
        .unwrap_or(false)
    }

    fn send_held_acks(&self) {
        self.with_room(Room::send_held_acks);
    }

    fn moved(&self) {
        if let Err(TrySendError::Full(moved)) = self.commands.try_send(Command::Moved) {
            let commands = self.commands.clone();
            tokio::spawn(async move {
                let _ = commands.send(moved).await;
            });
        }
    }
}

impl RoomAnswer {
    /// `f` on the room, unless it is gone or closed (its task has ended).
    fn with_room<T>(&self, f: impl FnOnce(&mut Room) -> T) -> Option<T> {
        let cell = self.cell.upgrade()?;
        let mut room = cell.room.lock().ok()?;
        if room.closed {
            return None;
        }
        Some(f(&mut room))
    }
}

impl Room {
    /// Appends `record` to the journal (not while replaying it).
    pub(super) fn record(&mut self, record: &Record) {
        if !self.restoring {
            journal::append(&mut self.journal, record);
        }
    }

    /// Appends racer `racer`'s stream message `message`, taken `since_go_us` after GO, to the
    /// journal (not while replaying it).
    pub(super) fn record_stream(&mut self, racer: u8, since_go_us: i64, message: &[u8]) {
        if !self.restoring {
            journal::append_stream(&mut self.journal, racer, since_go_us, message);
        }
    }

    /// Hands the records waiting to the journal's writer, unless a batch is there already.
    pub(super) fn flush_journal(&mut self) {
        if self.journal_busy || self.journal.is_empty() {
            return;
        }
        self.journal_busy = true;
        // The next batch's buffers sized as this one's: one allocation each, not a string of
        // reallocations as the records come (a room hands over ten batches a second).
        let capacity = self.journal.len();
        let body = std::mem::replace(&mut self.journal, Vec::with_capacity(capacity));
        let acks = std::mem::replace(
            &mut self.journal_acks,
            Vec::with_capacity(self.racers.len()),
        );
        // A stopped writer (the process is stopping) never acknowledges the batch: its
        // messages are still in the pages, which send them again to the rooms' next home.
        let _ = self.ctx.journal.push(journal::Op::Append(journal::Batch {
            room_id: self.id.clone(),
            body,
            acks,
            room: self.answer.clone(),
        }));
    }

    /// The journal holds `acks`: each racer's page is to be told (cumulative acks), with the
    /// next relay to them or with the writer's next commit ([`Answer`]).
    fn on_journaled(&mut self, acks: Vec<(u8, u32)>) {
        self.journal_busy = false;
        for (number, seq) in acks {
            let Some(racer) = self.racers.get_mut(usize::from(number)) else {
                continue;
            };
            racer.durable = Some(seq);
            if racer.conn.is_some() {
                racer.ack_held = Some(seq);
            }
        }
    }

    /// Sends every ack held (a racer gone has none to send: their welcome says what is held
    /// when they come back).
    fn send_held_acks(&mut self) {
        for racer in &mut self.racers {
            let Some(seq) = racer.ack_held.take() else {
                continue;
            };
            if let Some(member) = racer.conn.and_then(|c| self.members.get(&c)) {
                member.out.push(Outgoing::Binary(self.frames.ack(seq)));
            }
        }
    }

    fn holds_acks(&self) -> bool {
        self.racers.iter().any(|r| r.ack_held.is_some())
    }

    /// One journal record, replayed by [`restore`] through the code that took it first.
    pub(super) fn replay(&mut self, record: Record) -> Result<(), String> {
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
}
