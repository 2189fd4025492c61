//! `GET /api/limits`: the limits a client meets, from their one definition on the server, so
//! the page asks rather than keeping copies (a copy drifts: the page once refused ghosts the
//! server served).

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::live::limits as live;
use crate::state::AppState;

/// What the server accepts, and how it judges real time.
#[derive(Debug, Serialize, ToSchema)]
pub struct Limits {
    /// The largest upload body (bytes): the largest legal replay of the longest run
    /// (`limits::upload_body_limit`); also the largest replay the server serves.
    pub replay_bytes_max: u64,
    /// The longest run the verifier accepts (ticks; `--player-ticks-max`).
    pub run_ticks_max: u64,
    /// Ticks per second.
    pub tick_rate: u32,
    /// How late after GO plus its game time a run ticket's commitment or a live racer's
    /// message may arrive, and the run still be real-time (ms).
    pub realtime_slack_ms: i64,
    /// The longest live race, from GO (ms).
    pub race_ms_max: i64,
    /// Racers in one live room.
    pub room_racers_max: usize,
    /// Spectators in one live room.
    pub room_spectators_max: usize,
}

/// The limits a client meets: upload size, run length, real-time slack, live rooms.
#[utoipa::path(get, path = "/api/limits", tag = "levels",
    responses((status = 200, body = Limits)))]
pub async fn limits(State(state): State<AppState>) -> Json<Limits> {
    Json(Limits {
        replay_bytes_max: state.upload_limit,
        run_ticks_max: state.catalog.verifier().limits().player_ticks_max,
        tick_rate: state.catalog.tick_rate(),
        realtime_slack_ms: state.ticket_slack_ms,
        race_ms_max: state.live.settings.race_ms_max,
        room_racers_max: live::ROOM_RACERS_MAX,
        room_spectators_max: live::ROOM_SPECTATORS_MAX,
    })
}
