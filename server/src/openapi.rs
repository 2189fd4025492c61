//! The OpenAPI 3 document, generated from the handlers' `#[utoipa::path]` attributes and the
//! response types' schemas, served at `/api/openapi.json`. A test checks that it lists
//! exactly the routes of `api::router` and that it parses as OpenAPI.

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::api::{
    admin, export, inspect, leaderboard, levels, limits, ops, players, rooms, runs, seasons,
    tickets, trajectory,
};
use crate::error::ErrorBody;
use crate::live::wire;
use crate::{catalog, web};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "pogo-server",
        description = "The ghost-racing leaderboard service of pogo. Players register a name \
            and get a token, upload replays, and the server re-simulates each one and ranks \
            it only on what the re-simulation shows (the verified finish tick, lower is \
            better, ties by earlier upload; one entry per player per level, their best; the whole board downloads as CSV or JSON). Verified runs \
            are served back as ghosts. A leaderboard run is a single-player replay whose \
            header's player name is the uploader's. Errors are `{\"error\": CODE, \
            \"message\": TEXT}` with a fitting status; 429 and 503 carry Retry-After."
    ),
    paths(
        web::index, web::file, web::wasm, web::folder_file, ops::healthz, ops::metrics, ops::openapi,
        levels::list, levels::geometry, limits::limits, leaderboard::leaderboard, export::export, seasons::list_seasons,
        players::register,
        tickets::mint, tickets::commit,
        rooms::create_room, rooms::list_rooms, rooms::room, rooms::room_socket,
        runs::upload, runs::status, runs::replay, trajectory::ghost, inspect::inspect,
        admin::run, admin::hide_run, admin::hide_player,
    ),
    components(schemas(
        ErrorBody, ops::Health, players::Registration, players::Registered,
        tickets::Issued, tickets::CommitBody, tickets::Committed,
        rooms::RoomCreated, rooms::RoomList, wire::RoomView, wire::RacerView, wire::SplitView, wire::Phase,
        wire::RacerState, wire::Role, wire::LiveClientMessage, wire::LiveServerMessage,
        runs::Uploaded, runs::RunStatus, crate::store::RunState, crate::store::Category,
        runs::SplitJson,
        leaderboard::Leaderboard, leaderboard::EntryJson,
        export::BoardExport, export::ExportFormat,
        seasons::Seasons, seasons::SeasonJson,
        trajectory::GhostJson, trajectory::Point, crate::times::TickTime,
        inspect::Inspection,
        limits::Limits, catalog::LevelSummary, catalog::LevelGeometry, catalog::BoxJson, catalog::SolidJson,
        catalog::RampJson, catalog::PlatformJson, catalog::ZoneJson, catalog::CheckpointJson,
        admin::Hidden, admin::HideRun, admin::RunHidden, admin::AdminRun, admin::PlayerHidden,
    )),
    modifiers(&BearerAuth),
    tags(
        (name = "players", description = "Registration"),
        (name = "runs", description = "Uploads, verdicts, replays and ghosts"),
        (name = "levels", description = "What the server runs, and level geometry"),
        (name = "leaderboards", description = "Ranked verified finishes"),
        (name = "live", description = "Live races: rooms, their WebSocket (messages: LiveClientMessage, LiveServerMessage; the binary stream: docs/live.md)"),
        (name = "admin", description = "Moderation (needs ADMIN_TOKEN)"),
        (name = "operations", description = "Health, metrics, this document"),
        (name = "web", description = "The web page and its files"),
    )
)]
pub struct ApiDoc;

/// The `bearer` security scheme the upload and admin routes name.
struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "A player token from POST /api/players (uploads), or ADMIN_TOKEN (admin)",
                    ))
                    .build(),
            ),
        );
    }
}
