//! The stream: a racer's message taken (checked, judged in real time and re-simulated by
//! their [`RacerRun`](crate::live::racer::RacerRun), then journaled), relayed at once to every
//! other member and kept for those who catch up; a desync named; a finish, or any other end
//! of a run, handed to the filer.

use axum::body::Bytes;
use tokio::time::Instant;

use super::Room;
use crate::live::command::{ConnId, Outgoing};
use crate::live::journal::Record;
use crate::live::racer::Taken;
use crate::live::wire::{LiveServerMessage, Phase, RacerState, Stream};
use crate::live::{Close, limits};

impl Room {
    /// A binary frame from member `conn`, read at `received_us` (Unix µs): taken, relayed and
    /// followed up, or the connection closed with why.
    pub(super) fn on_stream(&mut self, conn: ConnId, bytes: &[u8], received_us: i64) {
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
    pub(super) fn take_from(
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
        if racer.relayed.frames() >= limits::RACER_MESSAGES_MAX {
            return Err(Close::Refused("the stream is over its limit".into()));
        }
        // The reason is made only when refused: this runs for every message.
        let run = racer
            .run
            .as_mut()
            .ok_or_else(|| Close::Refused("no run".into()))?;
        let taken = run.take(&message, since_go_us).map_err(Close::Stream)?;
        if taken == Taken::Again {
            return Ok(None);
        }
        let frame = self
            .frames
            .relay(number, u64::try_from(since_go_us).unwrap_or(0), bytes);
        racer.relayed.push(&frame);
        // Acknowledged once the journal holds it: one cumulative ack a racer a batch.
        let seq = message.seq();
        match self.journal_acks.iter_mut().find(|(n, _)| *n == number) {
            Some(ack) => ack.1 = seq,
            None => self.journal_acks.push((number, seq)),
        }
        self.record_stream(number, since_go_us, bytes);
        Ok(Some((number, frame)))
    }

    /// Every other member gets `frame` (a racer's held ack just before it: one write for
    /// both); one whose queue is full is too slow and is closed.
    fn relay(&mut self, from: ConnId, frame: Bytes) {
        let mut slow = Vec::new();
        for (&conn, member) in self.members.iter() {
            if conn == from {
                continue;
            }
            let racer = member
                .racer
                .and_then(|n| self.racers.get_mut(usize::from(n)));
            let outgoing = match racer.and_then(|r| r.ack_held.take()) {
                Some(seq) => Outgoing::AckThen(self.frames.ack(seq), frame.clone()),
                None => Outgoing::Binary(frame.clone()),
            };
            if !member.out.push(outgoing) {
                slow.push(conn);
            }
        }
        for conn in slow {
            self.close(conn, Close::TooSlow);
        }
    }

    /// After a racer's message: a desync named, a finish filed.
    pub(super) fn after_take(&mut self, number: u8) {
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
    pub(super) fn end_racer(&mut self, number: u8, state: RacerState) {
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
                crate::live::filer::spawn(
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

    /// The filer is done with racer `racer`'s run: its id (`None`: not filed) goes in the view.
    pub(super) fn on_filed(&mut self, racer: u8, run_id: Option<i64>) {
        if let Some(r) = self.racers.get_mut(usize::from(racer)) {
            r.run_id = run_id;
        }
        self.publish();
    }
}
