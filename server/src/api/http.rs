//! What the resources' handlers share of HTTP: a JSON answer with its status.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// A `201`/`202` with a JSON body.
pub(crate) fn with_status<T: serde::Serialize>(status: StatusCode, body: T) -> Response {
    (status, axum::Json(body)).into_response()
}
