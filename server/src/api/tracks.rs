//! Player-made tracks: `POST /api/tracks/check` (what a level file would publish as: its id
//! and level name, to record the author's run under), `POST /api/tracks` (publish a track
//! with its author's finishing run), `GET /api/tracks` (the lists), `GET /api/tracks/{id}`,
//! `GET /api/tracks/{id}/level.json` (the level file, byte for byte as stored),
//! `PATCH /api/tracks/{id}` (its author renames it), `PUT /api/admin/tracks/{id}/hidden`.
//!
//! **A track is a level.** Its level name is `t-` and its id (`pogo_replay::track`), its
//! runs are uploaded, verified, ranked, raced live and exported as any level's, under that
//! name (`catalog.rs` resolves it). These routes add what a level does not have: an author,
//! a name that may change, medals, remixes, and the lists.
//!
//! **Publishing is proving.** The body is hostile: its size is bounded before it is read
//! (`limits::publish_body_limit`), the level file's before it is parsed
//! (`pogo_replay::track::check_track`: the same parser and checks as the CLI, each refusal
//! naming its field); then the author's replay must be one player, the caller, of the
//! track's own level name, and re-simulate on exactly this geometry — the same verifier an
//! upload meets — to the finish. Then, in one transaction, the track's row and the author's
//! run (filed verified through `store/filing.rs`, the one way in: the first entry of the
//! track's board). Cheapest refusals first: the token, the per-day count, the body's size,
//! its JSON, the name, the level, an existing track of the same geometry, the replay.
//!
//! **Medals** follow from the author time by Trackmania's rule: with the author time `A` in
//! ticks (`finish_tick + 1`), gold is `⌈1.06·A⌉`, silver `⌈1.2·A⌉`, bronze `⌈1.5·A⌉` ticks; a
//! run of finish tick `f` earns the best medal whose ticks are at least `f + 1` (the author
//! medal for `f + 1 ≤ A`).

use std::sync::Arc;

use axum::Json;
use axum::body::Body;
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use pogo_core::RULES_VERSION;
use pogo_core::world::World;
use pogo_replay::Replay;
use pogo_replay::track::{Track, check_track};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::{IntoParams, ToSchema};

use super::caller::{Admin, Player};
use super::http::{ApiJson, ApiPath, ApiQuery};
use crate::error::{ApiError, ErrorBody};
use crate::limits::{
    RETRY_AFTER_BUSY_S, TRACK_DESCRIPTION_CHARS_MAX, TRACK_LIST_LIMIT_DEFAULT,
    TRACK_LIST_LIMIT_MAX, TRACK_NAME_CHARS_MAX, TRACKS_PER_PLAYER_PER_DAY, publish_body_limit,
};
use crate::state::AppState;
use crate::store::hash_hex;
use crate::store::tracks::{CurrentRules, NewTrack, Published, TrackOrder, TrackQuery, TrackRow};
use crate::store::{NewRun, Verdict};
use crate::times::{clock, millis, now_ms, rfc3339};

/// A day, in milliseconds (the publish limit's window).
const DAY_MS: i64 = 86_400_000;

/// Medals as multiples of the author time, in hundredths (gold, silver, bronze).
pub const MEDAL_PERCENT: [(&str, u64); 3] = [("gold", 106), ("silver", 120), ("bronze", 150)];

/// `POST /api/tracks`'s body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Publish {
    /// The level file (`replay/LEVELS.md`) as text, at most 256 KiB. Its `name` is replaced
    /// by the track's level name (`t-` and its id); its geometry is the track's identity.
    pub level: String,
    /// 1–64 characters, no control or invisible formatting characters, no space at either
    /// end.
    #[schema(min_length = 1, max_length = 64)]
    pub name: String,
    /// At most 500 characters; line breaks allowed, no other control characters.
    #[serde(default)]
    #[schema(max_length = 500)]
    pub description: Option<String>,
    /// The author's replay, base64 (standard alphabet, padded): one player, named as the
    /// token's player, of the track's level name, finishing.
    pub replay: String,
    /// The id of the track this one remixes (a geometry change of it), or `null`.
    #[serde(default)]
    #[schema(pattern = "^[0-9a-f]{16}$")]
    pub remix_of: Option<String>,
}

/// `PATCH /api/tracks/{id}`'s body: what changes (a missing field stays as it is).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TrackEdit {
    #[schema(min_length = 1, max_length = 64)]
    pub name: Option<String>,
    #[schema(max_length = 500)]
    pub description: Option<String>,
}

/// A time in ticks, as the page shows it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TicksTime {
    /// Ticks (a run's time is its `finish_tick + 1`).
    pub ticks: u32,
    /// `ticks / tick_rate` in milliseconds, rounded half up.
    pub time_ms: u64,
    /// The same as `m:ss.mmm`.
    pub time: String,
}

impl TicksTime {
    fn new(ticks: u32, rate: u32) -> TicksTime {
        let ms = millis(u64::from(ticks), rate);
        TicksTime {
            ticks,
            time_ms: ms,
            time: clock(ms),
        }
    }
}

/// A track's medals: the most ticks a run may take (`finish_tick + 1`) to earn each.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Medals {
    /// The author time.
    pub author: TicksTime,
    /// ⌈1.06 × author⌉ ticks.
    pub gold: TicksTime,
    /// ⌈1.2 × author⌉ ticks.
    pub silver: TicksTime,
    /// ⌈1.5 × author⌉ ticks.
    pub bronze: TicksTime,
}

/// The medals of an author time of `author_ticks` ticks (`finish_tick + 1`).
pub fn medals(author_ticks: u32, rate: u32) -> Medals {
    let times = |percent: u64| {
        let ticks = (u64::from(author_ticks) * percent).div_ceil(100);
        TicksTime::new(u32::try_from(ticks).unwrap_or(u32::MAX), rate)
    };
    Medals {
        author: TicksTime::new(author_ticks, rate),
        gold: times(MEDAL_PERCENT[0].1),
        silver: times(MEDAL_PERCENT[1].1),
        bronze: times(MEDAL_PERCENT[2].1),
    }
}

/// A track.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrackView {
    /// The geometry hash, 16 lowercase hex digits.
    pub id: String,
    /// The level name its runs carry and its boards are keyed by: `t-` and the id.
    pub level: String,
    pub name: String,
    pub description: String,
    /// The author's player name.
    pub author: String,
    /// Whether it is in the lists: its author has finished it under the rules the server
    /// runs. False after a rules change under which the author's run no longer finishes
    /// (or before `pogo-server reverify` has carried it over): it is listed again when its
    /// author finishes it. An unlisted track can still be raced.
    pub listed: bool,
    /// The author's run under the server's rules (their first finish on the track's current
    /// board; the first entry of its board); null when unlisted.
    pub author_run_id: Option<i64>,
    /// The author run's finish tick; null when unlisted.
    pub author_finish_tick: Option<u32>,
    /// The author time and the medals; null when unlisted.
    pub medals: Option<Medals>,
    /// RFC 3339, UTC.
    pub created_at: String,
    /// When its name or description last changed (RFC 3339, UTC).
    pub updated_at: String,
    /// The track this one is a remix of.
    pub remix_of: Option<String>,
    /// Shown tracks that are remixes of this one.
    pub remixes: i64,
    /// Verified finishes on its current board (shown players').
    pub runs: i64,
    /// In the popular list: finishes verified in its window (7 days); else absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raced_recently: Option<i64>,
    /// On the admin routes only: whether an admin hid it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<bool>,
    pub track_url: String,
    /// The level file, byte for byte as stored (`pogo verify --level FILE` of its runs).
    pub level_json_url: String,
    /// The geometry for drawing (`GET /api/levels/{level}`).
    pub level_url: String,
    pub leaderboard_url: String,
}

impl TrackView {
    fn new(row: TrackRow, rate: u32, popular: bool, admin: bool) -> TrackView {
        let finish = row
            .author_finish_tick
            .map(|f| u32::try_from(f).unwrap_or(u32::MAX));
        TrackView {
            listed: row.listed(),
            track_url: format!("/api/tracks/{}", row.id),
            level_json_url: format!("/api/tracks/{}/level.json", row.id),
            level_url: format!("/api/levels/{}", row.level),
            leaderboard_url: format!("/api/levels/{}/leaderboard", row.level),
            id: row.id,
            level: row.level,
            name: row.name,
            description: row.description,
            author: row.author,
            author_run_id: row.author_run_id,
            author_finish_tick: finish,
            medals: finish.map(|f| medals(f.saturating_add(1), rate)),
            created_at: rfc3339(row.created_ms),
            updated_at: rfc3339(row.updated_ms),
            remix_of: row.remix_of,
            remixes: row.remixes,
            runs: row.runs,
            raced_recently: popular.then_some(row.raced),
            hidden: admin.then_some(row.hidden),
        }
    }
}

/// A track, as `POST /api/tracks` and `PATCH` answer it.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrackAnswer {
    pub track: TrackView,
}

/// A page of tracks.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrackList {
    pub tracks: Vec<TrackView>,
    /// Pass as `cursor` for the next page; `null` on the last.
    pub next_cursor: Option<String>,
}

/// The order of `GET /api/tracks`.
#[derive(Clone, Copy, Debug, Default, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Sort {
    /// Newest first (the default without `q`).
    #[default]
    New,
    /// Most finishes verified in the last 7 days first; tracks not raced in that window are
    /// not listed.
    Popular,
    /// By name (the default with `q`, and the only order with it).
    Name,
}

/// `GET /api/tracks`'s query.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// `new` (default), `popular` or `name`.
    pub sort: Option<Sort>,
    /// Only this player's tracks (any case).
    pub author: Option<String>,
    /// Names starting with this text, ignoring case (1–64 characters); listed by name.
    pub q: Option<String>,
    /// 1–100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
    /// `next_cursor` of the page before.
    pub cursor: Option<String>,
}

/// What `POST /api/tracks/check` answers: the track a level file would publish as.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrackCheck {
    /// The geometry hash, 16 lowercase hex digits: the track's id.
    pub id: String,
    /// `t-` and the id: the level name the author's replay must carry.
    pub level: String,
    /// The level file renamed so (what `GET /api/tracks/{id}/level.json` will serve): record
    /// the author's run on it (`pogo simulate --level FILE --record run.pogo`).
    pub level_json: String,
    /// Solids, ramps, platforms, zones, checkpoints, finishes and kill volumes together.
    pub objects: usize,
    /// The largest distance of any coordinate from the origin on one axis (m).
    pub extent_m: i32,
    /// Whether that geometry is published already (publishing it again answers that track).
    pub published: bool,
}

/// Check a level file as a track, without publishing it.
///
/// The body is the level file itself (`replay/LEVELS.md`), at most 256 KiB. The answer names
/// the track it would be — its id and level name — and gives the file renamed so: the
/// author's run is recorded on that file, then published with it (`POST /api/tracks`). A
/// refusal names the field at fault, as publishing would.
#[utoipa::path(post, path = "/api/tracks/check", operation_id = "check_track", tag = "tracks",
    request_body(content = String, content_type = "application/json",
        description = "A level file (replay/LEVELS.md)"),
    responses(
        (status = 200, body = TrackCheck),
        (status = 400, description = "The level file refused (`bad_track`, with `field`)", body = ErrorBody),
        (status = 413, description = "Over 256 KiB", body = ErrorBody),
        (status = 415, description = "Not `application/json`", body = ErrorBody),
        (status = 429, description = "Rate limited (per address)", body = ErrorBody),
        (status = 503, description = "The database unavailable; see Retry-After", body = ErrorBody),
    ))]
pub async fn check(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<TrackCheck>, ApiError> {
    let limit = pogo_replay::track::TRACK_JSON_BYTES_MAX as u64;
    check_json_headers(&headers, limit)?;
    let bytes = super::runs::read_body(body, limit).await?;
    let text = String::from_utf8(bytes).map_err(|e| ApiError::BadTrack {
        field: String::new(),
        why: format!("not UTF-8 text: {e}"),
    })?;
    let tuning = state.catalog.verifier().tuning().clone();
    let track = tokio::task::spawn_blocking(move || check_track(&text, &tuning))
        .await
        .map_err(|e| ApiError::Internal(format!("checking a track: {e}")))?
        .map_err(|e| ApiError::BadTrack {
            field: e.field,
            why: e.why,
        })?;
    let id = format!("{:016x}", track.geometry_hash);
    let published = state
        .store
        .tracks()
        .track(&id, &current_rules(&state))
        .await?
        .is_some_and(|row| row.visible());
    Ok(Json(TrackCheck {
        level: track.desc.name.clone(),
        level_json: pogo_replay::level_to_json(&track.desc),
        objects: track.objects,
        extent_m: track.extent_m,
        published,
        id,
    }))
}

/// Publish a track with its author's finishing run.
///
/// The caller is the author. The level file is checked as the CLI checks one (`pogo
/// simulate --level`), then the track's limits (`replay/LEVELS.md`, "Tracks"); the replay
/// must be the caller's, recorded on the track's level name (`t-` and the id: the geometry
/// hash the server computes — `POST /api/tracks/check` tells it), and
/// re-simulate on this geometry to the finish. Its time is the author time. The same
/// geometry published again, by anyone, answers 200 with the existing track and writes
/// nothing (the replay is not looked at).
#[utoipa::path(post, path = "/api/tracks", operation_id = "publish_track", tag = "tracks",
    request_body = Publish,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Published: the track and its board, with the author's run first", body = TrackAnswer),
        (status = 200, description = "This geometry is a track already: that track (nothing written)", body = TrackAnswer),
        (status = 400, description = "Not JSON of this shape (`bad_json`); a level file, name, description or remix id refused (`bad_track`, with `field`); a replay that is not well-formed (`bad_replay`), not one player (`not_single_player`), or that does not prove the track (`bad_author_run`, with `kind`: `not_finished`, `level_name`, `base64`, `desync`, `level_mismatch`, …)", body = ErrorBody),
        (status = 401, description = "No token or not a valid one", body = ErrorBody),
        (status = 403, description = "The replay is another player's (`name_mismatch`), or the player is hidden", body = ErrorBody),
        (status = 409, description = "This geometry was published and an admin hid it (`track_hidden`)", body = ErrorBody),
        (status = 413, description = "Body over the limit", body = ErrorBody),
        (status = 415, description = "Not `application/json`", body = ErrorBody),
        (status = 429, description = "Rate limited, or 20 tracks published in the last 24 hours (`too_many_tracks`); see Retry-After", body = ErrorBody),
        (status = 503, description = "Busy or the database unavailable; see Retry-After", body = ErrorBody),
    ))]
pub async fn publish(
    State(state): State<AppState>,
    player: Result<Player, ApiError>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let player = player?;
    state
        .rates
        .check_token(player.id())
        .map_err(|retry_after_s| ApiError::RateLimited { retry_after_s })?;
    let now = now_ms();
    let (request, description, _slot) = read_publish(&state, &player, &headers, body, now).await?;
    // The level file: its size first, then the parser, the core's checks and a track's
    // limits (milliseconds for the largest: off the async threads).
    let tuning = state.catalog.verifier().tuning().clone();
    let level_text = request.level;
    let (checked, level_text) = tokio::task::spawn_blocking(move || {
        let checked = check_track(&level_text, &tuning).map(|track| {
            let world = World::new(track.desc.clone(), &tuning);
            (track, world)
        });
        (checked, level_text)
    })
    .await
    .map_err(|e| ApiError::Internal(format!("checking a track: {e}")))?;
    drop(level_text);
    let (track, world) = checked.map_err(|e| ApiError::BadTrack {
        field: e.field,
        why: e.why,
    })?;
    let world = world.map_err(|e| ApiError::Internal(format!("a checked track: {e}")))?;
    let id = format!("{:016x}", track.geometry_hash);
    let rules = current_rules(&state);
    let rate = state.catalog.tick_rate();
    // The same geometry: that track, whoever asks (nothing is written).
    if let Some(existing) = state.store.tracks().track(&id, &rules).await? {
        if !existing.visible() {
            return Err(ApiError::TrackHidden { id });
        }
        let view = TrackView::new(existing, rate, false, false);
        return Ok(super::http::with_status(
            StatusCode::OK,
            TrackAnswer { track: view },
        ));
    }
    let replay = base64::engine::general_purpose::STANDARD
        .decode(request.replay.as_bytes())
        .map_err(|e| ApiError::BadAuthorRun {
            kind: "base64".into(),
            why: format!("`replay` is not base64: {e}"),
        })?;
    if replay.len() as u64 > state.upload_limit {
        return Err(ApiError::BodyTooLarge {
            limit: state.upload_limit,
        });
    }
    let verdict = prove(&state, &player, &track, world, &replay).await?;
    let Verdict::Verified {
        finish_tick: Some(finish_tick),
        ..
    } = &verdict
    else {
        return Err(ApiError::Internal("a proven run without a finish".into()));
    };
    let level_json = pogo_replay::level_to_json(&track.desc);
    let level_hash = hash_hex(track.desc.content_hash());
    let tuning_hash = hash_hex(state.catalog.tuning_hash());
    let run = NewRun {
        player_id: player.id(),
        bytes: &replay,
        replay_hash: Sha256::digest(&replay).into(),
        level: &track.desc.name,
        level_hash: level_hash.clone(),
        tuning_hash,
        rules_version: RULES_VERSION,
        uploaded_ms: now,
        ticket: None,
    };
    let new = NewTrack {
        id: &id,
        level: &track.desc.name,
        level_json: &level_json,
        level_hash: &level_hash,
        author_id: player.id(),
        name: &request.name,
        description: &description,
        created_ms: now,
        remix_of: request.remix_of.as_deref(),
        author_finish_tick: i64::from(*finish_tick),
    };
    let status = match state.store.tracks().publish(&new, &run, &verdict).await? {
        Published::New { run_id } => {
            tracing::info!(track = %id, run = run_id, author = %player.name(),
                objects = track.objects, finish_tick, "track published");
            StatusCode::CREATED
        }
        Published::Existing => StatusCode::OK,
        Published::UnknownOriginal => {
            return Err(ApiError::BadTrack {
                field: "remix_of".into(),
                why: "no track of that id".into(),
            });
        }
        Published::ReplayFiled(run_id) => {
            return Err(ApiError::BadAuthorRun {
                kind: "replay_filed".into(),
                why: format!("these replay bytes are filed already, as run {run_id}"),
            });
        }
    };
    let row = state
        .store
        .tracks()
        .track(&id, &rules)
        .await?
        .ok_or_else(|| ApiError::Internal(format!("track {id} published and not found")))?;
    if !row.visible() {
        return Err(ApiError::TrackHidden { id });
    }
    let view = TrackView::new(row, rate, false, false);
    Ok(super::http::with_status(
        status,
        TrackAnswer { track: view },
    ))
}

/// A publish request's checks before the level file, cheapest first: the day's count, the
/// headers, a slot, the body within its limit, its JSON, the name, the description and the
/// remix id. The request, its description, and the upload slot it holds.
async fn read_publish<'a>(
    state: &'a AppState,
    player: &Player,
    headers: &HeaderMap,
    body: Body,
    now: i64,
) -> Result<(Publish, String, tokio::sync::SemaphorePermit<'a>), ApiError> {
    let (today, first) = state
        .store
        .tracks()
        .published_since(player.id(), now - DAY_MS)
        .await?;
    if today >= TRACKS_PER_PLAYER_PER_DAY {
        let wait_ms = (first + DAY_MS - now).max(1000);
        return Err(ApiError::TooManyTracks {
            max: TRACKS_PER_PLAYER_PER_DAY,
            retry_after_s: u64::try_from((wait_ms + 999) / 1000).unwrap_or(1),
        });
    }
    let limit = publish_body_limit(state.upload_limit);
    check_json_headers(headers, limit)?;
    let slot = state.uploads.try_acquire().map_err(|_| ApiError::Busy {
        what: "too many uploads in progress",
        retry_after_s: RETRY_AFTER_BUSY_S,
    })?;
    let bytes = super::runs::read_body(body, limit).await?;
    let request: Publish =
        serde_json::from_slice(&bytes).map_err(|e| ApiError::BadJson(e.to_string()))?;
    drop(bytes);
    check_text("name", &request.name, TRACK_NAME_CHARS_MAX, false)?;
    let description = request.description.clone().unwrap_or_default();
    check_text(
        "description",
        &description,
        TRACK_DESCRIPTION_CHARS_MAX,
        true,
    )?;
    if let Some(original) = &request.remix_of {
        if !is_track_id(original) {
            return Err(ApiError::BadTrack {
                field: "remix_of".into(),
                why: "a track id is 16 lowercase hex digits".into(),
            });
        }
    }
    Ok((request, description, slot))
}

/// The author's replay proves `track`: one player, the caller, the track's level name, and
/// a re-simulation on this world (the verifier an upload meets, given this world) that
/// finishes. The verdict to file.
async fn prove(
    state: &AppState,
    player: &Player,
    track: &Track,
    world: World,
    replay: &[u8],
) -> Result<Verdict, ApiError> {
    let limits = state.catalog.verifier().limits();
    let header = Replay::decode(replay, limits)
        .map_err(ApiError::BadReplay)?
        .header;
    super::runs::check_author(&header, player)?;
    if header.level_name != track.desc.name {
        return Err(ApiError::BadAuthorRun {
            kind: "level_name".into(),
            why: format!(
                "the replay is of level {:?}; this track's level name is {} (record the run \
                 on the level file as the server names it)",
                header.level_name, track.desc.name
            ),
        });
    }
    let verifier = state.catalog.verifier().with_world(Arc::new(world));
    let bytes = replay.to_vec();
    // On the prompt lane's threads, below the relay's priority (`lanes`).
    let verdict = crate::lanes::run(crate::lanes::Lane::Prompt, move || {
        crate::verdict::verify(&verifier, &bytes)
    })
    .await
    .map_err(|e| ApiError::Internal(format!("verifying an author's run: {e}")))?;
    match verdict {
        Verdict::Verified {
            finish_tick: None,
            ticks,
            ..
        } => Err(ApiError::BadAuthorRun {
            kind: "not_finished".into(),
            why: format!("it re-simulates ({ticks} ticks) but never reaches the finish"),
        }),
        Verdict::Rejected { kind, reason } => Err(ApiError::BadAuthorRun { kind, why: reason }),
        verified => Ok(verified),
    }
}

/// A JSON body's headers, before it is read: `application/json` (415 otherwise) and a
/// declared length within `limit` (413).
fn check_json_headers(headers: &HeaderMap, limit: u64) -> Result<(), ApiError> {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"));
    if !json {
        return Err(ApiError::ContentType {
            expected: "application/json",
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

/// Characters a name or description may not hold besides control characters: invisible
/// formatting (soft hyphen, zero-width and joiners, bidirectional marks, embeddings,
/// overrides and isolates, the byte-order mark) and the line and paragraph separators —
/// what could make printed text pass for something else.
fn is_format(c: char) -> bool {
    matches!(c,
        '\u{AD}' | '\u{61C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}')
}

/// A track's name (`lines` false) or description (`lines` true: `\n` allowed): at most
/// `max` characters; a name 1 or more, with no space at either end.
pub fn check_text(field: &str, text: &str, max: usize, lines: bool) -> Result<(), ApiError> {
    let refuse = |why: String| ApiError::BadTrack {
        field: field.to_string(),
        why,
    };
    let chars = text.chars().count();
    if chars > max || (!lines && chars == 0) {
        return Err(refuse(format!(
            "{chars} characters: at most {max}{}",
            if lines { "" } else { ", at least 1" }
        )));
    }
    if let Some((i, c)) = text
        .chars()
        .enumerate()
        .find(|&(_, c)| (c.is_control() && !(lines && c == '\n')) || is_format(c))
    {
        return Err(refuse(format!(
            "U+{:04X} at character {i}: no control or invisible formatting characters",
            u32::from(c)
        )));
    }
    if !lines && text.trim() != text {
        return Err(refuse("no space at the start or the end".into()));
    }
    Ok(())
}

/// Whether `id` is a track id: 16 lowercase hex digits.
pub fn is_track_id(id: &str) -> bool {
    id.len() == 16 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A track id from the path: one that is not [a track id](is_track_id) names no track (404
/// `unknown_track`), refused before anything else is looked at (a handler takes it before
/// the token and the body).
#[derive(Debug)]
pub struct TrackId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for TrackId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<TrackId, ApiError> {
        let ApiPath(id) = ApiPath::<String>::from_request_parts(parts, state).await?;
        if is_track_id(&id) {
            Ok(TrackId(id))
        } else {
            Err(ApiError::UnknownTrack { id })
        }
    }
}

fn current_rules(state: &AppState) -> CurrentRules {
    CurrentRules {
        rules_version: RULES_VERSION,
        tuning_hash: hash_hex(state.catalog.tuning_hash()),
    }
}

/// A shown track, or 404.
async fn visible_track(state: &AppState, id: &str) -> Result<TrackRow, ApiError> {
    match state
        .store
        .tracks()
        .track(id, &current_rules(state))
        .await?
    {
        Some(row) if row.visible() => Ok(row),
        _ => Err(ApiError::UnknownTrack { id: id.to_string() }),
    }
}

/// A track.
#[utoipa::path(get, path = "/api/tracks/{id}", operation_id = "get_track", tag = "tracks",
    params(("id" = String, Path, description = "Track id (16 hex digits)")),
    responses(
        (status = 200, body = TrackView),
        (status = 404, description = "No such track, or hidden (`unknown_track`)", body = ErrorBody),
    ))]
pub async fn track(
    State(state): State<AppState>,
    TrackId(id): TrackId,
) -> Result<Json<TrackView>, ApiError> {
    let row = visible_track(&state, &id).await?;
    Ok(Json(TrackView::new(
        row,
        state.catalog.tick_rate(),
        false,
        false,
    )))
}

/// A track's level file, exactly as stored at publish (named by its level name): what
/// `pogo verify --level FILE` verifies the track's runs against.
#[utoipa::path(get, path = "/api/tracks/{id}/level.json", operation_id = "track_level_json", tag = "tracks",
    params(("id" = String, Path, description = "Track id (16 hex digits)")),
    responses(
        (status = 200, description = "The level file (replay/LEVELS.md)", content_type = "application/json", body = String),
        (status = 404, description = "No such track, or hidden (`unknown_track`)", body = ErrorBody),
    ))]
pub async fn level_json(
    State(state): State<AppState>,
    TrackId(id): TrackId,
) -> Result<Response, ApiError> {
    visible_track(&state, &id).await?;
    let text = state
        .store
        .tracks()
        .level_json(&id)
        .await?
        .ok_or_else(|| ApiError::UnknownTrack { id: id.clone() })?;
    let disposition = format!("attachment; filename=\"t-{id}.json\"");
    Ok((
        [
            (header::CONTENT_TYPE, "application/json".to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        text,
    )
        .into_response())
}

/// Tracks: the newest, the most raced in the last 7 days, an author's, or by name.
///
/// Pages follow `next_cursor` (a keyset: a page costs an index walk of its own length,
/// however deep). `q` lists names starting with it, ignoring case, in name order.
#[utoipa::path(get, path = "/api/tracks", operation_id = "list_tracks", tag = "tracks",
    params(ListQuery),
    responses(
        (status = 200, body = TrackList),
        (status = 400, description = "A bad parameter or cursor (`bad_parameter`)", body = ErrorBody),
        (status = 404, description = "No player of that `author` name (`unknown_player`)", body = ErrorBody),
    ))]
pub async fn list(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<ListQuery>,
) -> Result<Json<TrackList>, ApiError> {
    let limit = query.limit.unwrap_or(TRACK_LIST_LIMIT_DEFAULT);
    if !(1..=TRACK_LIST_LIMIT_MAX).contains(&limit) {
        return Err(ApiError::BadParameter(format!(
            "limit={limit}: must be within 1..={TRACK_LIST_LIMIT_MAX}"
        )));
    }
    let sort = match (&query.q, query.sort) {
        (Some(_), None | Some(Sort::Name)) => Sort::Name,
        (Some(_), Some(_)) => {
            return Err(ApiError::BadParameter(
                "q lists tracks by name: leave sort out (or sort=name)".into(),
            ));
        }
        (None, sort) => sort.unwrap_or_default(),
    };
    let cursor = query.cursor.as_deref().map(Cursor::parse).transpose()?;
    let bad_cursor = || ApiError::BadParameter("the cursor is of another order".into());
    let order = match sort {
        Sort::New => TrackOrder::New(match cursor {
            None => None,
            Some(Cursor::New(c, id)) => Some((c, id)),
            Some(_) => return Err(bad_cursor()),
        }),
        Sort::Popular => TrackOrder::Popular {
            after: match cursor {
                None => None,
                Some(Cursor::Popular(r, id)) => Some((r, id)),
                Some(_) => return Err(bad_cursor()),
            },
        },
        Sort::Name => {
            let q = query.q.clone().unwrap_or_default();
            let chars = q.chars().count();
            if chars > TRACK_NAME_CHARS_MAX || q.chars().any(char::is_control) {
                return Err(ApiError::BadParameter(format!(
                    "q: at most {TRACK_NAME_CHARS_MAX} printable characters"
                )));
            }
            TrackOrder::Name {
                prefix: crate::store::name_key(&q),
                after: match cursor {
                    None => None,
                    Some(Cursor::Name(k, id)) => Some((k, id)),
                    Some(_) => return Err(bad_cursor()),
                },
            }
        }
    };
    let author_id = match &query.author {
        None => None,
        // Not a name anyone has (and a database text cannot hold NUL).
        Some(name) if name.chars().any(char::is_control) => {
            return Err(ApiError::UnknownPlayer { name: name.clone() });
        }
        Some(name) => match state.store.players().player_by_name(name).await? {
            Some(p) if !p.hidden => Some(p.id),
            _ => return Err(ApiError::UnknownPlayer { name: name.clone() }),
        },
    };
    let rows = state
        .store
        .tracks()
        .list(
            &TrackQuery {
                order,
                author_id,
                limit,
            },
            &current_rules(&state),
        )
        .await?;
    let next_cursor = if rows.len() as i64 == limit {
        rows.last().map(|last| match sort {
            Sort::New => Cursor::New(last.created_ms, last.id.clone()),
            Sort::Popular => Cursor::Popular(last.raced, last.id.clone()),
            Sort::Name => Cursor::Name(crate::store::name_key(&last.name), last.id.clone()),
        })
    } else {
        None
    };
    let rate = state.catalog.tick_rate();
    Ok(Json(TrackList {
        tracks: rows
            .into_iter()
            .map(|row| TrackView::new(row, rate, sort == Sort::Popular, false))
            .collect(),
        next_cursor: next_cursor.map(|c| c.to_string()),
    }))
}

/// Where a page of a list starts: after this row of its order. Written as text,
/// `n.<created_ms>.<id>`, `p.<raced>.<id>`, `s.<hex of the name key>.<id>`.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Cursor {
    New(i64, String),
    Popular(i64, String),
    Name(String, String),
}

impl Cursor {
    fn parse(text: &str) -> Result<Cursor, ApiError> {
        let bad = || ApiError::BadParameter(format!("cursor {text:?}: not a cursor of this list"));
        let mut parts = text.splitn(3, '.');
        let (Some(kind), Some(key), Some(id)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(bad());
        };
        if !is_track_id(id) {
            return Err(bad());
        }
        let id = id.to_string();
        let number = || key.parse::<i64>().map_err(|_| bad());
        match kind {
            "n" => Ok(Cursor::New(number()?, id)),
            "p" => Ok(Cursor::Popular(number()?, id)),
            "s" => {
                if key.len() % 2 != 0
                    || key.len() > 4 * 2 * TRACK_NAME_CHARS_MAX
                    || !key.bytes().all(|b| b.is_ascii_hexdigit())
                {
                    return Err(bad());
                }
                let bytes = (0..key.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&key[i..i + 2], 16))
                    .collect::<Result<Vec<u8>, _>>()
                    .map_err(|_| bad())?;
                let key = String::from_utf8(bytes).map_err(|_| bad())?;
                // A name key never holds one (names refuse them), and a database text
                // cannot hold NUL.
                if key.chars().any(char::is_control) {
                    return Err(bad());
                }
                Ok(Cursor::Name(key, id))
            }
            _ => Err(bad()),
        }
    }
}

impl std::fmt::Display for Cursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cursor::New(c, id) => write!(f, "n.{c}.{id}"),
            Cursor::Popular(r, id) => write!(f, "p.{r}.{id}"),
            Cursor::Name(k, id) => write!(f, "s.{}.{id}", crate::auth::hex(k.as_bytes())),
        }
    }
}

/// Rename a track or change its description (its author only). The board stays: the
/// geometry, and so the id and level name, do not change.
#[utoipa::path(patch, path = "/api/tracks/{id}", operation_id = "edit_track", tag = "tracks",
    params(("id" = String, Path, description = "Track id (16 hex digits)")),
    request_body = TrackEdit,
    security(("bearer" = [])),
    responses(
        (status = 200, body = TrackAnswer),
        (status = 400, description = "Bad JSON (`bad_json`), a name or description refused (`bad_track`, with `field`)", body = ErrorBody),
        (status = 401, description = "No token or not a valid one", body = ErrorBody),
        (status = 403, description = "Another player's track (`not_author`), or the player is hidden", body = ErrorBody),
        (status = 404, description = "No such track, or hidden (`unknown_track`)", body = ErrorBody),
        (status = 413, description = "Body over 8 KiB", body = ErrorBody),
        (status = 415, description = "Not `application/json`", body = ErrorBody),
    ))]
pub async fn edit(
    State(state): State<AppState>,
    TrackId(id): TrackId,
    player: Player,
    ApiJson(edit): ApiJson<TrackEdit>,
) -> Result<Json<TrackAnswer>, ApiError> {
    let row = visible_track(&state, &id).await?;
    if row.author_id != player.id() {
        return Err(ApiError::NotAuthor { id });
    }
    if let Some(name) = &edit.name {
        check_text("name", name, TRACK_NAME_CHARS_MAX, false)?;
    }
    if let Some(description) = &edit.description {
        check_text(
            "description",
            description,
            TRACK_DESCRIPTION_CHARS_MAX,
            true,
        )?;
    }
    state
        .store
        .tracks()
        .update(
            &id,
            edit.name.as_deref(),
            edit.description.as_deref(),
            now_ms(),
        )
        .await?;
    tracing::info!(track = %id, author = %player.name(), "track edited");
    let row = visible_track(&state, &id).await?;
    Ok(Json(TrackAnswer {
        track: TrackView::new(row, state.catalog.tick_rate(), false, false),
    }))
}

/// Hide a track (`{"hidden": true}`) or show it again: hidden, it is no level any more to
/// anyone but the admin — its routes, board, level, new rooms and uploads answer 404, it
/// leaves the lists — and nothing is deleted (its runs stay, and come back with it).
#[utoipa::path(put, path = "/api/admin/tracks/{id}/hidden", operation_id = "hide_track", tag = "admin",
    params(("id" = String, Path, description = "Track id (16 hex digits)")),
    request_body = super::admin::Hidden,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The track as the admin sees it", body = TrackView),
        (status = 400, body = ErrorBody),
        (status = 401, description = "No token", body = ErrorBody),
        (status = 403, description = "Not the admin token, or admin routes off", body = ErrorBody),
        (status = 404, description = "No such track", body = ErrorBody),
    ))]
pub async fn hide(
    State(state): State<AppState>,
    _admin: Admin,
    TrackId(id): TrackId,
    ApiJson(super::admin::Hidden { hidden }): ApiJson<super::admin::Hidden>,
) -> Result<Json<TrackView>, ApiError> {
    if !state.store.tracks().set_hidden(&id, hidden).await? {
        return Err(ApiError::UnknownTrack { id });
    }
    tracing::info!(track = %id, hidden, "admin: track visibility");
    let row = state
        .store
        .tracks()
        .track(&id, &current_rules(&state))
        .await?
        .ok_or_else(|| ApiError::UnknownTrack { id: id.clone() })?;
    Ok(Json(TrackView::new(
        row,
        state.catalog.tick_rate(),
        false,
        true,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medals_round_up_to_whole_ticks() {
        let m = medals(1000, 60);
        assert_eq!(
            (m.author.ticks, m.gold.ticks, m.silver.ticks, m.bronze.ticks),
            (1000, 1060, 1200, 1500)
        );
        let m = medals(101, 60);
        assert_eq!(
            (m.gold.ticks, m.silver.ticks, m.bronze.ticks),
            (108, 122, 152)
        );
        assert_eq!(medals(u32::MAX, 60).bronze.ticks, u32::MAX);
    }

    #[test]
    fn names_refuse_what_could_pass_for_something_else() {
        assert!(check_text("name", "Loop de loop", 64, false).is_ok());
        assert!(check_text("name", "", 64, false).is_err());
        assert!(check_text("name", " x", 64, false).is_err());
        assert!(check_text("name", "a\nb", 64, false).is_err());
        assert!(check_text("name", "a\u{202E}b", 64, false).is_err());
        assert!(check_text("name", "a\u{1b}[2Jb", 64, false).is_err());
        assert!(check_text("name", &"x".repeat(65), 64, false).is_err());
        assert!(check_text("description", "two\nlines", 500, true).is_ok());
        assert!(check_text("description", "", 500, true).is_ok());
        assert!(check_text("description", "a\rb", 500, true).is_err());
    }

    #[test]
    fn cursors_read_back_and_refuse_garbage() {
        let id = "0123456789abcdef".to_string();
        for c in [
            Cursor::New(17, id.clone()),
            Cursor::Popular(3, id.clone()),
            Cursor::Name("ÿ.a b".into(), id.clone()),
        ] {
            assert_eq!(Cursor::parse(&c.to_string()).unwrap(), c);
        }
        for bad in [
            "",
            "n",
            "n.1",
            "n.x.0123456789abcdef",
            "s.zz.0123456789abcdef",
            "s.6100.0123456789abcdef",
            "q.1.0123456789abcdef",
            "n.1.xyz",
        ] {
            assert!(Cursor::parse(bad).is_err(), "{bad}");
        }
    }
}
