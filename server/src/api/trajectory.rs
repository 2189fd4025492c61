//! `GET /api/runs/{id}/ghost?every=N`: a verified run as a trajectory to draw and race
//! against — the tip's position after every N-th tick (and the last), teleports marked, and
//! the splits. Built from [`pogo_replay::Ghost`], which re-simulates the run (a ghost is only
//! as good as its proof).
//!
//! Bounded: at most [`TRAJECTORY_POINTS_MAX`] regular points (`every` is raised when a long
//! run would need more; the answer gives both) plus at most [`TELEPORT_POINTS_MAX`] points
//! around teleports.

use axum::Json;
use axum::extract::State;
use pogo_replay::Ghost;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::http::{ApiPath, ApiQuery};
use super::runs::{SplitJson, splits, verified_run_bytes};
use crate::catalog::xyz;
use crate::error::{ApiError, ErrorBody};
use crate::limits::{GHOST_WAIT_MAX, RETRY_AFTER_BUSY_S, TRAJECTORY_POINTS_MAX};
use crate::state::AppState;
use crate::times::TickTime;

/// Most extra points kept around teleports (the tick before and the tick of each): a run
/// that respawns every second for an hour has 3600 teleports; past this budget teleports are
/// still marked on the next regular point, just not given their own.
pub const TELEPORT_POINTS_MAX: u64 = 2000;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct GhostQuery {
    /// A point every N ticks, N ≥ 1 (default 1: every tick). Raised to
    /// `ceil(ticks / 20000)` if smaller.
    pub every: Option<u32>,
}

/// The tip's position after a tick.
#[derive(Debug, Serialize, ToSchema)]
pub struct Point {
    pub tick: u32,
    /// `(tick + 1) / tick_rate` s.
    pub t: f64,
    pub x: f64,
    pub y: f64,
    pub z: f64,
    /// The pogo teleported (respawned) after the previous point, at the latest on this
    /// tick: do not interpolate from the previous point to this one. The first point is
    /// usually marked: a run starts with a spawn on tick 0.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub teleport: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct GhostJson {
    pub id: i64,
    pub player: String,
    pub level: String,
    pub tick_rate: u32,
    /// Ticks in the run.
    pub ticks: u32,
    /// The finish (tick and time), if the run finished.
    pub finish: Option<TickTime>,
    /// `every` as asked (default 1).
    pub every_requested: u32,
    /// `every` as given: the request's, or larger to stay within `points_max`.
    pub every: u32,
    pub points_max: u64,
    /// Ticks `0, every, 2·every, …` and the last tick, plus the tick before and of each
    /// teleport (while the teleport budget lasts), in tick order.
    pub points: Vec<Point>,
    pub splits: Vec<SplitJson>,
    /// The level's geometry.
    pub level_url: String,
    /// The replay bytes, for a game client.
    pub replay_url: String,
}

/// A verified run's trajectory and splits.
#[utoipa::path(get, path = "/api/runs/{id}/ghost", tag = "runs",
    params(("id" = i64, Path, description = "Run id"), GhostQuery),
    responses(
        (status = 200, body = GhostJson),
        (status = 400, description = "Bad `every` or id", body = ErrorBody),
        (status = 404, description = "No such run (or hidden)", body = ErrorBody),
        (status = 409, description = "The run is not verified (`not_verified`), or is on a past season's board (`past_season`)", body = ErrorBody),
        (status = 500, description = "The stored replay is damaged (`corrupt_replay`: its bytes do not match their hash; not served, the operator is told)", body = ErrorBody),
        (status = 503, description = "Too many ghosts being computed (`busy`)", body = ErrorBody),
    ))]
pub async fn ghost(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
    ApiQuery(query): ApiQuery<GhostQuery>,
) -> Result<Json<GhostJson>, ApiError> {
    let every_requested = query.every.unwrap_or(1);
    if every_requested == 0 {
        return Err(ApiError::BadParameter("every=0: must be at least 1".into()));
    }
    let (run, bytes) = verified_run_bytes(&state, id).await?;
    let level = super::seasons::require_current(&state, &run).await?;
    let busy = || ApiError::Busy {
        what: "too many ghosts being computed",
        retry_after_s: RETRY_AFTER_BUSY_S,
    };
    let _slot = tokio::time::timeout(GHOST_WAIT_MAX, state.ghosts.acquire())
        .await
        .map_err(|_| busy())?
        .map_err(|_| busy())?;
    let verifier = state.catalog.verifier_for(&level);
    // On the prompt lane's threads, below the relay's priority (`lanes`).
    let ghost = crate::lanes::run(crate::lanes::Lane::Prompt, move || {
        Ghost::load(&bytes, &verifier)
    })
    .await
    .map_err(|e| ApiError::Internal(format!("ghost of run {id}: {e}")))?
    // It verified when it was uploaded; failing now means the server's rules changed.
    .map_err(|e| ApiError::Internal(format!("run {id} no longer verifies: {e}")))?;
    let rate = state.catalog.tick_rate();
    let ticks = ghost.ticks();
    let every = every_requested.max(min_every(ticks));
    let points = sample(&ghost, every, rate);
    Ok(Json(GhostJson {
        id,
        player: run.player,
        finish: ghost.verified().finish[0].map(|t| TickTime::new(t, rate)),
        splits: splits(run.splits.as_deref(), rate),
        level_url: format!("/api/levels/{}", run.level),
        level: run.level,
        tick_rate: rate,
        ticks,
        every_requested,
        every,
        points_max: TRAJECTORY_POINTS_MAX,
        points,
        replay_url: format!("/api/runs/{id}/replay"),
    }))
}

/// The smallest `every` that keeps a run of `ticks` within [`TRAJECTORY_POINTS_MAX`]
/// regular points.
pub fn min_every(ticks: u32) -> u32 {
    u32::try_from(u64::from(ticks).div_ceil(TRAJECTORY_POINTS_MAX))
        .unwrap_or(u32::MAX)
        .max(1)
}

/// The points of a ghost (player 0): see [`GhostJson::points`].
fn sample(ghost: &Ghost, every: u32, rate: u32) -> Vec<Point> {
    let ticks = ghost.ticks();
    let frames: Vec<_> = ghost.frames().collect();
    let mut keep = vec![false; frames.len()];
    for t in (0..ticks).step_by(every.max(1) as usize) {
        keep[t as usize] = true;
    }
    if let Some(last) = keep.last_mut() {
        *last = true;
    }
    let mut extra = 0u64;
    for (tick, _, teleported) in &frames {
        if !teleported {
            continue;
        }
        let t = tick.0 as usize;
        for i in [t.saturating_sub(1), t] {
            if !keep[i] && extra < TELEPORT_POINTS_MAX {
                keep[i] = true;
                extra += 1;
            }
        }
    }
    let mut points = Vec::new();
    let mut teleport_since = false;
    for ((tick, positions, teleported), kept) in frames.iter().zip(keep) {
        teleport_since |= *teleported;
        if !kept {
            continue;
        }
        let [x, y, z] = xyz(positions[0]);
        points.push(Point {
            tick: tick.0,
            t: TickTime::new(tick.0, rate).time_s,
            x,
            y,
            z,
            teleport: teleport_since,
        });
        teleport_since = false;
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_is_raised_to_keep_long_runs_within_the_point_budget() {
        assert_eq!(min_every(0), 1);
        assert_eq!(min_every(20_000), 1);
        assert_eq!(min_every(20_001), 2);
        assert_eq!(min_every(216_000), 11);
        assert_eq!(min_every(u32::MAX), u32::MAX.div_ceil(20_000));
        for ticks in [1, 19_999, 20_001, 216_000, 864_000] {
            let every = u64::from(min_every(ticks));
            assert!(
                u64::from(ticks).div_ceil(every) <= TRAJECTORY_POINTS_MAX,
                "{ticks}"
            );
        }
    }
}
