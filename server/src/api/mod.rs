//! The HTTP API: [`router`] lists every route; one module per resource.
//!
//! Every failure goes through `crate::error::ApiError`; the success types are in
//! the modules, with their OpenAPI schemas (`crate::openapi`).

pub mod admin;
pub mod caller;
pub mod export;
pub mod inspect;
pub mod leaderboard;
pub mod levels;
pub mod limits;
pub mod ops;
pub mod players;
pub mod rooms;
pub mod runs;
pub mod seasons;
pub mod tickets;
pub mod trajectory;

use std::net::SocketAddr;

use axum::Router;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Request, State};
use axum::handler::Handler;
use axum::http::{Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::trace::TraceLayer;

use crate::error::ApiError;
use crate::limits::JSON_BODY_BYTES_MAX;
use crate::state::AppState;

/// Every route: method, path (OpenAPI's and axum's `{param}` syntax), handler. The OpenAPI
/// document must list exactly these (a test compares them).
fn table() -> Table {
    Table::default()
        .add(Method::GET, "/", crate::web::index)
        .add(Method::GET, "/web/{file}", crate::web::file)
        .add(Method::GET, "/web/pogo_ffi.wasm", crate::web::wasm)
        .add(Method::GET, "/web/{folder}/{file}", crate::web::folder_file)
        .add(Method::GET, "/healthz", ops::healthz)
        .add(Method::GET, "/metrics", ops::metrics)
        .add(Method::GET, "/api/openapi.json", ops::openapi)
        .add(Method::GET, "/api/levels", levels::list)
        .add(Method::GET, "/api/limits", limits::limits)
        .add(Method::GET, "/api/levels/{level}", levels::geometry)
        .add(
            Method::GET,
            "/api/levels/{level}/leaderboard",
            leaderboard::leaderboard,
        )
        .add(Method::GET, "/api/levels/{level}/export", export::export)
        .add(
            Method::GET,
            "/api/levels/{level}/seasons",
            seasons::list_seasons,
        )
        .add(Method::POST, "/api/levels/{level}/tickets", tickets::mint)
        .add(
            Method::POST,
            "/api/levels/{level}/rooms",
            rooms::create_room,
        )
        .add(Method::GET, "/api/rooms", rooms::list_rooms)
        .add(Method::GET, "/api/rooms/{id}", rooms::room)
        .add(Method::GET, "/api/rooms/{id}/socket", rooms::room_socket)
        .add(Method::POST, "/api/tickets/{id}/commits", tickets::commit)
        .add(Method::POST, "/api/players", players::register)
        .add(Method::POST, "/api/runs", runs::upload)
        .add(Method::GET, "/api/runs/{id}", runs::status)
        .add(Method::GET, "/api/runs/{id}/replay", runs::replay)
        .add(Method::GET, "/api/runs/{id}/ghost", trajectory::ghost)
        .add(Method::GET, "/api/runs/{id}/inspect", inspect::inspect)
        .add(Method::GET, "/api/admin/runs/{id}", admin::run)
        .add(Method::PUT, "/api/admin/runs/{id}/hidden", admin::hide_run)
        .add(
            Method::PUT,
            "/api/admin/players/{name}/hidden",
            admin::hide_player,
        )
}

/// The routes as (method, path) pairs, for comparing with the OpenAPI document.
pub fn route_list() -> Vec<(Method, &'static str)> {
    table().listed
}

/// The whole application: every route of `table`, the fallbacks (JSON 404 and 405), the
/// per-address rate limit on `/api/`, per-request tracing spans, gzip, a panic guard that
/// answers 500 in JSON (a handler never panics on input; this is the last line), and the
/// body limit of the JSON routes.
pub fn router(state: AppState) -> Router {
    table()
        .router
        .fallback(|| async { ApiError::NoRoute })
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .layer(DefaultBodyLimit::max(JSON_BODY_BYTES_MAX))
        .layer(middleware::from_fn_with_state(state.clone(), limit_address))
        .layer(CompressionLayer::new())
        .layer(TraceLayer::new_for_http())
        .layer(CatchPanicLayer::custom(|_| {
            ApiError::Internal("a handler panicked".into()).into_response()
        }))
        .with_state(state)
}

/// Routes as they are added, remembered for [`route_list`].
#[derive(Default)]
struct Table {
    router: Router<AppState>,
    listed: Vec<(Method, &'static str)>,
}

impl Table {
    fn add<H, T>(mut self, method: Method, path: &'static str, handler: H) -> Table
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        let filter = axum::routing::MethodFilter::try_from(method.clone())
            .unwrap_or(axum::routing::MethodFilter::GET);
        self.router = self.router.route(path, axum::routing::on(filter, handler));
        self.listed.push((method, path));
        self
    }
}

/// The per-address rate limit, on every `/api/` request (monitoring routes and the page are
/// exempt). The address is the TCP peer's: behind a reverse proxy, every client shares the
/// proxy's (headers like `X-Forwarded-For` are not trusted: any client can set them).
async fn limit_address(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if request.uri().path().starts_with("/api/") {
        let peer = request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|info| info.0.ip());
        if let Some(address) = peer {
            if let Err(retry_after_s) = state.rates.check_address(address) {
                return ApiError::RateLimited { retry_after_s }.into_response();
            }
        }
    }
    next.run(request).await
}

/// A `201`/`202` with a JSON body.
pub(crate) fn with_status<T: serde::Serialize>(status: StatusCode, body: T) -> Response {
    (status, axum::Json(body)).into_response()
}
