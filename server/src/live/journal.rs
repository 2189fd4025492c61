//! A room's journal: what a room must know to be taken up again after its process dies —
//! by the restarted process or by another on the same database — written to the database
//! (`room_journal`, migrations 0015 and 0019: appended to in one order, each room's rows a
//! chain from its head) *before* a racer is told a message is held.
//!
//! A room appends records as its race goes:
//!
//! | record | when | what |
//! | --- | --- | --- |
//! | roster | the countdown starts | GO, the end, each seat: name, player, key |
//! | stream | a racer's message is taken | racer, arrival (µs since GO, signed), the message's bytes |
//! | ended | a racer leaves, is cut off or runs out of time | racer, how it ended |
//!
//! A finish and a desync are not recorded: the stream decides them again. Taking a room up
//! replays its records through the same code that took them the first time
//! (`room::restore`): the same checks, the same real-time judgments (the arrival times are
//! the recorded ones), the same re-simulation and the same replay bytes, so a run filed
//! before the crash is found again by its replay's hash rather than filed twice.
//!
//! **Acknowledged means durable.** A room hands its new records to this process's writer
//! one batch at a time ([`Batch`]); the writer commits every batch waiting, from every room,
//! in one transaction (SQLite: one sync to disk), and only then does each room send its
//! racers their `ack`s. A page keeps every message not yet acknowledged, so a message lost
//! with a process was never acknowledged and the page sends it again on resume (stamped on
//! its new arrival). While the database is away the writer retries, acks wait, and nothing
//! else in the room does. A room that closes in the normal way deletes its journal.
//!
//! The key is kept as it was given: it lets its holder race that seat in that race only, and
//! the journal lives as long as the race does.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::LiveContext;
use super::command::{Answer, WriterQueue};
use super::wire::RacerState;
use crate::shutdown::Shutdown;
use crate::store::PlayerRow;

/// The seats and GO, recorded when the countdown starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Roster {
    /// GO on the server's clock (Unix ms).
    pub go_ms: i64,
    /// The race's end at the latest (Unix ms).
    pub ends_ms: i64,
    pub seats: Vec<Seat>,
}

/// One racer's seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    pub name: String,
    /// The player's id and whether they were hidden (a guest has none).
    pub player: Option<(i64, bool)>,
    pub key: String,
}

impl Seat {
    pub fn player(&self) -> Option<PlayerRow> {
        self.player.map(|(id, hidden)| PlayerRow {
            id,
            name: self.name.clone(),
            hidden,
        })
    }
}

/// One record of a room's journal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    Roster(Roster),
    /// Racer `racer`'s stream message `message` (its bytes as sent), taken on arrival
    /// `since_go_us` µs after GO (negative: before GO).
    Stream {
        racer: u8,
        since_go_us: i64,
        message: Vec<u8>,
    },
    /// Racer `racer`'s run ended, not by their stream: left, cut off or out of time.
    Ended {
        racer: u8,
        state: RacerState,
    },
}

const ROSTER: u8 = 1;
const STREAM: u8 = 2;
const ENDED: u8 = 3;

/// The bytes of `record` appended to `body`: kind u8, length u16 LE, that many bytes.
pub fn append(body: &mut Vec<u8>, record: &Record) {
    match record {
        Record::Roster(roster) => {
            put(
                body,
                ROSTER,
                &[&serde_json::to_vec(roster).unwrap_or_default()],
            );
        }
        Record::Stream {
            racer,
            since_go_us,
            message,
        } => append_stream(body, *racer, *since_go_us, message),
        Record::Ended { racer, state } => put(body, ENDED, &[&[*racer, ended_code(*state)]]),
    }
}

/// A [`Record::Stream`] appended to `body` from the message's bytes as read (no copy of them
/// on the way: this runs for every message a racer sends).
pub fn append_stream(body: &mut Vec<u8>, racer: u8, since_go_us: i64, message: &[u8]) {
    put(
        body,
        STREAM,
        &[&[racer], &since_go_us.to_le_bytes(), message],
    );
}

/// One record of kind `kind` whose bytes are `parts` one after the other. A roster of 8 seats
/// is well under 2 KiB and a stream message at most 21 bytes; a record over 64 KiB would be
/// cut at its length's limit.
fn put(body: &mut Vec<u8>, kind: u8, parts: &[&[u8]]) {
    let total: usize = parts.iter().map(|part| part.len()).sum();
    let len = u16::try_from(total).unwrap_or(u16::MAX);
    body.push(kind);
    body.extend_from_slice(&len.to_le_bytes());
    let mut left = usize::from(len);
    for part in parts {
        let n = part.len().min(left);
        body.extend_from_slice(&part[..n]);
        left -= n;
    }
}

/// The records of a journal row, in order; `Err` names what is wrong with it.
pub fn decode(mut body: &[u8]) -> Result<Vec<Record>, String> {
    let mut records = Vec::new();
    while let [kind, l0, l1, rest @ ..] = body {
        let len = usize::from(u16::from_le_bytes([*l0, *l1]));
        let bytes = rest
            .get(..len)
            .ok_or_else(|| format!("a record of {len} bytes with {} left", rest.len()))?;
        records.push(match *kind {
            ROSTER => {
                Record::Roster(serde_json::from_slice(bytes).map_err(|e| format!("a roster: {e}"))?)
            }
            STREAM => match bytes {
                [racer, us @ ..] if us.len() > 8 => Record::Stream {
                    racer: *racer,
                    since_go_us: i64::from_le_bytes(us[..8].try_into().unwrap_or([0; 8])),
                    message: us[8..].to_vec(),
                },
                _ => return Err(format!("a stream record of {len} bytes")),
            },
            ENDED => match bytes {
                [racer, code] => Record::Ended {
                    racer: *racer,
                    state: ended_state(*code).ok_or_else(|| format!("an end of kind {code}"))?,
                },
                _ => return Err(format!("an end record of {len} bytes")),
            },
            other => return Err(format!("a record of kind {other}")),
        });
        body = &rest[len..];
    }
    if body.is_empty() {
        Ok(records)
    } else {
        Err(format!("{} stray bytes at the end", body.len()))
    }
}

fn ended_code(state: RacerState) -> u8 {
    match state {
        RacerState::Left => 1,
        RacerState::Cut => 2,
        RacerState::Timeout => 3,
        // Decided again by the stream; never recorded.
        RacerState::Waiting | RacerState::Racing | RacerState::Finished | RacerState::Desynced => 0,
    }
}

fn ended_state(code: u8) -> Option<RacerState> {
    match code {
        1 => Some(RacerState::Left),
        2 => Some(RacerState::Cut),
        3 => Some(RacerState::Timeout),
        _ => None,
    }
}

/// A room's records to commit, and who to tell: once written, the room is answered
/// ([`Answer::journaled`]) with `acks` (each racer's last message in the batch).
#[derive(Debug)]
pub struct Batch {
    pub room_id: String,
    pub body: Vec<u8>,
    pub acks: Vec<(u8, u32)>,
    pub room: Arc<dyn Answer>,
}

/// What the writer does, in the order asked.
#[derive(Debug)]
pub enum Op {
    Append(Batch),
    /// The room closed in the normal way: its journal is deleted.
    Forget(String),
}

/// This process's journal writer's queue. Unbounded: a room has at most one batch in it at
/// a time, and a closing room one forget.
pub type Journal = WriterQueue<Op>;

/// Batches one transaction commits at most (the rest wait for the next).
const BATCHES_PER_COMMIT_MAX: usize = 4096;
/// The longest wait between tries while the database refuses a commit.
const RETRY_WAIT_MAX: Duration = Duration::from_secs(2);
/// At a stop, how long the last commit and the hand-over may take.
const LAST_WRITE_MAX: Duration = Duration::from_secs(3);
/// The least time from one commit's start to the next's: the records of every room in that
/// time share one commit (one sync to disk) and each racer one `ack`. It delays acks only —
/// a message is relayed and judged on arrival, before it is journaled — and a page keeps
/// what is not yet acknowledged. 100 ms, not 50: half the commits took about 8 % of the
/// server's CPU a frame off a race streaming every tick (PERFORMANCE.md, "The relay and its
/// floor"), and an ack 50 ms later costs a racer nothing. An ack that no relay has carried
/// by the next commit goes alone then ([`Answer`]), or after this long if none comes.
pub const COMMIT_EVERY: Duration = Duration::from_millis(100);

/// The writer: commits batches as they come, every room's waiting batch in one transaction,
/// at most one commit every [`COMMIT_EVERY`], until `stop`; then writes what the rooms
/// handed it last and marks this process's rooms for taking up (`Rooms::hand_over`): another
/// process takes them up at once, or this one when it starts again.
pub async fn write(ctx: Arc<LiveContext>, mut stop: Shutdown) {
    let Some(mut queue) = ctx.journal.take_receiver() else {
        return;
    };
    // The rooms left holding acks by the last commit: they go with the next commit, or alone
    // when none comes within `COMMIT_EVERY`.
    let mut held: Vec<Arc<dyn Answer>> = Vec::new();
    loop {
        let first = tokio::select! {
            op = queue.recv() => op,
            () = tokio::time::sleep(COMMIT_EVERY), if !held.is_empty() => {
                for room in held.drain(..) {
                    room.send_held_acks();
                }
                continue;
            }
            () = stop.recv() => break,
        };
        let Some(first) = first else { break };
        let started = tokio::time::Instant::now();
        let ops = drain(&mut queue, first);
        write_until_done(&ctx, ops, &mut held, &mut stop).await;
        tokio::select! {
            () = tokio::time::sleep_until(started + COMMIT_EVERY) => {}
            () = stop.recv() => break,
        }
    }
    // The rooms close their connections when the stop begins and hand over their last
    // records on the way out: wait (briefly) for them to be gone.
    let until = tokio::time::Instant::now() + LAST_WRITE_MAX;
    while !ctx.rooms.is_empty() && tokio::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let last = async {
        while let Ok(first) = queue.try_recv() {
            let ops = drain(&mut queue, first);
            write_once(&ctx, ops, &mut Vec::new())
                .await
                .map_err(|(_, e)| e)?;
        }
        ctx.store.room_rows().hand_over(ctx.home()).await
    };
    match tokio::time::timeout(LAST_WRITE_MAX, last).await {
        Ok(Ok(rooms)) => tracing::info!(rooms, "live rooms handed over"),
        Ok(Err(e)) => tracing::warn!(error = %e, "cannot hand the live rooms over"),
        Err(_) => tracing::warn!("the live rooms' last journal write took too long"),
    }
}

fn drain(queue: &mut mpsc::UnboundedReceiver<Op>, first: Op) -> Vec<Op> {
    let mut ops = vec![first];
    while ops.len() < BATCHES_PER_COMMIT_MAX {
        match queue.try_recv() {
            Ok(op) => ops.push(op),
            Err(_) => break,
        }
    }
    ops
}

/// Writes `ops`, trying again while the database refuses, until written or `stop`. First
/// the acks the last commit left `held` go (what they acknowledge is already committed);
/// then `held` is what this commit leaves ([`write_once`]).
async fn write_until_done(
    ctx: &LiveContext,
    mut ops: Vec<Op>,
    held: &mut Vec<Arc<dyn Answer>>,
    stop: &mut Shutdown,
) {
    for room in held.drain(..) {
        room.send_held_acks();
    }
    let mut wait = Duration::from_millis(50);
    loop {
        match write_once(ctx, ops, held).await {
            Ok(()) => return,
            Err((back, e)) => {
                tracing::warn!(error = %e, batches = back.len(), "cannot write the rooms' journal: trying again");
                ops = back;
            }
        }
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = stop.recv() => {
                // Unwritten and never acknowledged: the pages still hold these messages.
                return;
            }
        }
        wait = (wait * 2).min(RETRY_WAIT_MAX);
    }
}

/// One commit of every append in `ops`, then the rooms told and the forgets done; the rooms
/// left holding acks are pushed to `held`. On a failed commit, `ops` back (nothing written).
async fn write_once(
    ctx: &LiveContext,
    ops: Vec<Op>,
    held: &mut Vec<Arc<dyn Answer>>,
) -> Result<(), (Vec<Op>, crate::store::StoreError)> {
    let rows: Vec<(&str, &[u8])> = ops
        .iter()
        .filter_map(|op| match op {
            Op::Append(b) => Some((b.room_id.as_str(), b.body.as_slice())),
            Op::Forget(_) => None,
        })
        .collect();
    let written = match ctx
        .store
        .room_rows()
        .append_journal(ctx.home(), &rows)
        .await
    {
        Ok(written) => written,
        Err(e) => return Err((ops, e)),
    };
    let mut written = written.into_iter();
    for op in ops {
        match op {
            Op::Append(batch) => {
                if !written.next().unwrap_or(false) {
                    // Another process took the room up: what this batch held was never
                    // acknowledged, and the members go there.
                    batch.room.moved();
                } else if batch.room.journaled(batch.acks) {
                    held.push(batch.room);
                }
            }
            Op::Forget(room_id) => {
                if let Err(e) = ctx.store.room_rows().forget_journal(&room_id).await {
                    tracing::warn!(room = %room_id, error = %e, "cannot delete a closed room's journal");
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_a_torn_row_is_refused() {
        let records = vec![
            Record::Roster(Roster {
                go_ms: 1_800_000_000_123,
                ends_ms: 1_800_000_600_123,
                seats: vec![
                    Seat {
                        name: "ann".into(),
                        player: Some((7, false)),
                        key: "00ff".into(),
                    },
                    Seat {
                        name: "guest 1".into(),
                        player: None,
                        key: "abcd".into(),
                    },
                ],
            }),
            Record::Stream {
                racer: 1,
                since_go_us: -1_234,
                message: vec![2, 0, 0, 0, 0, 6, 0, 0, 0],
            },
            Record::Ended {
                racer: 0,
                state: RacerState::Cut,
            },
        ];
        let mut body = Vec::new();
        for r in &records {
            append(&mut body, r);
        }
        assert_eq!(decode(&body).unwrap(), records);
        // What a room appends for each message, without the record, is the same bytes.
        let mut direct = Vec::new();
        append_stream(&mut direct, 1, -1_234, &[2, 0, 0, 0, 0, 6, 0, 0, 0]);
        let mut via_record = Vec::new();
        append(&mut via_record, &records[1]);
        assert_eq!(direct, via_record);
        assert_eq!(decode(&direct).unwrap(), records[1..2]);
        // Every cut short of the whole is refused with a reason, never misread.
        for end in 1..body.len() {
            let torn = &body[..end];
            match decode(torn) {
                Ok(got) => assert!(got.len() < records.len() && end < body.len()),
                Err(why) => assert!(!why.is_empty()),
            }
        }
        assert!(decode(&[9, 0, 0]).is_err(), "an unknown kind");
        assert!(
            decode(&[ENDED, 2, 0, 0, 0]).is_err(),
            "an end that is not one"
        );
    }
}
