//! The OpenAPI 3 document, served at `/api/openapi.json` (`api::document`): the operations of
//! the route list (`api::routes`, from the handlers' `#[utoipa::path]` attributes) on [`ApiDoc`] (the
//! service's description, tags, the bearer scheme, and the schemas, those no route names
//! among them). `tests/openapi.rs` checks that it parses as OpenAPI, that its references
//! resolve, and that every route it lists is served.

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::api::{
    admin, export, inspect, leaderboard, limits, ops, players, rooms, runs, seasons, tickets,
    tracks, trajectory,
};
use crate::catalog;
use crate::error::ErrorBody;
use crate::live::wire;

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
        tracks::Publish, tracks::TrackEdit, tracks::TrackView, tracks::TrackAnswer,
        tracks::TrackList, tracks::Medals, tracks::TicksTime, tracks::Sort, tracks::TrackCheck,
    )),
    modifiers(&BearerAuth),
    tags(
        (name = "players", description = "Registration"),
        (name = "runs", description = "Uploads, verdicts, replays and ghosts"),
        (name = "levels", description = "What the server runs, and level geometry"),
        (name = "leaderboards", description = "Ranked verified finishes"),
        (name = "tracks", description = "Player-made tracks: publish with a finishing run, lists, the level file (each track is a level: its boards, rooms and ghosts are the level routes')"),
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
