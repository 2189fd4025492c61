//! Run tickets: `POST /api/levels/{level}/tickets` (mint one before the countdown) and
//! `POST /api/tickets/{id}/commits` (commit to the run as it goes). The upload names its
//! ticket with `POST /api/runs?ticket=ID` (`api::runs`); the verdict judges the commitments
//! (`crate::realtime`, where the protocol and what it proves are written down).
//!
//! The server sets the ticket's GO when it issues it (`issued + TICKET_COUNTDOWN_MS`); the
//! page counts down to it. Commitments are taken in whatever order the network delivers
//! them, and a repeated one (a retry) is answered as the first (200, its first arrival
//! stands), so a page may retry until it is acknowledged.
//!
//! Every refusal changes nothing: unknown ticket 404, someone else's 403, used 409, expired
//! 410, malformed 400, the same kind and tick with another hash 409, more commitments than
//! the level has splits plus the start 409, minting too fast or holding too many unstarted
//! tickets 429 with Retry-After.

use axum::extract::{FromRequestParts, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::caller::Player;
use super::http::{ApiJson, ApiPath, Arrival};
use crate::auth;
use crate::catalog::Hidden;
use crate::error::{ApiError, ErrorBody};
use crate::limits::{TICKET_UPLOAD_WINDOW_MS, TICKETS_OPEN_MAX};
use crate::realtime::{Commit, CommitKind, Rules, TICKET_COUNTDOWN_MS, Timing};
use crate::state::AppState;
use crate::store::{Added, Category, Minted, NewTicket, Ticket};
use crate::times::{now_ms, rfc3339};

/// Hex digits of a ticket id (128 random bits).
pub const TICKET_ID_HEX_DIGITS: usize = 32;

/// A freshly issued ticket.
#[derive(Debug, Serialize, ToSchema)]
pub struct Issued {
    /// 32 lowercase hex digits: name it in the commitments and the upload.
    #[schema(example = "9f86d081884c7d659a2feaa0c55ad015")]
    pub id: String,
    pub level: String,
    /// The server's clock at issue (RFC 3339, UTC).
    pub issued_at: String,
    /// GO, on the server's clock (RFC 3339, UTC, to the ms): every commitment is measured
    /// from it, the start's included. Set by the server; nothing a client sends moves it.
    pub go_at: String,
    /// How long after this answer GO is (ms): count down this long from its arrival. The
    /// answer's trip makes a page's GO later than the server's, which costs a page part of
    /// its slack and never gains it time.
    pub go_in_ms: i64,
    /// Post the commitments here.
    pub commits_url: String,
    /// How late after GO plus its game time a commitment may arrive (ms); none may arrive
    /// before. The most a run can bank over its whole length.
    pub slack_ms: i64,
    /// Commitments the ticket takes at most: the start, one per checkpoint, the finish.
    pub commits_max: usize,
    /// Commitments are taken until this many ms after GO (the longest run the verifier
    /// accepts, then the slack).
    pub commit_window_ms: i64,
    /// An upload may name the ticket until this many ms after the issue.
    pub upload_window_ms: i64,
}

/// A commitment: where the run stands at a tick, sent the moment it happens (and again until
/// it is acknowledged: a copy is answered as the first).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CommitBody {
    /// `start` (at GO: tick 0, the state before the first tick), `checkpoint` (a checkpoint
    /// reached for the first time: its split's tick) or `finish` (the finish tick).
    #[schema(value_type = String, example = "checkpoint")]
    pub kind: CommitKind,
    /// The tick, counted from 0 (the run's splits' numbering).
    pub tick: u32,
    /// The state hash at that tick, 16 hex digits: before the first tick for the start,
    /// after the tick otherwise.
    #[schema(example = "0f3a5c7e9b1d2f40")]
    pub hash: String,
}

/// A commitment taken (201), or a copy of one taken before (200, `repeated`).
#[derive(Debug, Serialize, ToSchema)]
pub struct Committed {
    pub ticket: String,
    /// Its number among the ticket's commitments, in the order they first arrived.
    pub seq: usize,
    #[schema(value_type = String)]
    pub kind: CommitKind,
    pub tick: u32,
    /// The server's clock when it first arrived (RFC 3339, UTC, to the millisecond).
    pub received_at: String,
    /// Whether it arrived before (this is a copy: the first arrival stands).
    pub repeated: bool,
    /// Whether its first arrival was within its window, GO plus the tick's game time plus
    /// the slack (not sooner, not later). A run is real-time only if every commitment was;
    /// the verdict also checks them against the replay.
    pub on_time: bool,
}

/// Ask for a run ticket: its GO is the countdown's end.
///
/// The ticket is bound to the token's player and to the level's current board; the server
/// sets its GO (`go_at`, `go_in_ms` from now), and the page counts down to it. Commit to
/// the run with `POST /api/tickets/{id}/commits` as it goes, then upload the replay with
/// `POST /api/runs?ticket=ID`: the run is on the real-time board if every commitment came
/// within GO plus its game time plus the slack and the replay reproduces them (what that
/// proves: the README's "Real-time runs").
#[utoipa::path(post, path = "/api/levels/{level}/tickets", tag = "runs",
    params(("level" = String, Path, description = "Level name")),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Issued", body = Issued),
        (status = 401, description = "No token or not a valid one", body = ErrorBody),
        (status = 403, description = "The player is hidden", body = ErrorBody),
        (status = 404, description = "A level the server does not run (`unknown_level`)", body = ErrorBody),
        (status = 429, description = "Minting too fast (`rate_limited`), or too many tickets issued and not started (`too_many_tickets`); see Retry-After", body = ErrorBody),
        (status = 503, description = "The server is stopping (`busy`), or the database is unavailable; see Retry-After", body = ErrorBody),
    ))]
pub async fn mint(
    State(state): State<AppState>,
    ApiPath(level): ApiPath<String>,
    player: Player,
) -> Result<Response, ApiError> {
    let board = (state.catalog)
        .current_board(&state.store, &level, Category::RealTime)
        .await?
        .ok_or(ApiError::UnknownLevel {
            name: level.clone(),
        })?;
    state
        .ticket_rate
        .check(player.id())
        .map_err(|retry_after_s| ApiError::RateLimited { retry_after_s })?;
    let id = new_ticket_id()?;
    let now = now_ms();
    let go = now + TICKET_COUNTDOWN_MS;
    let start_by = TICKET_COUNTDOWN_MS + state.ticket_slack_ms;
    let minted = state
        .store
        .tickets()
        .mint_ticket(
            &NewTicket {
                id: &id,
                player_id: player.id(),
                board: &board,
                issued_ms: now,
                go_ms: go,
            },
            now - start_by,
            TICKETS_OPEN_MAX,
        )
        .await?;
    if let Minted::TooManyOpen { open } = minted {
        return Err(ApiError::TooManyTickets {
            open,
            retry_after_s: u64::try_from(start_by).map_or(1, |ms| ms.div_ceil(1000)),
        });
    }
    tracing::info!(player = %player.name(), level = %level, "ticket issued");
    let issued = Issued {
        commits_url: format!("/api/tickets/{id}/commits"),
        id,
        level,
        issued_at: rfc3339(now),
        go_at: rfc3339(go),
        go_in_ms: go - now_ms(),
        slack_ms: state.ticket_slack_ms,
        commits_max: commits_max(&state, &board.level).await?,
        commit_window_ms: commit_window_ms(&state),
        upload_window_ms: TICKET_UPLOAD_WINDOW_MS,
    };
    Ok(super::http::with_status(StatusCode::CREATED, issued))
}

/// Commit to a run: the start, a checkpoint or the finish, the moment it happens.
///
/// The server stamps it with its own clock on first arrival, as the request reaches the
/// handler: before the token is looked up and the body read (neither a slow database nor a
/// large body can make it later). Commitments may arrive in any
/// order; one is identified by its kind and tick, and a copy of one taken before (a retry)
/// is answered 200 with the first arrival, so a page retries until acknowledged. At most
/// one per split and the start (`commits_max`). Taken until the upload names the ticket or
/// the commit window ends.
#[utoipa::path(post, path = "/api/tickets/{id}/commits", tag = "runs",
    params(("id" = String, Path, description = "Ticket id (32 hex digits)")),
    request_body(content = CommitBody, content_type = "application/json"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A copy of a commitment taken before: its first arrival stands", body = Committed),
        (status = 201, description = "Taken", body = Committed),
        (status = 400, description = "Not a ticket id, or a malformed commitment (`bad_parameter`, `bad_json`, `bad_commit`)", body = ErrorBody),
        (status = 401, description = "No token or not a valid one", body = ErrorBody),
        (status = 403, description = "Another player's ticket (`not_your_ticket`), or the player is hidden", body = ErrorBody),
        (status = 404, description = "No such ticket (`unknown_ticket`)", body = ErrorBody),
        (status = 409, description = "Used by an upload already (`ticket_used`), the same kind and tick committed before with another hash (`commit_conflict`), or one too many (`too_many_commits`)", body = ErrorBody),
        (status = 410, description = "Past its commit window (`ticket_expired`)", body = ErrorBody),
        (status = 413, description = "Body over the limit", body = ErrorBody),
        (status = 415, description = "Not `application/json`", body = ErrorBody),
        (status = 429, description = "Rate limited (per address); see Retry-After", body = ErrorBody),
        (status = 503, description = "Database unavailable; see Retry-After", body = ErrorBody),
    ))]
pub async fn commit(
    Arrival(received_ms): Arrival,
    State(state): State<AppState>,
    TicketId(id): TicketId,
    player: Player,
    ApiJson(body): ApiJson<CommitBody>,
) -> Result<Response, ApiError> {
    let commit = Commit {
        kind: body.kind,
        tick: body.tick,
        hash: parse_hash(&body.hash)?,
        received_ms,
    };
    let ticket = owned_ticket(&state, &id, &player).await?;
    check_commit(&state, &ticket, &commit)?;
    let max = commits_max(&state, &ticket.level).await?;
    let (status, seq, first) = match state.store.tickets().add_commit(&id, &commit, max).await? {
        Added::New { seq } => (StatusCode::CREATED, seq, commit),
        Added::Again { seq, first } => (StatusCode::OK, seq, first),
        Added::Conflict { first } => {
            return Err(ApiError::CommitConflict {
                kind: first.kind.as_str(),
                tick: first.tick,
            });
        }
        Added::Full { max } => return Err(ApiError::TooManyCommits { max }),
        Added::Used => return Err(ApiError::TicketUsed { id }),
    };
    let rules = Rules {
        rate: state.catalog.tick_rate(),
        slack_ms: state.ticket_slack_ms,
    };
    let committed = Committed {
        ticket: id,
        seq,
        kind: first.kind,
        tick: first.tick,
        received_at: rfc3339(first.received_ms),
        repeated: status == StatusCode::OK,
        on_time: rules.timing(ticket.go_ms, &first) == Timing::OnTime,
    };
    Ok(super::http::with_status(status, committed))
}

/// A ticket id from the path, [checked](check_ticket_id) (400 `bad_parameter`): a handler
/// takes it before the token and the body, so a malformed id is refused before either is
/// looked at.
#[derive(Debug)]
pub struct TicketId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for TicketId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<TicketId, ApiError> {
        let ApiPath(id) = ApiPath::<String>::from_request_parts(parts, state).await?;
        check_ticket_id(&id)?;
        Ok(TicketId(id))
    }
}

/// A ticket id is 32 lowercase hex digits; anything else is refused before any lookup.
pub fn check_ticket_id(id: &str) -> Result<(), ApiError> {
    let ok = id.len() == TICKET_ID_HEX_DIGITS
        && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if ok {
        Ok(())
    } else {
        Err(ApiError::BadParameter(format!(
            "a ticket id is {TICKET_ID_HEX_DIGITS} lowercase hex digits"
        )))
    }
}

/// Ticket `id`, if it is `player`'s and not used: 404, 403 or 409 otherwise.
pub async fn owned_ticket(state: &AppState, id: &str, player: &Player) -> Result<Ticket, ApiError> {
    let ticket = state
        .store
        .tickets()
        .ticket(id)
        .await?
        .ok_or_else(|| ApiError::UnknownTicket { id: id.to_string() })?;
    if ticket.player_id != player.id() {
        return Err(ApiError::NotYourTicket { id: id.to_string() });
    }
    if ticket.run_id.is_some() {
        return Err(ApiError::TicketUsed { id: id.to_string() });
    }
    Ok(ticket)
}

/// Whether `commit` may be added to `ticket` now: in its commit window, a start at tick 0, a
/// tick within the longest run. Order is not checked: commitments may arrive in any order.
fn check_commit(state: &AppState, ticket: &Ticket, commit: &Commit) -> Result<(), ApiError> {
    if commit.received_ms - ticket.go_ms > commit_window_ms(state) {
        return Err(ApiError::TicketExpired {
            id: ticket.id.clone(),
            why: "its commit window (the longest run the server verifies, from GO) is over".into(),
        });
    }
    let ticks_max = state.catalog.verifier().limits().ticks_max;
    if commit.tick >= ticks_max {
        return Err(ApiError::BadCommit(format!(
            "tick {} is past the longest run the server verifies ({ticks_max} ticks)",
            commit.tick
        )));
    }
    if commit.kind == CommitKind::Start && commit.tick != 0 {
        return Err(ApiError::BadCommit(format!(
            "the start is at tick 0, not {}",
            commit.tick
        )));
    }
    Ok(())
}

/// The start, one per checkpoint of the level, the finish.
async fn commits_max(state: &AppState, level: &str) -> Result<usize, ApiError> {
    let info = state
        .catalog
        .resolve(&state.store, level, Hidden::Included)
        .await?;
    let checkpoints = info
        .and_then(|info| state.catalog.world(&info))
        .map_or(0, |w| w.desc().checkpoints.len());
    Ok(checkpoints + 2)
}

/// How long after GO a ticket takes commitments (ms): the longest run the verifier accepts
/// (`--player-ticks-max` at the tick rate), then the slack.
pub fn commit_window_ms(state: &AppState) -> i64 {
    let ticks =
        i64::try_from(state.catalog.verifier().limits().player_ticks_max).unwrap_or(i64::MAX);
    let rate = i64::from(state.catalog.tick_rate().max(1));
    (ticks.saturating_mul(1000) / rate).saturating_add(state.ticket_slack_ms)
}

/// 16 hex digits → the hash.
fn parse_hash(text: &str) -> Result<u64, ApiError> {
    if text.len() == 16 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        u64::from_str_radix(text, 16).map_err(|e| ApiError::BadCommit(e.to_string()))
    } else {
        Err(ApiError::BadCommit(format!(
            "the hash is 16 hex digits, not {text:?}"
        )))
    }
}

/// 128 random bits as 32 lowercase hex digits.
fn new_ticket_id() -> Result<String, ApiError> {
    let mut bytes = [0u8; TICKET_ID_HEX_DIGITS / 2];
    getrandom::fill(&mut bytes).map_err(|e| ApiError::Internal(format!("getrandom: {e}")))?;
    Ok(auth::hex(&bytes))
}
