//! The one shared state of the server: everything a handler or a worker needs.

use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, Semaphore};

use crate::auth::AdminToken;
use crate::catalog::Catalog;
use crate::limits::{RateLimits, TicketRate};
use crate::metrics::Metrics;
use crate::store::Store;
use crate::web::WasmModule;

/// Cheap to clone: a handle on [`Shared`].
#[derive(Clone, Debug)]
pub struct AppState(pub Arc<Shared>);

impl Deref for AppState {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

#[derive(Debug)]
pub struct Shared {
    pub store: Store,
    pub catalog: Arc<Catalog>,
    pub metrics: Metrics,
    pub rates: RateLimits,
    pub admin: Option<AdminToken>,
    /// This process's name in claims (`lease_owner`): random, so two processes never share
    /// one, even on two machines.
    pub instance: String,
    pub workers: usize,
    pub lease: Duration,
    /// Runs a worker claims at once (`--verify-batch`).
    pub verify_batch: u32,
    pub queue_max: u64,
    /// Request body limit of an upload (bytes): see `limits::upload_body_limit`.
    pub upload_limit: u64,
    /// Wakes an idle worker when a run is queued.
    pub work: Notify,
    /// Upload bodies being read or checked (`limits::UPLOADS_IN_FLIGHT_MAX`).
    pub uploads: Semaphore,
    /// Ghost trajectories being computed (`limits::GHOSTS_IN_FLIGHT_MAX`).
    pub ghosts: Semaphore,
    /// The page's WebAssembly module, read from disk (`--wasm`).
    pub wasm: WasmModule,
    /// Run tickets minted per player (`limits::TICKET_MINT_PERIOD`).
    pub ticket_rate: TicketRate,
    /// How late a ticket's commitment may arrive after its game time (ms, `--ticket-slack-ms`).
    pub ticket_slack_ms: i64,
    /// The live rooms this process holds, and what they share.
    pub live: Arc<crate::live::LiveContext>,
}
