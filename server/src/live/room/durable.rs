//! The journal, from the room's side: each record appended as it happens, the waiting
//! records handed to the writer one batch at a time, each racer's page told what the
//! database holds once it is committed, and the records read back through the code that
//! took them first when the room is taken up ([`restore`](super::restore)).

use tokio::time::Instant;

use super::{Racer, Room};
use crate::live::command::Outgoing;
use crate::live::journal::{self, Record};
use crate::live::limits;
use crate::live::wire::{self, Phase, Stream};
use crate::times::now_ms;

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
        self.ctx.journal.push(journal::Op::Append(journal::Batch {
            room_id: self.id.clone(),
            body: std::mem::take(&mut self.journal),
            acks: std::mem::take(&mut self.journal_acks),
            reply: self.commands.clone(),
        }));
    }

    /// The journal holds `acks`: each racer's page is to be told (cumulative acks), with the
    /// next relay to them or after [`limits::ACK_HOLD`] (`send_due_acks`).
    pub(super) fn on_journaled(&mut self, acks: Vec<(u8, u32)>) {
        self.journal_busy = false;
        let now = Instant::now();
        for (number, seq) in acks {
            let Some(racer) = self.racers.get_mut(usize::from(number)) else {
                continue;
            };
            racer.durable = Some(seq);
            if racer.conn.is_some() {
                let since = racer.ack_held.map_or(now, |(_, since)| since);
                racer.ack_held = Some((seq, since));
            }
        }
    }

    /// Sends every ack held [`limits::ACK_HOLD`] or longer at `now` (a racer gone has none
    /// to send: their welcome says what is held when they come back).
    pub(super) fn send_due_acks(&mut self, now: Instant) {
        for racer in &mut self.racers {
            let Some((seq, since)) = racer.ack_held else {
                continue;
            };
            if now < since + limits::ACK_HOLD {
                continue;
            }
            racer.ack_held = None;
            if let Some(member) = racer.conn.and_then(|c| self.members.get(&c)) {
                member.out.push(Outgoing::Binary(wire::ack(seq).into()));
            }
        }
    }

    /// When the first held ack is due.
    pub(super) fn next_ack_due(&self) -> Option<Instant> {
        self.racers
            .iter()
            .filter_map(|r| r.ack_held.map(|(_, since)| since + limits::ACK_HOLD))
            .min()
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
