//! `pogo-server check`: is what the database holds what was stored? Its report on stdout,
//! exit code 1 when anything is wrong (`main.rs`). Read only; safe beside a serving process
//! (it reads in pages of [`PAGE`] rows).
//!
//! 1. **The database's own check**: SQLite `PRAGMA integrity_check` (every page, every
//!    b-tree, every index against its table) and `PRAGMA foreign_key_check`; PostgreSQL:
//!    amcheck's `bt_index_check` on every b-tree index when the extension is installed (else
//!    the report says so: reading every row below still makes PostgreSQL verify each page's
//!    checksum, if the cluster has data checksums on).
//! 2. **Every run against its replay**: the replay's bytes re-hashed (SHA-256, the key the
//!    server stored them under, as an upload computes it), decoded (each chunk's and the
//!    file's own checks), and its header and trailer compared with the run's row: player
//!    name, level, level hash, tuning hash, rules version; for a verified run also the ticks,
//!    the finish tick and the final state hash (the verifier reproduced the trailer's claims,
//!    so they must agree).
//! 3. **Every player's name** against its copy (migration 0016), its key (the name in lower
//!    case, what uniqueness is on) and the name rule.
//! 4. **Every replay no run refers to**, re-hashed (one whose key was damaged is one).
//!
//! Each problem is a line naming the row (`run 12: …`, `player 3: …`, `replay 9f…: …`).
//!
//! A quick check runs at start too ([`at_start`]): SQLite's `PRAGMA quick_check`, in the
//! background on its own connection, logged. It reads every page of the file — O(size): at
//! 1 M runs (a 4.5 GB file) 3 s from the page cache, 70 s from a cold ≈ 64 MB/s disk
//! (docs/operations.md) — so it does not delay serving; the full check (`integrity_check`,
//! 11 s warm at that size, and the per-row comparisons) stays here.

use std::fmt;
use std::time::Instant;

use pogo_replay::{Limits, Replay};
use sha2::{Digest, Sha256};

use crate::store::check::{Integrity, RunCheck, Thoroughness};
use crate::store::hash_hex;
use crate::store::{Store, StoreError, name_key};

/// Rows read per query.
pub const PAGE: u32 = 64;

/// What `check` found.
#[derive(Debug, Default)]
pub struct Report {
    pub backend: &'static str,
    pub integrity: Integrity,
    pub runs: u64,
    pub players: u64,
    pub orphans: u64,
    /// Every problem, one line each, naming its row.
    pub problems: Vec<String>,
    pub seconds: f64,
}

impl Report {
    /// Whether anything is wrong.
    pub fn clean(&self) -> bool {
        self.problems.is_empty() && self.integrity.problems.is_empty()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "database: {}", self.backend)?;
        writeln!(f, "integrity: {}", self.integrity.checked)?;
        for problem in &self.integrity.problems {
            writeln!(f, "  {problem}")?;
        }
        writeln!(
            f,
            "checked: {} runs with their replays, {} players, {} replays of no run ({:.1} s)",
            self.runs, self.players, self.orphans, self.seconds
        )?;
        for problem in &self.problems {
            writeln!(f, "{problem}")?;
        }
        let wrong = self.problems.len() + self.integrity.problems.len();
        if wrong == 0 {
            writeln!(f, "ok")
        } else {
            writeln!(f, "{wrong} problems")
        }
    }
}

/// Runs every check; `Err` only if the database fails under it.
pub async fn check(store: &Store, limits: Limits) -> Result<Report, StoreError> {
    let started = Instant::now();
    let mut report = Report {
        backend: store.backend(),
        integrity: store.integrity(Thoroughness::Full).await?,
        ..Report::default()
    };
    let mut after = 0;
    loop {
        let page = store.check_runs(after, PAGE).await?;
        let Some(last) = page.last() else { break };
        after = last.id;
        report.runs += page.len() as u64;
        let problems = tokio::task::spawn_blocking(move || {
            page.iter()
                .flat_map(|run| run_problems(run, limits))
                .collect::<Vec<_>>()
        })
        .await
        .map_err(|e| StoreError::Corrupt(format!("checking runs: {e}")))?;
        report.problems.extend(problems);
    }
    let mut after = 0;
    loop {
        let page = store.check_players(after, PAGE).await?;
        let Some(last) = page.last() else { break };
        after = last.id;
        report.players += page.len() as u64;
        for player in &page {
            let id = player.id;
            if player.name_check.as_deref() != Some(player.name.as_str()) {
                report.problems.push(format!(
                    "player {id}: name {:?} differs from its copy {:?} (one of them is damaged)",
                    player.name, player.name_check
                ));
            } else if name_key(&player.name) != player.name_key {
                report.problems.push(format!(
                    "player {id}: name {:?} does not match its key {:?}",
                    player.name, player.name_key
                ));
            } else if let Err(e) = pogo_replay::check_player_name(&player.name) {
                report.problems.push(format!(
                    "player {id}: name {:?} breaks the name rule: {e}",
                    player.name
                ));
            }
        }
    }
    let mut after = Vec::new();
    loop {
        let page = store.check_orphans(&after, PAGE).await?;
        let Some(last) = page.last() else { break };
        after = last.hash.clone();
        report.orphans += page.len() as u64;
        for orphan in &page {
            let key = hex(&orphan.hash);
            if Sha256::digest(&orphan.bytes)[..] != orphan.hash[..] {
                report.problems.push(format!(
                    "replay {key}: of no run, and its bytes do not match its key (damaged)"
                ));
            }
        }
    }
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// What is wrong with a run and its replay (nothing: empty).
pub fn run_problems(run: &RunCheck, limits: Limits) -> Vec<String> {
    let id = run.id;
    let mut problems = Vec::new();
    let Some(bytes) = &run.bytes else {
        return vec![format!(
            "run {id}: no replay under its key {} (the key or the replay is damaged)",
            hex(&run.replay_hash)
        )];
    };
    if Sha256::digest(bytes)[..] != run.replay_hash[..] {
        // Nothing in the bytes can be trusted: the rest would only repeat it.
        return vec![format!(
            "run {id}: its replay (key {}) is corrupt: the bytes do not match their hash",
            hex(&run.replay_hash)
        )];
    }
    let replay = match Replay::decode(bytes, limits) {
        Ok(replay) => replay,
        Err(e) => return vec![format!("run {id}: its replay does not decode: {e}")],
    };
    let header = &replay.header;
    let mut differs = |what: &str, row: String, file: String| {
        if row != file {
            problems.push(format!(
                "run {id}: {what} {row:?} in the row, {file:?} in its replay"
            ));
        }
    };
    if run.name_check.as_deref() == Some(run.name.as_str()) {
        // A damaged name is the player's problem, reported once with the players.
        differs(
            "player",
            run.name.clone(),
            header.player_name.clone().unwrap_or_default(),
        );
    }
    differs("level", run.level.clone(), header.level_name.clone());
    differs(
        "level hash",
        run.level_hash.clone(),
        hash_hex(header.level_hash),
    );
    differs(
        "tuning hash",
        run.tuning_hash.clone(),
        hash_hex(header.tuning_hash),
    );
    differs(
        "rules version",
        run.rules_version.to_string(),
        header.rules_version.to_string(),
    );
    if run.status == "verified" {
        let trailer = &replay.trailer;
        let finish = trailer.finish.first().copied().flatten();
        differs(
            "ticks",
            format!("{:?}", run.ticks),
            format!("{:?}", Some(i64::from(trailer.ticks))),
        );
        differs(
            "finish tick",
            format!("{:?}", run.finish_tick),
            format!("{:?}", finish.map(i64::from)),
        );
        differs(
            "final hash",
            format!("{:?}", run.final_hash),
            format!("{:?}", Some(hash_hex(trailer.final_hash))),
        );
    }
    problems
}

/// Lowercase hex.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The quick check at start (see the module's docs): SQLite's `PRAGMA quick_check` in the
/// background, its outcome and duration logged (an error per problem). PostgreSQL: nothing
/// cheap enough to be worth it at every start (`pogo-server check` runs amcheck).
pub async fn at_start(store: Store) {
    if store.backend() != "sqlite" {
        return;
    }
    let started = Instant::now();
    match store.integrity(Thoroughness::Quick).await {
        Ok(found) if found.problems.is_empty() => tracing::info!(
            ms = started.elapsed().as_millis() as u64,
            "database quick check: ok"
        ),
        Ok(found) => {
            for problem in &found.problems {
                tracing::error!(problem = %problem, "database quick check");
            }
            tracing::error!(
                problems = found.problems.len(),
                "database quick check failed: run `pogo-server check`, restore from a backup"
            );
        }
        Err(e) => tracing::warn!(error = %e, "database quick check could not run"),
    }
}
