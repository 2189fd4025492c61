//! The operator's routes: `/healthz`, `/metrics`, `/api/openapi.json`. (The web page, `/`,
//! is `crate::web`.)

use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::{ApiError, ErrorBody};
use crate::metrics::RunTotals;
use crate::state::AppState;
use crate::store::RunState;

#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: &'static str,
    /// `sqlite` or `postgres`.
    pub database: &'static str,
    pub workers: usize,
}

/// How long `/healthz` waits for the database: well under a second, so that a load
/// balancer polling it sees a database gone within a second (not after the pool's 10 s
/// acquire timeout), and never an answer remembered from before.
pub const HEALTH_PING_MAX: Duration = Duration::from_millis(750);

/// Liveness and readiness: 200 when the database answers (within [`HEALTH_PING_MAX`]).
#[utoipa::path(get, path = "/healthz", tag = "operations",
    responses(
        (status = 200, body = Health),
        (status = 503, description = "The database does not answer within 750 ms (`database_unavailable`; `Connection: close`)", body = ErrorBody),
    ))]
pub async fn healthz(State(state): State<AppState>) -> Result<Json<Health>, ApiError> {
    state.store.ping(HEALTH_PING_MAX).await?;
    Ok(Json(Health {
        status: "ok",
        database: state.store.backend(),
        workers: state.workers,
    }))
}

/// Prometheus metrics (text exposition format): uploads by outcome, verdicts by reason,
/// queue depth, verification seconds.
#[utoipa::path(get, path = "/metrics", tag = "operations",
    responses((status = 200, description = "Prometheus text format", content_type = "text/plain", body = String)))]
pub async fn metrics(State(state): State<AppState>) -> Response {
    // The waiting runs on every scrape; all of them now and then, beside the scrape (see
    // `metrics`).
    let waiting = [RunState::Queued, RunState::Verifying];
    let settled = [RunState::Verified, RunState::Rejected];
    match state.store.queue().waiting_counts().await {
        Ok(counts) => state.metrics.set_runs(&counts, &waiting),
        Err(e) => tracing::warn!(error = %e, "metrics: cannot count the waiting runs"),
    }
    match state.metrics.run_totals_due() {
        RunTotals::First => count_run_totals(&state, &settled).await,
        RunTotals::Due => {
            let state = state.clone();
            tokio::spawn(async move { count_run_totals(&state, &settled).await });
        }
        RunTotals::Fresh => {}
    }
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        state.metrics.encode(),
    )
        .into_response()
}

/// Counts every run by state (a pass over the table) and sets the gauges of `states`.
async fn count_run_totals(state: &AppState, states: &[RunState]) {
    match state.store.queue().status_counts().await {
        Ok(counts) => state.metrics.set_runs(&counts, states),
        Err(e) => tracing::warn!(error = %e, "metrics: cannot count runs"),
    }
}
