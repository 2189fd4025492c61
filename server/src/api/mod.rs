//! The HTTP API: [`routes()`] lists every route, [`router`] is the application; one module per
//! resource.
//!
//! Every failure goes through `crate::error::ApiError`; the success types are in
//! the modules, with their OpenAPI schemas (`crate::openapi`).

pub mod admin;
pub mod caller;
pub mod export;
pub mod http;
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
pub mod tracks;
pub mod trajectory;

use std::net::SocketAddr;
use std::sync::OnceLock;

use axum::Router;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Request, State};
use axum::http::Method;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::ApiError;
use crate::limits::JSON_BODY_BYTES_MAX;
use crate::state::AppState;
use crate::web;

/// Every route, written once: each handler's `#[utoipa::path]` gives the router its method and
/// path (OpenAPI's and axum's `{param}` syntax) and the OpenAPI document its operation
/// (utoipa-axum's `OpenApiRouter`), so the document lists exactly what is served. The rest of
/// the document (its description, tags, the schemas no route names) is `openapi::ApiDoc`'s.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(crate::openapi::ApiDoc::openapi())
        .routes(routes!(web::index))
        .routes(routes!(web::file))
        .routes(routes!(web::wasm))
        .routes(routes!(web::wasm_wide))
        .routes(routes!(web::folder_file))
        .routes(routes!(ops::healthz))
        .routes(routes!(ops::metrics))
        .routes(routes!(openapi))
        .routes(routes!(levels::list))
        .routes(routes!(limits::limits))
        .routes(routes!(levels::geometry))
        .routes(routes!(leaderboard::leaderboard))
        .routes(routes!(export::export))
        .routes(routes!(seasons::list_seasons))
        .routes(routes!(tickets::mint))
        .routes(routes!(rooms::create_room))
        .routes(routes!(rooms::list_rooms))
        .routes(routes!(rooms::room))
        .routes(routes!(rooms::room_socket))
        .routes(routes!(tickets::commit))
        .routes(routes!(players::register))
        .routes(routes!(runs::upload))
        .routes(routes!(runs::status))
        .routes(routes!(runs::replay))
        .routes(routes!(trajectory::ghost))
        .routes(routes!(inspect::inspect))
        .routes(routes!(admin::run))
        .routes(routes!(admin::hide_run))
        .routes(routes!(admin::hide_player))
        .routes(routes!(tracks::check))
        .routes(routes!(tracks::publish, tracks::list))
        .routes(routes!(tracks::track, tracks::edit))
        .routes(routes!(tracks::level_json))
        .routes(routes!(tracks::hide))
}

/// The whole document, built once: [`routes()`]'s operations on `openapi::ApiDoc`.
pub fn document() -> &'static utoipa::openapi::OpenApi {
    static DOCUMENT: OnceLock<utoipa::openapi::OpenApi> = OnceLock::new();
    DOCUMENT.get_or_init(|| routes().into_openapi())
}

/// This document.
#[utoipa::path(get, path = "/api/openapi.json", tag = "operations",
    responses((status = 200, description = "OpenAPI 3 document", content_type = "application/json", body = Object)))]
pub async fn openapi() -> Response {
    axum::Json(document()).into_response()
}

/// The routes as (method, path) pairs: the operations of their document.
pub fn route_list() -> Vec<(Method, String)> {
    let document = routes().into_openapi();
    let mut list = Vec::new();
    for (path, item) in document.paths.paths {
        let operations = [
            (Method::GET, &item.get),
            (Method::PUT, &item.put),
            (Method::POST, &item.post),
            (Method::DELETE, &item.delete),
            (Method::OPTIONS, &item.options),
            (Method::HEAD, &item.head),
            (Method::PATCH, &item.patch),
            (Method::TRACE, &item.trace),
        ];
        for (method, operation) in operations {
            if operation.is_some() {
                list.push((method, path.clone()));
            }
        }
    }
    list
}

/// The whole application: every route of [`routes()`], the fallbacks (JSON 404 and 405), the
/// per-address rate limit on `/api/`, per-request tracing spans, gzip, a panic guard that
/// answers 500 in JSON (a handler never panics on input; this is the last line), and the
/// body limit of the JSON routes.
pub fn router(state: AppState) -> Router {
    let (routes, _document) = routes().split_for_parts();
    routes
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
