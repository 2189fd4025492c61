//! Live rooms (`crate::live`): make one (`POST /api/levels/{level}/rooms`), list the races in
//! progress (`GET /api/rooms`), read one (`GET /api/rooms/{id}`), and join one over its
//! WebSocket (`GET /api/rooms/{id}/socket`; the messages are `LiveClientMessage` and
//! `LiveServerMessage` here, the binary stream `docs/live.md`).

use axum::extract::State;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::http::{ApiPath, ApiQuery};
use crate::error::{ApiError, ErrorBody};
use crate::live::wire::RoomView;
use crate::live::{CreateError, limits, proxy, socket};
use crate::state::AppState;
use crate::times::now_ms;

/// Hex digits of a room id (64 random bits).
pub const ROOM_ID_HEX_DIGITS: usize = 16;

/// A room made.
#[derive(Debug, Serialize, ToSchema)]
pub struct RoomCreated {
    /// 16 lowercase hex digits.
    #[schema(example = "9f86d081884c7d65")]
    pub id: String,
    /// The page's link to share: `#/room/{id}`.
    pub page: String,
    /// Join here (WebSocket).
    pub socket_url: String,
    pub room: RoomView,
}

/// The races in progress.
#[derive(Debug, Serialize, ToSchema)]
pub struct RoomList {
    /// Newest activity first, at most 100.
    pub rooms: Vec<RoomView>,
}

/// `?level=`: one level's races only.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// A level's name.
    pub level: Option<String>,
}

/// Make a live room on a level: share its page (`#/room/{id}`), and racers and spectators
/// join over its WebSocket.
#[utoipa::path(post, path = "/api/levels/{level}/rooms", tag = "live",
    params(("level" = String, Path, description = "Level name")),
    responses(
        (status = 201, description = "Made", body = RoomCreated),
        (status = 404, description = "A level the server does not run (`unknown_level`)", body = ErrorBody),
        (status = 429, description = "Rate limited (per address); see Retry-After", body = ErrorBody),
        (status = 503, description = "This process holds as many rooms as it may or is stopping (`busy`), or the database is unavailable; see Retry-After", body = ErrorBody),
    ))]
pub async fn create_room(
    State(state): State<AppState>,
    ApiPath(level): ApiPath<String>,
) -> Result<Response, ApiError> {
    let room = state.live.create_room(&level).await.map_err(|e| match e {
        CreateError::UnknownLevel => ApiError::UnknownLevel {
            name: level.clone(),
        },
        CreateError::Full => ApiError::Busy {
            what: "every room this server holds is taken",
            retry_after_s: 10,
        },
        CreateError::Store(e) => e.into(),
    })?;
    tracing::info!(room = %room.id, level = %level, "room made");
    let created = RoomCreated {
        page: format!("#/room/{}", room.id),
        socket_url: format!("/api/rooms/{}/socket", room.id),
        id: room.id.clone(),
        room,
    };
    Ok(super::http::with_status(StatusCode::CREATED, created))
}

/// The races in progress (in a lobby, counting down or racing), of every level or of one:
/// what `#/live` lists and a board's "live now".
#[utoipa::path(get, path = "/api/rooms", tag = "live",
    params(ListQuery),
    responses(
        (status = 200, body = RoomList),
        (status = 400, description = "A bad query", body = ErrorBody),
        (status = 503, description = "Database unavailable; see Retry-After", body = ErrorBody),
    ))]
pub async fn list_rooms(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<ListQuery>,
) -> Result<axum::Json<RoomList>, ApiError> {
    let since = now_ms() - i64::try_from(limits::ROOM_LISTED_FOR.as_millis()).unwrap_or(0);
    let rows = state
        .store
        .room_rows()
        .live_rooms(query.level.as_deref(), since, limits::ROOMS_LISTED_MAX)
        .await?;
    let rooms = rows
        .iter()
        .filter_map(|row| serde_json::from_str(&row.view).ok())
        .collect();
    Ok(axum::Json(RoomList { rooms }))
}

/// A room, as its members see it: its racers, their splits, times and filed runs (the
/// race's result once it is over).
#[utoipa::path(get, path = "/api/rooms/{id}", tag = "live",
    params(("id" = String, Path, description = "Room id (16 hex digits)")),
    responses(
        (status = 200, body = RoomView),
        (status = 400, description = "Not a room id", body = ErrorBody),
        (status = 404, description = "No such room (`unknown_room`)", body = ErrorBody),
        (status = 503, description = "Database unavailable; see Retry-After", body = ErrorBody),
    ))]
pub async fn room(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
) -> Result<axum::Json<RoomView>, ApiError> {
    check_room_id(&id)?;
    if let Some(handle) = state.live.rooms.get(&id) {
        return Ok(axum::Json(handle.view.borrow().clone()));
    }
    let row = state
        .store
        .room_rows()
        .room(&id)
        .await?
        .ok_or(ApiError::UnknownRoom { id: id.clone() })?;
    let view = serde_json::from_str(&row.view)
        .map_err(|e| ApiError::Internal(format!("room {id}'s stored view: {e}")))?;
    Ok(axum::Json(view))
}

/// Join a room: a WebSocket. The first message is a `hello` (`LiveClientMessage`); the
/// server answers `welcome` (`LiveServerMessage`) and from then on the room's messages; a
/// racer streams binary messages from GO (`docs/live.md`). A bad message closes the socket
/// with a code (4000–4999) and the reason, and changes nothing. A room held by another
/// server process is reached through this one.
#[utoipa::path(get, path = "/api/rooms/{id}/socket", tag = "live",
    params(("id" = String, Path, description = "Room id (16 hex digits)")),
    responses(
        (status = 101, description = "Switching protocols: the room's WebSocket"),
        (status = 400, description = "Not a room id", body = ErrorBody),
        (status = 404, description = "No such room (`unknown_room`)", body = ErrorBody),
        (status = 426, description = "Not a WebSocket handshake (`not_websocket`)", body = ErrorBody),
        (status = 503, description = "Database unavailable; see Retry-After", body = ErrorBody),
    ))]
pub async fn room_socket(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    check_room_id(&id)?;
    let upgrade = upgrade
        .map_err(|e| ApiError::NotWebSocket(e.body_text()))?
        .max_message_size(socket::FRAME_BYTES_MAX)
        .max_frame_size(socket::FRAME_BYTES_MAX)
        .read_buffer_size(socket::READ_BUFFER_BYTES);
    if let Some(room) = state.live.rooms.get(&id) {
        let live = state.live.clone();
        return Ok(upgrade
            .on_upgrade(move |ws| socket::serve(ws, live, room))
            .into_response());
    }
    let Some(row) = state.store.room_rows().room(&id).await? else {
        return Err(ApiError::UnknownRoom { id });
    };
    // A room whose home is gone (this process before a restart, or another whose row went
    // stale) is taken up here; one whose home lives is reached through it.
    let stale =
        row.updated_ms < now_ms() - i64::try_from(limits::ROOM_STALE.as_millis()).unwrap_or(0);
    if row.home == state.live.home() || stale {
        if let Some(room) = state.live.take_up(&row).await? {
            let live = state.live.clone();
            return Ok(upgrade
                .on_upgrade(move |ws| socket::serve(ws, live, room))
                .into_response());
        }
    }
    match state.store.room_rows().room(&id).await? {
        Some(row) if row.home != state.live.home() && row.phase != "over" => Ok(upgrade
            .on_upgrade(move |ws| proxy::serve(ws, row.home, id))
            .into_response()),
        _ => Err(ApiError::UnknownRoom { id }),
    }
}

/// A room id is 16 lowercase hex digits; anything else is refused before any lookup.
fn check_room_id(id: &str) -> Result<(), ApiError> {
    let ok = id.len() == ROOM_ID_HEX_DIGITS
        && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if ok {
        Ok(())
    } else {
        Err(ApiError::BadParameter(format!(
            "a room id is {ROOM_ID_HEX_DIGITS} lowercase hex digits"
        )))
    }
}
