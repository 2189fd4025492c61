//! The handlers' state: what the API's handlers share. The verification workers have their
//! own (`worker::Workers`), the live rooms theirs (`live::LiveContext`); the store, catalog
//! and metrics are handles all of them hold.

use std::ops::Deref;
use std::sync::Arc;

use tokio::sync::{Notify, Semaphore};

use crate::auth::AdminToken;
use crate::catalog::Catalog;
use crate::limits::{RateLimits, TicketRate};
use crate::metrics::Metrics;
use crate::shutdown::Shutdown;
use crate::store::Store;
use crate::web::WasmModules;

/// Cheap to clone: a handle on [`Shared`], axum's state for every route.
#[derive(Clone, Debug)]
pub struct AppState(pub Arc<Shared>);

impl Deref for AppState {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// The WebAssembly route's part of the state (`web::wasm`, which knows no more of it).
impl axum::extract::FromRef<AppState> for Arc<WasmModules> {
    fn from_ref(state: &AppState) -> Arc<WasmModules> {
        state.wasm.clone()
    }
}

/// What the handlers share.
#[derive(Debug)]
pub struct Shared {
    pub store: Store,
    pub catalog: Arc<Catalog>,
    pub metrics: Arc<Metrics>,
    pub rates: RateLimits,
    pub admin: Option<AdminToken>,
    /// Verification workers in this process (`/healthz` says how many).
    pub workers: usize,
    /// Most runs waiting for a verdict before an upload is answered 503 (`--queue-max`).
    pub queue_max: u64,
    /// Request body limit of an upload (bytes): see `limits::upload_body_limit`.
    pub upload_limit: u64,
    /// Wakes an idle worker when a run is queued (`worker::Workers::work`).
    pub work: Arc<Notify>,
    /// Upload bodies being read or checked (`limits::UPLOADS_IN_FLIGHT_MAX`).
    pub uploads: Semaphore,
    /// Ghost trajectories being computed (`limits::GHOSTS_IN_FLIGHT_MAX`).
    pub ghosts: Semaphore,
    /// The page's WebAssembly modules, read from disk (`--wasm`).
    pub wasm: Arc<WasmModules>,
    /// Run tickets minted per player (`limits::TICKET_MINT_PERIOD`).
    pub ticket_rate: TicketRate,
    /// How late a ticket's commitment may arrive after its game time (ms, `--ticket-slack-ms`).
    pub ticket_slack_ms: i64,
    /// The live rooms this process holds, and what they share.
    pub live: Arc<crate::live::LiveContext>,
    /// Whether the server is stopping (SIGTERM came): `stopping.is_shutdown()` says so, and
    /// `stopping.clone().recv()` waits for it. From then on new uploads, rooms and tickets are
    /// refused (`serve::stopping_layer`) and the process exits within `--stop-deadline-s`
    /// (`Server::run`); anything that holds a client for long should let go when it begins.
    pub stopping: Shutdown,
}
