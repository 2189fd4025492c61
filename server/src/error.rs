//! Every way a request can fail, as data; [`ApiError`]'s `IntoResponse` is the only place a
//! failure becomes an HTTP status. The body is always `{"error": CODE, "message": TEXT}`
//! (CODE a stable snake_case name, TEXT for a human), plus `kind` and `tick` where the
//! failure is the replay's (the reader's or verifier's own names for what is wrong).

use axum::Json;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use pogo_replay::{NameError, ReplayError, VerifyError};
use serde::Serialize;
use utoipa::ToSchema;

/// Why a request failed.
#[derive(Debug)]
pub enum ApiError {
    /// A JSON body that does not parse or has the wrong shape.
    BadJson(String),
    /// A query string or path parameter that does not parse (`limit=abc`, `/runs/x`).
    BadParameter(String),
    /// The body is not of a type this route takes.
    ContentType {
        expected: &'static str,
    },
    /// A body over the route's limit (bytes).
    BodyTooLarge {
        limit: u64,
    },
    /// The client stopped sending the body, or sent it too slowly.
    BodyIncomplete(String),
    /// The name breaks the one name rule (`pogo_replay::check_player_name`).
    BadName(NameError),
    /// The name is registered already (names are unique case-insensitively).
    NameTaken {
        name: String,
    },
    /// No `Authorization: Bearer …` header.
    MissingToken,
    /// A token that is not one this server issued.
    BadToken,
    /// A valid player token on an admin route, or a wrong admin token.
    NotAdmin,
    /// The admin routes are off (no `ADMIN_TOKEN`).
    AdminDisabled,
    /// The token's player has been hidden by an admin.
    PlayerHidden {
        name: String,
    },
    /// The bytes are not a well-formed replay.
    BadReplay(ReplayError),
    /// A leaderboard run has exactly one player.
    NotSinglePlayer {
        players: u8,
    },
    /// The replay's header carries no player name.
    NoPlayerName,
    /// The replay is under another player's name than the token's.
    NameMismatch {
        token: String,
        replay: String,
    },
    /// A level this server does not run.
    UnknownLevel {
        name: String,
    },
    /// Recorded under other rules, tuning, tick rate or another version of the level.
    RulesMismatch(VerifyError),
    /// A ghost of a run on a past season's board: it re-simulates only under its own rules.
    PastSeason {
        id: i64,
        season: String,
    },
    /// `?season=ID`, well-formed, of no board of the level (`crate::season`).
    UnknownSeason {
        level: String,
        season: String,
    },
    UnknownRun {
        id: i64,
    },
    UnknownPlayer {
        name: String,
    },
    /// A replay or ghost of a run that has not been verified (yet, or ever).
    NotVerified {
        id: i64,
        status: crate::store::RunState,
    },
    /// Over a rate limit; wait this long.
    RateLimited {
        retry_after_s: u64,
    },
    /// No live room of that id (or it is over and gone).
    UnknownRoom {
        id: String,
    },
    /// A request to a WebSocket route that is not a WebSocket handshake.
    NotWebSocket(String),
    /// No run ticket of that id.
    UnknownTicket {
        id: String,
    },
    /// Another player's run ticket.
    NotYourTicket {
        id: String,
    },
    /// A run ticket an upload has named already (single use).
    TicketUsed {
        id: String,
    },
    /// A run ticket past one of its windows (`why` says which).
    TicketExpired {
        id: String,
        why: String,
    },
    /// The upload is of another board (level, level version, tuning, rules) than its ticket.
    TicketMismatch {
        id: String,
    },
    /// A commitment of a kind and tick committed before with another state hash.
    CommitConflict {
        kind: &'static str,
        tick: u32,
    },
    /// A commitment past the ticket's `commits_max`.
    TooManyCommits {
        max: usize,
    },
    /// A commitment whose contents do not parse (the hash, a tick past any run).
    BadCommit(String),
    /// The player holds too many tickets issued and not started.
    TooManyTickets {
        open: i64,
        retry_after_s: u64,
    },
    /// A track's level file, name or description refused (`field` names the JSON path at
    /// fault: `solids[3]`, `finishes`, `name`; empty for the file as a whole).
    BadTrack {
        field: String,
        why: String,
    },
    /// The run a track is published with does not prove it: `kind` says how
    /// (`not_finished`, `level_name`, `level_mismatch`, `desync`, …), `why` for a person.
    BadAuthorRun {
        kind: String,
        why: String,
    },
    /// No track of that id (or it is hidden).
    UnknownTrack {
        id: String,
    },
    /// Another player's track.
    NotAuthor {
        id: String,
    },
    /// The geometry was published and an admin hid the track.
    TrackHidden {
        id: String,
    },
    /// The player published their tracks of the day already.
    TooManyTracks {
        max: i64,
        retry_after_s: u64,
    },
    /// The verification queue or the upload slots are full; try again later.
    Busy {
        what: &'static str,
        retry_after_s: u64,
    },
    /// The database did not answer (connection refused, timed out): the server's fault but
    /// not a bug; clients may retry.
    Database(sqlx::Error),
    /// The database's disk is full: the write was not kept; clients may retry once an
    /// operator frees space (503 rather than 507: every HTTP client knows 503 + Retry-After
    /// as "try again", and to a client it is the same condition as a database away).
    StorageFull(sqlx::Error),
    /// A stored replay whose bytes no longer hash to its key (a flipped bit on disk): never
    /// served; `pogo-server check` lists every such row.
    CorruptReplay {
        id: i64,
    },
    /// The page's WebAssembly module is not built (no file where the server looks).
    WasmMissing,
    /// The module is over `web::WASM_BYTES_MAX` (built with another profile than
    /// `wasm-release`) or is not a WebAssembly module: not served. `what` says which.
    WasmUnusable {
        what: String,
    },
    /// A route that does not exist.
    NoRoute,
    /// A route that exists, with another method.
    MethodNotAllowed,
    /// A bug: nothing a client sent explains it.
    Internal(String),
}

/// The error body of every failed request.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// Stable snake_case code, e.g. `bad_replay`, `name_taken`, `rate_limited`.
    pub error: &'static str,
    /// What went wrong, for a human.
    pub message: String,
    /// For replay errors: the reader's or verifier's short name for the problem
    /// (`VerifyError::kind`, e.g. `checksum`, `truncated`, `tuning_mismatch`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Seconds to wait before retrying (also in the `Retry-After` header).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_s: Option<u64>,
    /// For a refused track (`bad_track`): the JSON path of the value at fault (`solids[3]`,
    /// `finishes`, `name`; empty for the level file as a whole).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

/// How to build the page's WebAssembly module, as the `wasm_missing` and `wasm_unusable`
/// messages say it (the page shows them).
const BUILD_WASM_HINT: &str = "`bash scripts/build-wasm.sh` (adds the wasm32 target and builds \
    pogo-ffi with --profile wasm-release)";

impl ApiError {
    pub fn status(&self) -> StatusCode {
        use ApiError::*;
        match self {
            BadJson(_)
            | BadParameter(_)
            | BodyIncomplete(_)
            | BadName(_)
            | BadReplay(_)
            | BadCommit(_)
            | BadTrack { .. }
            | BadAuthorRun { .. }
            | NotSinglePlayer { .. }
            | NoPlayerName => StatusCode::BAD_REQUEST,
            MissingToken | BadToken => StatusCode::UNAUTHORIZED,
            NotAdmin
            | AdminDisabled
            | PlayerHidden { .. }
            | NameMismatch { .. }
            | NotAuthor { .. }
            | NotYourTicket { .. } => StatusCode::FORBIDDEN,
            UnknownLevel { .. }
            | UnknownSeason { .. }
            | UnknownRun { .. }
            | UnknownPlayer { .. }
            | UnknownTicket { .. }
            | UnknownRoom { .. }
            | UnknownTrack { .. }
            | WasmMissing
            | NoRoute => StatusCode::NOT_FOUND,
            MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            NotWebSocket(_) => StatusCode::UPGRADE_REQUIRED,
            NameTaken { .. }
            | RulesMismatch(_)
            | NotVerified { .. }
            | PastSeason { .. }
            | TicketUsed { .. }
            | TicketMismatch { .. }
            | CommitConflict { .. }
            | TrackHidden { .. }
            | TooManyCommits { .. } => StatusCode::CONFLICT,
            TicketExpired { .. } => StatusCode::GONE,
            BodyTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ContentType { .. } => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            RateLimited { .. } | TooManyTickets { .. } | TooManyTracks { .. } => {
                StatusCode::TOO_MANY_REQUESTS
            }
            Busy { .. } | Database(_) | StorageFull(_) | WasmUnusable { .. } => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            CorruptReplay { .. } | Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The stable code in the body's `error` field.
    pub fn code(&self) -> &'static str {
        use ApiError::*;
        match self {
            BadJson(_) => "bad_json",
            BadParameter(_) => "bad_parameter",
            ContentType { .. } => "unsupported_media_type",
            BodyTooLarge { .. } => "body_too_large",
            BodyIncomplete(_) => "body_incomplete",
            BadName(_) => "bad_name",
            NameTaken { .. } => "name_taken",
            MissingToken => "missing_token",
            BadToken => "bad_token",
            NotAdmin => "not_admin",
            AdminDisabled => "admin_disabled",
            PlayerHidden { .. } => "player_hidden",
            BadReplay(_) => "bad_replay",
            NotSinglePlayer { .. } => "not_single_player",
            NoPlayerName => "no_player_name",
            NameMismatch { .. } => "name_mismatch",
            UnknownLevel { .. } => "unknown_level",
            UnknownSeason { .. } => "unknown_season",
            PastSeason { .. } => "past_season",
            RulesMismatch(_) => "rules_mismatch",
            UnknownRun { .. } => "unknown_run",
            UnknownPlayer { .. } => "unknown_player",
            NotVerified { .. } => "not_verified",
            RateLimited { .. } => "rate_limited",
            UnknownTicket { .. } => "unknown_ticket",
            UnknownRoom { .. } => "unknown_room",
            NotWebSocket(_) => "not_websocket",
            NotYourTicket { .. } => "not_your_ticket",
            TicketUsed { .. } => "ticket_used",
            TicketExpired { .. } => "ticket_expired",
            TicketMismatch { .. } => "ticket_mismatch",
            CommitConflict { .. } => "commit_conflict",
            TooManyCommits { .. } => "too_many_commits",
            BadCommit(_) => "bad_commit",
            TooManyTickets { .. } => "too_many_tickets",
            BadTrack { .. } => "bad_track",
            BadAuthorRun { .. } => "bad_author_run",
            UnknownTrack { .. } => "unknown_track",
            NotAuthor { .. } => "not_author",
            TrackHidden { .. } => "track_hidden",
            TooManyTracks { .. } => "too_many_tracks",
            Busy { .. } => "busy",
            Database(_) => "database_unavailable",
            StorageFull(_) => "storage_full",
            CorruptReplay { .. } => "corrupt_replay",
            WasmMissing => "wasm_missing",
            WasmUnusable { .. } => "wasm_unusable",
            NoRoute => "no_route",
            MethodNotAllowed => "method_not_allowed",
            Internal(_) => "internal",
        }
    }

    fn message(&self) -> String {
        use ApiError::*;
        match self {
            BadJson(e) => format!("the JSON body does not fit this route: {e}"),
            BadParameter(e) => e.clone(),
            ContentType { expected } => format!("this route takes a body of type {expected}"),
            BodyTooLarge { limit } => format!("the body is over this route's {limit}-byte limit"),
            BodyIncomplete(e) => format!("the body could not be read: {e}"),
            BadName(e) => e.to_string(),
            NameTaken { name } => {
                format!("the name {name:?} is taken (names are unique ignoring case)")
            }
            MissingToken => "this route needs `Authorization: Bearer TOKEN`".into(),
            BadToken => "the token is not valid".into(),
            NotAdmin => "this route needs the admin token".into(),
            AdminDisabled => "the admin routes are off (the server has no ADMIN_TOKEN)".into(),
            PlayerHidden { name } => format!("player {name:?} has been hidden by an admin"),
            BadReplay(e) => format!("not a well-formed replay: {e}"),
            NotSinglePlayer { players } => {
                format!("a leaderboard run has exactly one player; this replay has {players}")
            }
            NoPlayerName => {
                "the replay's header has no player name (it must be the token's player)".into()
            }
            NameMismatch { token, replay } => format!(
                "the replay is by {replay:?}, the token is {token:?}'s: upload your own runs"
            ),
            UnknownLevel { name } => format!("this server has no level {name:?}"),
            PastSeason { id, season } => format!(
                "run {id} is on a past season's board ({season}): it re-simulates only under \
                 its own rules and tuning, not this server's"
            ),
            UnknownSeason { level, season } => format!(
                "level {level:?} has no season {season} (GET /api/levels/{{level}}/seasons lists them)"
            ),
            RulesMismatch(e) => format!("the replay does not match this server: {e}"),
            UnknownRun { id } => format!("no run {id}"),
            UnknownPlayer { name } => format!("no player {name:?}"),
            NotVerified { id, status } => format!("run {id} is {status}, not verified"),
            RateLimited { retry_after_s } => {
                format!("too many requests: try again in {retry_after_s} s")
            }
            Busy {
                what,
                retry_after_s,
            } => format!("{what}: try again in {retry_after_s} s"),
            UnknownTicket { id } => format!("no run ticket {id}"),
            UnknownRoom { id } => format!("no live room {id} (it may be over and closed)"),
            NotWebSocket(why) => format!("this route is a WebSocket: {why}"),
            NotYourTicket { id } => format!("run ticket {id} is another player's"),
            TicketUsed { id } => {
                format!("run ticket {id} has been used by an upload already (single use)")
            }
            TicketExpired { id, why } => format!("run ticket {id} has expired: {why}"),
            TicketMismatch { id } => format!(
                "run ticket {id} was issued for another level, level version, tuning or rules \
                 than the replay's"
            ),
            CommitConflict { kind, tick } => format!(
                "a {kind} at tick {tick} was committed already, with another state hash (the \
                 first one stands)"
            ),
            TooManyCommits { max } => format!(
                "this ticket has its {max} commitments already (the start, one per checkpoint, \
                 the finish)"
            ),
            BadCommit(why) => format!("not a well-formed commitment: {why}"),
            TooManyTickets {
                open,
                retry_after_s,
            } => format!(
                "{open} run tickets issued and not started: start one, or try again in \
                 {retry_after_s} s"
            ),
            BadTrack { field, why } if field.is_empty() => format!("the track is refused: {why}"),
            BadTrack { field, why } => format!("the track is refused: {field}: {why}"),
            BadAuthorRun { why, .. } => {
                format!("the run does not prove the track (its author must finish it): {why}")
            }
            UnknownTrack { id } => format!("no track {id:?}"),
            NotAuthor { id } => format!("track {id} is another player's: only its author edits it"),
            TrackHidden { id } => {
                format!("this geometry was published as track {id}, which an admin has hidden")
            }
            TooManyTracks { max, retry_after_s } => format!(
                "a player publishes at most {max} tracks a day: try again in {retry_after_s} s"
            ),
            Database(_) => "the database is unavailable; try again later".into(),
            StorageFull(_) => {
                "the server's storage is full: nothing was stored; try again later".into()
            }
            CorruptReplay { id } => format!(
                "the stored replay of run {id} is corrupt (its bytes do not match their hash): \
                 it is not served; the operator has been told"
            ),
            WasmMissing => format!(
                "the page's WebAssembly module is not built: run {BUILD_WASM_HINT}, then reload"
            ),
            WasmUnusable { what } => {
                format!(
                    "the page's WebAssembly module cannot be served: {what}; run {BUILD_WASM_HINT}, then reload"
                )
            }
            NoRoute => "no such route (GET /api/openapi.json lists them)".into(),
            MethodNotAllowed => "this route does not take that method".into(),
            Internal(_) => "internal error".into(),
        }
    }

    fn kind(&self) -> Option<String> {
        match self {
            ApiError::BadReplay(e) => Some(VerifyError::Replay(e.clone()).kind().into()),
            ApiError::RulesMismatch(e) => Some(e.kind().into()),
            ApiError::BadAuthorRun { kind, .. } => Some(kind.clone()),
            _ => None,
        }
    }

    fn retry_after_s(&self) -> Option<u64> {
        match self {
            ApiError::RateLimited { retry_after_s }
            | ApiError::Busy { retry_after_s, .. }
            | ApiError::TooManyTickets { retry_after_s, .. }
            | ApiError::TooManyTracks { retry_after_s, .. } => Some(*retry_after_s),
            ApiError::Database(_) | ApiError::StorageFull(_) => {
                Some(crate::limits::RETRY_AFTER_BUSY_S)
            }
            _ => None,
        }
    }

    /// Whether the response closes the connection (`Connection: close`): a database fault's
    /// 503. The request may have been refused before its body was read (the token is looked
    /// up first), and hyper then cannot reuse the connection; saying so lets a client open a
    /// new one (perhaps to another server) instead of meeting a reset on its next request.
    fn closes_connection(&self) -> bool {
        matches!(self, ApiError::Database(_) | ApiError::StorageFull(_))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        match &self {
            ApiError::Internal(e) => tracing::error!(error = %e, "internal error"),
            ApiError::Database(e) => tracing::warn!(error = %e, "database error"),
            ApiError::StorageFull(e) => tracing::error!(error = %e, "database disk full"),
            ApiError::CorruptReplay { id } => {
                tracing::error!(run = id, "stored replay of run {id} is corrupt: not served")
            }
            _ => tracing::debug!(code = self.code(), "request refused"),
        }
        let body = ErrorBody {
            error: self.code(),
            message: self.message(),
            kind: self.kind(),
            retry_after_s: self.retry_after_s(),
            field: match &self {
                ApiError::BadTrack { field, .. } => Some(field.clone()),
                _ => None,
            },
        };
        let mut response = (status, Json(body)).into_response();
        if let Some(seconds) = self.retry_after_s() {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if self.closes_connection() {
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> ApiError {
        match rejection {
            JsonRejection::MissingJsonContentType(_) => ApiError::ContentType {
                expected: "application/json",
            },
            JsonRejection::BytesRejection(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                ApiError::BodyTooLarge {
                    limit: crate::limits::JSON_BODY_BYTES_MAX as u64,
                }
            }
            JsonRejection::BytesRejection(e) => ApiError::BodyIncomplete(e.body_text()),
            other => ApiError::BadJson(other.body_text()),
        }
    }
}

impl From<PathRejection> for ApiError {
    fn from(rejection: PathRejection) -> ApiError {
        ApiError::BadParameter(rejection.body_text())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> ApiError {
        ApiError::BadParameter(rejection.body_text())
    }
}

impl From<crate::store::StoreError> for ApiError {
    fn from(e: crate::store::StoreError) -> ApiError {
        match e {
            crate::store::StoreError::Database(e) => ApiError::Database(e),
            crate::store::StoreError::Full(e) => ApiError::StorageFull(e),
            crate::store::StoreError::Corrupt(what) => ApiError::Internal(what),
            crate::store::StoreError::CorruptReplay { run_id } => {
                ApiError::CorruptReplay { id: run_id }
            }
        }
    }
}
