//! The filer: files a finished live run — the replay the room recorded, verified by the
//! same verifier an upload meets (it cannot fail, the room having re-simulated it; if it ever
//! does, nothing is filed and the log says why) — as verified, and tells the room its id.
//!
//! Each run is verified on a task of its own (on the prompt lane's threads), so the room
//! never waits on the verifier or the database, then handed to this process's filing writer
//! ([`write()`]). A wave's racers finish together: the writer files every run handed to it
//! within [`GATHER`] of the first in one transaction (one sync to disk for the lot, not one
//! a run); if the database refuses it, each run alone, so that one bad run never holds the
//! others back (`RoomRows::file_live_runs`).

use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, oneshot};

use super::LiveContext;
use super::command::{Command, WriterQueue};
use crate::catalog::Hidden;
use crate::shutdown::Shutdown;
use crate::store::{Board, Category, LiveFiling, NewRun, PlayerRow, Verdict};
use crate::times::now_ms;

/// How long the writer gathers runs after the first one before filing them together: a room's
/// result shows this much later at most, and a wave's finishes share a commit.
pub const GATHER: Duration = Duration::from_millis(20);
/// Runs one transaction files at most (the rest go in the next).
const RUNS_PER_COMMIT_MAX: usize = 256;

/// Files racer `racer`'s run (`bytes`, the room's recording) for `player`; real-time iff
/// `realtime_note` is none. The room gets [`Command::Filed`].
pub fn spawn(
    ctx: Arc<LiveContext>,
    room: mpsc::Sender<Command>,
    room_id: String,
    racer: u8,
    player: PlayerRow,
    bytes: Vec<u8>,
    realtime_note: Option<String>,
) {
    tokio::spawn(async move {
        let run_id = file(&ctx, &room_id, &player, bytes, realtime_note).await;
        let _ = room.send(Command::Filed { racer, run_id }).await;
    });
}

/// A verified live run, ready to file on its board: what [`NewRun`] borrows, owned.
#[derive(Debug)]
struct Verified {
    player_id: i64,
    bytes: Vec<u8>,
    replay_hash: [u8; 32],
    board: Board,
    uploaded_ms: i64,
    verdict: Verdict,
    room_id: String,
}

impl Verified {
    fn new_run(&self) -> NewRun<'_> {
        NewRun {
            player_id: self.player_id,
            bytes: &self.bytes,
            replay_hash: self.replay_hash,
            level: &self.board.level,
            level_hash: self.board.level_hash.clone(),
            tuning_hash: self.board.tuning_hash.clone(),
            rules_version: self.board.rules_version,
            uploaded_ms: self.uploaded_ms,
            ticket: None,
        }
    }
}

/// A run handed to the writer, and where its id (or the database's refusal) goes.
#[derive(Debug)]
pub struct Filing {
    run: Arc<Verified>,
    answer: oneshot::Sender<Result<i64, String>>,
}

/// This process's filing writer's queue. Unbounded: a racer's run is in it once at a time
/// (handed again only after an answer that refused it).
pub type Filings = WriterQueue<Filing>;

/// Files `run` through the writer: its id, or why not (the database refused, or the writer
/// has stopped).
async fn file_through(filings: &Filings, run: Arc<Verified>) -> Result<i64, String> {
    let (answer, answered) = oneshot::channel();
    let stopped = || "the filing writer has stopped".to_string();
    if !filings.push(Filing { run, answer }) {
        return Err(stopped());
    }
    answered.await.map_err(|_| stopped())?
}

/// The writer: files the runs handed to it, every run within [`GATHER`] of the first in one
/// transaction, until `stop`.
pub async fn write(ctx: Arc<LiveContext>, mut stop: Shutdown) {
    let Some(mut queue) = ctx.filings.take_receiver() else {
        return;
    };
    loop {
        let first = tokio::select! {
            filing = queue.recv() => filing,
            () = stop.recv() => break,
        };
        let Some(first) = first else { break };
        tokio::time::sleep(GATHER).await;
        let mut batch = vec![first];
        while batch.len() < RUNS_PER_COMMIT_MAX {
            match queue.try_recv() {
                Ok(filing) => batch.push(filing),
                Err(_) => break,
            }
        }
        file_batch(&ctx, batch).await;
    }
}

/// Files `batch` in one transaction (each run alone if the database refuses it) and
/// answers each.
async fn file_batch(ctx: &LiveContext, batch: Vec<Filing>) {
    let answers = {
        let runs: Vec<NewRun<'_>> = batch.iter().map(|f| f.run.new_run()).collect();
        let filings: Vec<LiveFiling<'_>> = batch
            .iter()
            .zip(&runs)
            .map(|(f, run)| LiveFiling {
                run,
                verdict: &f.run.verdict,
                room_id: &f.run.room_id,
            })
            .collect();
        ctx.store.room_rows().file_live_runs(&filings).await
    };
    for (filing, answer) in batch.into_iter().zip(answers) {
        let _ = filing.answer.send(answer.map_err(|e| e.to_string()));
    }
}

async fn file(
    ctx: &LiveContext,
    room_id: &str,
    player: &PlayerRow,
    bytes: Vec<u8>,
    realtime_note: Option<String>,
) -> Option<i64> {
    let header = pogo_replay::Replay::decode(&bytes, ctx.catalog.verifier().limits())
        .ok()?
        .header;
    // A track hidden since the race began: its run is filed all the same (hiding takes the
    // board off the routes; showing it again brings the run back).
    let level = match ctx
        .catalog
        .resolve(&ctx.store, &header.level_name, Hidden::Included)
        .await
    {
        Ok(level) => level?,
        Err(e) => {
            tracing::error!(room = %room_id, player = %player.name, error = %e, "cannot look the room's level up: the live run is not filed");
            return None;
        }
    };
    let verifier = ctx.catalog.verifier_for(&level);
    // On the prompt lane's threads, below the relay's priority (`lanes`).
    let (bytes, verdict) = crate::lanes::run(crate::lanes::Lane::Prompt, move || {
        let verdict = crate::verdict::verify(&verifier, &bytes);
        (bytes, verdict)
    })
    .await
    .ok()?;
    let verdict = match verdict {
        Verdict::Verified {
            ticks,
            finish_tick,
            splits,
            final_hash,
            ..
        } => Verdict::Verified {
            ticks,
            finish_tick,
            splits,
            final_hash,
            realtime: realtime_note.is_none() && finish_tick.is_some(),
            realtime_note,
        },
        Verdict::Rejected { kind, reason } => {
            tracing::error!(room = %room_id, player = %player.name, kind = %kind, reason = %reason,
                "a live run the room recorded does not verify: not filed");
            return None;
        }
    };
    let run = Arc::new(Verified {
        player_id: player.id,
        replay_hash: Sha256::digest(&bytes).into(),
        bytes,
        board: ctx.catalog.board(&level, Category::Open),
        uploaded_ms: now_ms(),
        verdict,
        room_id: room_id.to_string(),
    });
    // The database may be away for a while: tried again, waiting longer each time, for as
    // long as the room lingers after its race (the journal keeps the race meanwhile: a
    // process that takes the room up files it again, and a run filed twice is one row).
    let mut wait = FILE_RETRY_FIRST;
    let mut waited = std::time::Duration::ZERO;
    loop {
        match file_through(&ctx.filings, run.clone()).await {
            Ok(id) => {
                tracing::info!(room = %room_id, player = %player.name, run = id, "live run filed");
                return Some(id);
            }
            Err(e) if waited < super::limits::ROOM_LINGER => {
                tracing::warn!(room = %room_id, player = %player.name, error = %e, "cannot file a live run yet: trying again");
            }
            Err(e) => {
                tracing::error!(room = %room_id, player = %player.name, error = %e, "cannot file a live run");
                return None;
            }
        }
        tokio::time::sleep(wait).await;
        waited += wait;
        wait = (wait * 2).min(FILE_RETRY_MAX);
    }
}

/// The first wait before filing again after the database refused, doubled each time up to
/// [`FILE_RETRY_MAX`].
const FILE_RETRY_FIRST: std::time::Duration = std::time::Duration::from_millis(100);
const FILE_RETRY_MAX: std::time::Duration = std::time::Duration::from_secs(5);
