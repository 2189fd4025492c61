//! The room's clock: the countdown once every racer is ready (each racer's run begins, dated
//! GO), GO, and every deadline the room's task sleeps until — the empty lobby, the time
//! limit, a cut racer's resume grace, the linger after the race.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::Room;
use crate::live::journal::{self, Record};
use crate::live::racer::RacerRun;
use crate::live::wire::{Phase, RacerState};
use crate::live::{Close, LiveContext, limits};
use crate::times::now_ms;

impl Room {
    /// The countdown starts when every racer is connected and ready.
    pub(super) fn maybe_start(&mut self) {
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
    pub(super) fn begin_countdown(&mut self, go: i64, ends: i64) -> Result<(), String> {
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
    pub(super) fn go(&mut self) {
        self.phase = Phase::Racing;
        for racer in &mut self.racers {
            if racer.state == RacerState::Waiting {
                racer.state = RacerState::Racing;
            }
        }
    }

    pub(super) fn next_deadline(&self) -> Option<Instant> {
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
    pub(super) fn on_deadline(&mut self) -> bool {
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
}

impl RacerRun {
    /// A run for a racer of `world` (if the level loads) with the room's settings.
    fn new_checked(
        world: &Option<Arc<pogo_core::world::World>>,
        tuning: &Arc<pogo_core::Tuning>,
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

/// Sleeps until `deadline`, or forever without one.
pub(super) async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
