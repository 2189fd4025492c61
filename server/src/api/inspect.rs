//! `GET /api/runs/{id}/inspect`: what a run's replay file says about itself — header,
//! length, claimed outcome, size — as `pogo inspect` prints it, for the run's web page.
//!
//! Nothing here is re-simulated or trusted: these are the uploader's claims, decoded from the
//! stored bytes (every checksum and record checked, as at upload). The verdict, the verified
//! finish and the rank are `GET /api/runs/{id}`'s; a forged run's page shows both side by side.

use axum::Json;
use axum::extract::State;
use pogo_replay::Replay;
use pogo_replay::format::FORMAT_VERSION;
use serde::Serialize;
use utoipa::ToSchema;

use super::http::ApiPath;
use super::runs::visible_run_bytes;
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;
use crate::store::hash_hex;
use crate::times::TickTime;

/// A replay's header and trailer as the file states them (not verified).
#[derive(Debug, Serialize, ToSchema)]
pub struct Inspection {
    pub id: i64,
    /// The replay format version of the file.
    pub format_version: u16,
    /// `pogo_core::RULES_VERSION` of the simulation that recorded it.
    pub rules_version: u32,
    /// Ticks per second.
    pub tick_rate: u32,
    /// Fractional bits of the fixed-point scalar.
    pub frac_bits: u8,
    pub level: String,
    /// The level's content hash (16 hex digits).
    pub level_hash: String,
    /// The tuning's content hash (16 hex digits).
    pub tuning_hash: String,
    pub players: u8,
    pub player_name: Option<String>,
    /// Free-form metadata (ISO 8601 characters only), `null` when absent.
    pub date: Option<String>,
    /// Input chunks in the file.
    pub chunks: usize,
    /// Ticks per input chunk (every chunk but the last holds this many).
    pub chunk_ticks: u32,
    /// A state hash is stored after every tick `t` with `(t + 1) % hash_interval == 0`.
    pub hash_interval: u32,
    /// Ticks the file holds.
    pub ticks: u32,
    /// `ticks / tick_rate`, to the millisecond.
    pub duration_s: f64,
    /// The finish the file claims, per player (`null`: claims no finish). Claimed, not
    /// verified: the verifier compares it with the re-simulation.
    pub claimed_finish: Vec<Option<TickTime>>,
    /// The state hash the file claims after its last tick (16 hex digits).
    pub final_hash: String,
    /// The file's size in bytes.
    pub bytes: usize,
}

/// What a run's replay file says about itself (nothing re-simulated).
#[utoipa::path(get, path = "/api/runs/{id}/inspect", tag = "runs",
    params(("id" = i64, Path, description = "Run id")),
    responses(
        (status = 200, body = Inspection),
        (status = 400, description = "Not a run id", body = ErrorBody),
        (status = 404, description = "No such run (or hidden)", body = ErrorBody),
        (status = 500, description = "The stored replay is damaged (`corrupt_replay`: its bytes do not match their hash; not served, the operator is told)", body = ErrorBody),
    ))]
pub async fn inspect(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
) -> Result<Json<Inspection>, ApiError> {
    let (_, bytes) = visible_run_bytes(&state, id).await?;
    let limits = state.catalog.verifier().limits();
    // Checksumming a file of up to the body limit (megabytes) is kept off the async threads.
    let size = bytes.len();
    let replay = tokio::task::spawn_blocking(move || Replay::decode(&bytes, limits))
        .await
        .map_err(|e| ApiError::Internal(format!("inspecting run {id}: {e}")))?
        // It decoded when it was uploaded; failing now means the server's limits changed.
        .map_err(|e| ApiError::Internal(format!("run {id} no longer decodes: {e}")))?;
    let (header, trailer) = (&replay.header, &replay.trailer);
    let rate = header.tick_rate;
    Ok(Json(Inspection {
        id,
        format_version: FORMAT_VERSION,
        rules_version: header.rules_version,
        tick_rate: rate,
        frac_bits: header.frac_bits,
        level: header.level_name.clone(),
        level_hash: hash_hex(header.level_hash),
        tuning_hash: hash_hex(header.tuning_hash),
        players: header.players,
        player_name: header.player_name.clone(),
        date: header.date.clone(),
        chunks: replay.chunks.len(),
        chunk_ticks: header.chunk_ticks,
        hash_interval: header.hash_interval,
        ticks: trailer.ticks,
        duration_s: crate::times::millis(u64::from(trailer.ticks), rate) as f64 / 1000.0,
        claimed_finish: trailer
            .finish
            .iter()
            .map(|f| f.map(|t| TickTime::new(t, rate)))
            .collect(),
        final_hash: hash_hex(trailer.final_hash),
        bytes: size,
    }))
}
