//! `POST /api/runs` (upload a replay), `GET /api/runs/{id}` (its status and verdict),
//! `GET /api/runs/{id}/replay` (the bytes, for a game client to race against).
//!
//! An upload is checked in the order that costs least first: the token (no body read yet),
//! the per-token rate, the content type and length, a free upload slot; then the body is
//! read within its limit and decoded (every checksum and record, no simulation), and its
//! header checked: one player, the token's player's name, a level, rules and tuning this
//! server runs. Only then is it stored (bytes and a queued run, committed) and answered
//! 202. The verdict comes from the workers' re-simulation, never from the file's claims.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, Limited};
use pogo_replay::{Replay, VerifyError};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use super::caller::Player;
use super::http::{ApiPath, ApiQuery};
use crate::catalog::Hidden;
use crate::error::{ApiError, ErrorBody};
use crate::limits::{BODY_READ_TIMEOUT, RETRY_AFTER_BUSY_S, TICKET_UPLOAD_WINDOW_MS};
use crate::season::SeasonId;
use crate::state::AppState;
use crate::store::{Board, Category, FeedSeq, Inserted, NewRun, RunRow, RunState, hash_hex};
use crate::times::{TickTime, now_ms, rfc3339};

/// The content types an upload may have.
pub const REPLAY_CONTENT_TYPES: &[&str] =
    &["application/octet-stream", "application/x-pogo-replay"];

#[derive(Debug, Serialize, ToSchema)]
pub struct Uploaded {
    /// The run's id.
    pub id: i64,
    /// Poll this for the verdict.
    pub status_url: String,
    /// `true` if these exact bytes were uploaded before (this is that run; nothing new was
    /// stored). Answered 200 instead of 202.
    pub duplicate: bool,
}

/// An upload's query string.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UploadQuery {
    /// The run ticket the run was played under (`api::tickets`).
    pub ticket: Option<String>,
}

/// A checkpoint (or the finish) reached for the first time.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SplitJson {
    /// The checkpoint's index in the level (`checkpoints[i].index` of the geometry), or
    /// `null` for the finish.
    pub checkpoint: Option<u32>,
    /// The tick it was reached on.
    pub tick: u32,
    /// `(tick + 1) / tick_rate`, to the millisecond.
    pub time_s: f64,
    /// The same as `m:ss.mmm`.
    pub time: String,
}

/// Stored splits as JSON.
pub fn splits(stored: Option<&str>, rate: u32) -> Vec<SplitJson> {
    split_times(&crate::store::parse_splits(stored), rate)
}

/// `(checkpoint, tick)` pairs as JSON, with their times at `rate` ticks a second.
pub fn split_times(pairs: &[(Option<u32>, u32)], rate: u32) -> Vec<SplitJson> {
    pairs
        .iter()
        .map(|&(checkpoint, tick)| {
            let t = TickTime::new(tick, rate);
            SplitJson {
                checkpoint,
                tick,
                time_s: t.time_s,
                time: t.time,
            }
        })
        .collect()
}

/// A run: who, which level, and the verdict once there is one.
#[derive(Debug, Serialize, ToSchema)]
pub struct RunStatus {
    pub id: i64,
    pub player: String,
    pub level: String,
    pub status: RunState,
    /// Ticks the replay holds (verified runs).
    pub ticks: Option<u32>,
    /// The tick the re-simulation finished on (verified runs that finished).
    pub finish_tick: Option<u32>,
    /// `(finish_tick + 1) / tick_rate`, to the millisecond.
    pub time_s: Option<f64>,
    /// The same as `m:ss.mmm`.
    pub time: Option<String>,
    /// The run's place on its level's leaderboard, if it is its player's best there (else
    /// `null`: not verified, not finished, or the player has a better run).
    pub rank: Option<i64>,
    /// The season (board) the run is on, `r{rules_version}-{level_hash}-{tuning_hash}`
    /// (`GET /api/levels/{level}/seasons`).
    pub season: String,
    /// Whether that is the level's current season; a past season's run has no rank and no
    /// ghost here (it re-simulates only under its own rules).
    pub current_season: bool,
    /// The run this one is a re-verified copy of (`pogo-server reverify`), else `null`.
    pub reverified_from: Option<i64>,
    /// Played in real time: uploaded under a run ticket whose every commitment arrived on
    /// time and is reproduced by the replay. Such runs rank on the real-time board too.
    pub realtime: bool,
    /// Why a run uploaded under a ticket is not real-time, e.g. `checkpoint 2 was committed
    /// 3.4 s after its game time since GO (at most 1.5 s allowed)`; `null` otherwise.
    pub realtime_note: Option<String>,
    /// The run's place on the level's real-time board, if it is real-time and its player's
    /// best there.
    pub realtime_rank: Option<i64>,
    /// Why it was rejected: the verifier's message, e.g. `desync at tick 179: recorded state
    /// hash …, re-simulated …`.
    pub reason: Option<String>,
    /// The verifier's short name for the reason (`VerifyError::kind`): `desync`,
    /// `outcome_mismatch`, `checksum`, `over_budget`, `out_of_time`, … or `abandoned`
    /// (verification interrupted too often).
    pub reason_kind: Option<String>,
    /// Checkpoints and finish reached, in order (verified runs).
    pub splits: Vec<SplitJson>,
    /// The re-simulation's final state hash, 16 lowercase hex digits, as `pogo verify`
    /// prints it: a client that simulated the same inputs (the page, in wasm) compares its
    /// own. `null` until verified, for rejected runs, and for runs verified by a server that
    /// did not store it yet.
    #[schema(example = "0f3a5c7e9b1d2f40")]
    pub final_hash: Option<String>,
    pub tick_rate: u32,
    /// RFC 3339, UTC.
    pub uploaded_at: String,
    pub verified_at: Option<String>,
    pub status_url: String,
    pub replay_url: String,
    pub ghost_url: String,
}

/// Upload a replay for verification.
///
/// The body is the replay file's bytes (`application/octet-stream`). It must be a
/// **single-player** replay whose header's `player_name` is exactly the token's player, of a
/// level `GET /api/levels` lists, recorded under the rules version and tuning hash it shows.
/// The run is stored before the answer; its verdict comes later (poll `status_url`).
/// Uploading the same bytes again answers 200 with the same run.
///
/// `?ticket=ID` names the run ticket the run was played under (`POST
/// /api/levels/{level}/tickets`): the token's own, unused, issued within the upload window,
/// for the replay's level and rules. The upload consumes it; the verdict says whether the
/// run was real-time. Without a ticket the run ranks on the open board only.
#[utoipa::path(post, path = "/api/runs", tag = "runs",
    params(("ticket" = Option<String>, Query, description = "Run ticket id (32 hex digits)")),
    request_body(content = Vec<u8>, content_type = "application/octet-stream",
        description = "A pogo replay file (replay/FORMAT.md)"),
    security(("bearer" = [])),
    responses(
        (status = 202, description = "Stored and queued for verification", body = Uploaded),
        (status = 200, description = "These bytes were uploaded before: that run", body = Uploaded),
        (status = 400, description = "Not a well-formed replay (`bad_replay`, with the reader's `kind`), not single-player (`not_single_player`), no player name (`no_player_name`), not a ticket id (`bad_parameter`)", body = ErrorBody),
        (status = 401, description = "No token or not a valid one", body = ErrorBody),
        (status = 403, description = "The replay is under another name than the token's (`name_mismatch`), the player is hidden, or another player's ticket (`not_your_ticket`)", body = ErrorBody),
        (status = 404, description = "A level the server does not run (`unknown_level`), no such ticket (`unknown_ticket`)", body = ErrorBody),
        (status = 409, description = "Recorded under other rules, tuning or level version (`rules_mismatch`, with the verifier's `kind`); the ticket used already (`ticket_used`) or issued for another board (`ticket_mismatch`)", body = ErrorBody),
        (status = 410, description = "The ticket is past its upload window (`ticket_expired`)", body = ErrorBody),
        (status = 413, description = "Body over the limit (the longest accepted run's largest legal file plus slack)", body = ErrorBody),
        (status = 415, description = "Not `application/octet-stream`", body = ErrorBody),
        (status = 429, description = "Rate limited (per token or per address); see Retry-After", body = ErrorBody),
        (status = 503, description = "Verification queue or upload slots full, or the server is stopping (`busy`), the database unavailable (`database_unavailable`) or its disk full (`storage_full`): nothing was stored; see Retry-After (a database fault's 503 and a stopping server's also say `Connection: close`)", body = ErrorBody),
    ))]
pub async fn upload(
    State(state): State<AppState>,
    player: Result<Player, ApiError>,
    headers: HeaderMap,
    query: Result<ApiQuery<UploadQuery>, ApiError>,
    body: Body,
) -> Result<Response, ApiError> {
    let outcome = match query {
        Ok(ApiQuery(query)) => {
            accept(&state, player, &headers, query.ticket.as_deref(), body).await
        }
        Err(e) => Err(e),
    };
    state.metrics.upload(match &outcome {
        Ok(Uploaded {
            duplicate: false, ..
        }) => "accepted",
        Ok(Uploaded {
            duplicate: true, ..
        }) => "duplicate",
        Err(e) => e.code(),
    });
    let uploaded = outcome?;
    let status = if uploaded.duplicate {
        StatusCode::OK
    } else {
        StatusCode::ACCEPTED
    };
    let mut response = super::http::with_status(status, &uploaded);
    if let Ok(location) = HeaderValue::from_str(&uploaded.status_url) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

/// An upload's checks, cheapest first, and its storing. `player` is the token's, or why
/// there is none: a malformed ticket id is refused before it.
async fn accept(
    state: &AppState,
    player: Result<Player, ApiError>,
    headers: &HeaderMap,
    ticket: Option<&str>,
    body: Body,
) -> Result<Uploaded, ApiError> {
    if let Some(id) = ticket {
        super::tickets::check_ticket_id(id)?;
    }
    let player = player?;
    state
        .rates
        .check_token(player.id())
        .map_err(|retry_after_s| ApiError::RateLimited { retry_after_s })?;
    let limit = state.upload_limit;
    check_body_headers(headers, limit)?;
    let _slot = state.uploads.try_acquire().map_err(|_| ApiError::Busy {
        what: "too many uploads in progress",
        retry_after_s: RETRY_AFTER_BUSY_S,
    })?;
    let bytes = read_body(body, limit).await?;
    // Decoding checks every chunk (a worst-case file near the limit takes tens of ms): off the
    // async threads.
    let limits = state.catalog.verifier().limits();
    let (replay, bytes) =
        tokio::task::spawn_blocking(move || (Replay::decode(&bytes, limits), bytes))
            .await
            .map_err(|e| ApiError::Internal(format!("decoding an upload: {e}")))?;
    let replay = replay.map_err(ApiError::BadReplay)?;
    let header = &replay.header;
    check_author(header, &player)?;
    let level = state
        .catalog
        .resolve(&state.store, &header.level_name, Hidden::Refused)
        .await?
        .ok_or_else(|| ApiError::UnknownLevel {
            name: header.level_name.clone(),
        })?;
    state
        .catalog
        .check_header(&level, header)
        .map_err(|e| match e {
            VerifyError::UnknownLevel { name } => ApiError::UnknownLevel { name },
            other => ApiError::RulesMismatch(other),
        })?;
    let level_hash = hash_hex(header.level_hash);
    let tuning_hash = hash_hex(header.tuning_hash);
    if let Some(id) = ticket {
        let ticket = super::tickets::owned_ticket(state, id, &player).await?;
        if now_ms() - ticket.issued_ms > TICKET_UPLOAD_WINDOW_MS {
            return Err(ApiError::TicketExpired {
                id: id.to_string(),
                why: format!(
                    "an upload may name it within {} days of its issue",
                    TICKET_UPLOAD_WINDOW_MS / 86_400_000
                ),
            });
        }
        let rules = header.rules_version;
        if !ticket.is_for(&header.level_name, &level_hash, &tuning_hash, rules) {
            return Err(ApiError::TicketMismatch { id: id.to_string() });
        }
    }
    let run = NewRun {
        player_id: player.id(),
        bytes: &bytes,
        replay_hash: Sha256::digest(&bytes).into(),
        level: &header.level_name,
        level_hash,
        tuning_hash,
        rules_version: header.rules_version,
        uploaded_ms: now_ms(),
        ticket,
    };
    let (id, duplicate) = match state
        .store
        .queue()
        .insert_run(&run, state.queue_max)
        .await?
    {
        Inserted::New(id) => {
            state.work.notify_one();
            tracing::info!(run = id, player = %player.name(), level = %run.level, "queued");
            (id, false)
        }
        Inserted::Duplicate(id) => (id, true),
        Inserted::TicketUsed => {
            return Err(ApiError::TicketUsed {
                id: ticket.unwrap_or_default().to_string(),
            });
        }
        Inserted::QueueFull { queued } => {
            tracing::warn!(queued, "verification queue full");
            return Err(ApiError::Busy {
                what: "the verification queue is full",
                retry_after_s: RETRY_AFTER_BUSY_S,
            });
        }
    };
    Ok(Uploaded {
        id,
        status_url: format!("/api/runs/{id}"),
        duplicate,
    })
}

/// Reads a body of at most `limit` bytes within [`BODY_READ_TIMEOUT`].
pub(crate) async fn read_body(body: Body, limit: u64) -> Result<Vec<u8>, ApiError> {
    let limited = Limited::new(body, usize::try_from(limit).unwrap_or(usize::MAX));
    let collected = tokio::time::timeout(BODY_READ_TIMEOUT, limited.collect())
        .await
        .map_err(|_| {
            ApiError::BodyIncomplete(format!("not sent within {} s", BODY_READ_TIMEOUT.as_secs()))
        })?;
    match collected {
        Ok(collected) => Ok(collected.to_bytes().to_vec()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            Err(ApiError::BodyTooLarge { limit })
        }
        Err(e) => Err(ApiError::BodyIncomplete(e.to_string())),
    }
}

/// An upload's headers, before its body is read: a replay's content type (415 otherwise), and
/// a declared length within `limit` bytes (413 otherwise; the read is bounded too).
fn check_body_headers(headers: &HeaderMap, limit: u64) -> Result<(), ApiError> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        });
    if !content_type.is_some_and(|t| REPLAY_CONTENT_TYPES.contains(&t.as_str())) {
        return Err(ApiError::ContentType {
            expected: "application/octet-stream",
        });
    }
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(ApiError::BodyTooLarge { limit });
    }
    Ok(())
}

/// A run (visible, i.e. neither it nor its player hidden), or 404.
pub async fn visible_run(state: &AppState, id: i64) -> Result<RunRow, ApiError> {
    match state.store.runs().run(id).await? {
        Some(run) if !run.hidden => Ok(run),
        _ => Err(ApiError::UnknownRun { id }),
    }
}

/// Run `id` if it is visible, with its replay's bytes.
pub async fn visible_run_bytes(state: &AppState, id: i64) -> Result<(RunRow, Vec<u8>), ApiError> {
    let run = visible_run(state, id).await?;
    let bytes = run_bytes(state, id).await?;
    Ok((run, bytes))
}

/// Run `id` if it is visible and verified (what a replay or a ghost is served from), with its
/// replay's bytes.
pub async fn verified_run_bytes(state: &AppState, id: i64) -> Result<(RunRow, Vec<u8>), ApiError> {
    let run = visible_run(state, id).await?;
    if run.status != RunState::Verified {
        return Err(ApiError::NotVerified {
            id,
            status: run.status,
        });
    }
    let bytes = run_bytes(state, id).await?;
    Ok((run, bytes))
}

/// The stored bytes of run `id`'s replay (every run has them: a missing one is the server's
/// fault).
async fn run_bytes(state: &AppState, id: i64) -> Result<Vec<u8>, ApiError> {
    state
        .store
        .runs()
        .run_bytes(id)
        .await?
        .ok_or_else(|| ApiError::Internal(format!("run {id} has no replay bytes")))
}

/// A run's status and verdict.
#[utoipa::path(get, path = "/api/runs/{id}", tag = "runs",
    params(("id" = i64, Path, description = "Run id")),
    responses(
        (status = 200, body = RunStatus),
        (status = 400, description = "Not a run id", body = ErrorBody),
        (status = 404, description = "No such run (or hidden)", body = ErrorBody),
    ))]
pub async fn status(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
) -> Result<axum::Json<RunStatus>, ApiError> {
    let (run, seen) = match state.store.runs().run_and_feed(id).await? {
        Some((run, seen)) if !run.hidden => (run, seen),
        _ => return Err(ApiError::UnknownRun { id }),
    };
    Ok(axum::Json(run_status_at(&state, run, Some(seen)).await?))
}

/// A run's status document (its ranks looked up on its level's current boards).
pub async fn run_status(state: &AppState, run: RunRow) -> Result<RunStatus, ApiError> {
    run_status_at(state, run, None).await
}

/// [`run_status`], the board change feed applied up to `seen` for both ranks (where it ended
/// when the run was read), or up to where it ends now.
async fn run_status_at(
    state: &AppState,
    run: RunRow,
    seen: Option<FeedSeq>,
) -> Result<RunStatus, ApiError> {
    let id = run.id;
    let rate = state.catalog.tick_rate();
    let finished = run.status == RunState::Verified && run.finish_tick.is_some();
    let mut boards = Vec::new();
    let current = (state.catalog)
        .current_board(&state.store, &run.level, Category::Open)
        .await?;
    if finished {
        if let Some(open) = &current {
            boards.push(open.clone());
            if run.realtime {
                boards.push(Board {
                    category: Category::RealTime,
                    ..open.clone()
                });
            }
        }
    }
    let ranks = state
        .store
        .boards()
        .run_ranks(&boards, id, run.player_id, seen)
        .await?;
    let rank_on = |category: Category| {
        boards
            .iter()
            .zip(&ranks)
            .find(|(board, _)| board.category == category)
            .and_then(|(_, rank)| *rank)
    };
    let (rank, realtime_rank) = (rank_on(Category::Open), rank_on(Category::RealTime));
    let tick = |v: Option<i64>| v.and_then(|v| u32::try_from(v).ok());
    let finish = tick(run.finish_tick).map(|t| TickTime::new(t, rate));
    let season = tick(Some(run.rules_version))
        .and_then(|rules| SeasonId::from_stored(rules, &run.level_hash, &run.tuning_hash));
    let current_season = season.is_some() && current.as_ref().and_then(SeasonId::of) == season;
    Ok(RunStatus {
        id,
        player: run.player,
        level: run.level,
        status: run.status,
        ticks: tick(run.ticks),
        finish_tick: finish.as_ref().map(|f| f.tick),
        time_s: finish.as_ref().map(|f| f.time_s),
        time: finish.map(|f| f.time),
        rank,
        season: season.map_or_else(|| "?".into(), |s| s.to_string()),
        current_season,
        reverified_from: run.reverified_from,
        realtime: run.realtime,
        realtime_note: run.realtime_note,
        realtime_rank,
        reason: run.reason,
        reason_kind: run.reason_kind,
        splits: splits(run.splits.as_deref(), rate),
        final_hash: run.final_hash,
        tick_rate: rate,
        uploaded_at: rfc3339(run.uploaded_ms),
        verified_at: run.verified_ms.map(rfc3339),
        status_url: format!("/api/runs/{id}"),
        replay_url: format!("/api/runs/{id}/replay"),
        ghost_url: format!("/api/runs/{id}/ghost"),
    })
}

/// A verified run's replay file, byte for byte as uploaded.
#[utoipa::path(get, path = "/api/runs/{id}/replay", tag = "runs",
    params(("id" = i64, Path, description = "Run id")),
    responses(
        (status = 200, description = "The replay file", content_type = "application/octet-stream", body = Vec<u8>),
        (status = 400, description = "Not a run id", body = ErrorBody),
        (status = 404, description = "No such run (or hidden)", body = ErrorBody),
        (status = 409, description = "The run is not verified (`not_verified`)", body = ErrorBody),
        (status = 500, description = "The stored replay is damaged (`corrupt_replay`: its bytes do not match their hash; not served, the operator is told)", body = ErrorBody),
    ))]
pub async fn replay(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
) -> Result<Response, ApiError> {
    let (_, bytes) = verified_run_bytes(&state, id).await?;
    let disposition = format!("attachment; filename=\"run-{id}.pogo\"");
    Ok((
        [
            (header::CONTENT_TYPE, "application/octet-stream".to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        bytes,
    )
        .into_response())
}

/// The replay is one player's, the caller's: its header names the token's player.
pub(super) fn check_author(header: &pogo_replay::Header, player: &Player) -> Result<(), ApiError> {
    if header.players != 1 {
        return Err(ApiError::NotSinglePlayer {
            players: header.players,
        });
    }
    let name = header
        .player_name
        .as_deref()
        .ok_or(ApiError::NoPlayerName)?;
    if name != player.name() {
        return Err(ApiError::NameMismatch {
            token: player.name().to_string(),
            replay: name.to_string(),
        });
    }
    Ok(())
}
