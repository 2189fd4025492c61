//! The filer: the task that files a finished live run — the replay the room recorded,
//! verified by the same verifier an upload meets (it cannot fail, the room having
//! re-simulated it; if it ever does, nothing is filed and the log says why), stored as
//! verified in one transaction, and its id told to the room.
//! Runs in a task of its own, so the room never waits on the verifier or the database.

use std::sync::Arc;

use sha2::{Digest, Sha256};
use tokio::sync::mpsc;

use super::LiveContext;
use super::command::Command;
use crate::catalog::Hidden;
use crate::store::{Category, NewRun, PlayerRow, Verdict};
use crate::times::now_ms;

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
    let board = ctx.catalog.board(&level, Category::Open);
    let replay_hash: [u8; 32] = Sha256::digest(&bytes).into();
    let run = NewRun {
        player_id: player.id,
        bytes: &bytes,
        replay_hash,
        level: &board.level,
        level_hash: board.level_hash.clone(),
        tuning_hash: board.tuning_hash.clone(),
        rules_version: board.rules_version,
        uploaded_ms: now_ms(),
        ticket: None,
    };
    // The database may be away for a while: tried again, waiting longer each time, for as
    // long as the room lingers after its race (the journal keeps the race meanwhile: a
    // process that takes the room up files it again, and a run filed twice is one row).
    let mut wait = FILE_RETRY_FIRST;
    let mut waited = std::time::Duration::ZERO;
    loop {
        match ctx
            .store
            .room_rows()
            .file_live_run(&run, &verdict, room_id)
            .await
        {
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
