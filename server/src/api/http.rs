//! What the resources' handlers share of HTTP: the extractors that refuse in the API's error,
//! and a JSON answer with its status.
//!
//! [`ApiPath`], [`ApiQuery`] and [`ApiJson`] are axum's `Path`, `Query` and `Json` whose
//! rejection is an [`ApiError`] (axum's `customize-extractor-error` example, its hand-written
//! way: a `FromRequestParts` or `FromRequest` that wraps the other), so a handler takes
//! `ApiPath(id): ApiPath<i64>` and a malformed one is answered as every failure is: 400
//! `bad_parameter` for a path or query (axum's message), and for a body 415, 413, 400
//! `body_incomplete` or 400 `bad_json` (`From<JsonRejection> for ApiError`).
//!
//! axum runs a handler's extractors in the order of its parameters and answers the first
//! refusal, so that order is the order of the checks. A handler that must check something
//! else first (a malformed ticket id before the token, before the body) takes
//! `Result<ApiJson<T>, ApiError>` and applies `?` when it is ready for the verdict.

use axum::extract::{FromRequest, FromRequestParts, Json, Path, Query, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// When a request reached its handler (ms since the epoch, the server's clock): the first
/// of a handler's parameters, it is read before any other extractor runs — before a token is
/// looked up or a body is read — so nothing the caller sends can make it later or earlier.
/// A run ticket's commitment is stamped with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival(pub i64);

impl<S: Send + Sync> FromRequestParts<S> for Arrival {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(_: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Arrival(crate::times::now_ms()))
    }
}

/// axum's [`Path`], refused with 400 `bad_parameter`.
#[derive(Debug)]
pub struct ApiPath<T>(pub T);

impl<T, S> FromRequestParts<S> for ApiPath<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path(value) = Path::<T>::from_request_parts(parts, state).await?;
        Ok(ApiPath(value))
    }
}

/// axum's [`Query`], refused with 400 `bad_parameter`.
#[derive(Debug)]
pub struct ApiQuery<T>(pub T);

impl<T, S> FromRequestParts<S> for ApiQuery<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Query(value) = Query::<T>::from_request_parts(parts, state).await?;
        Ok(ApiQuery(value))
    }
}

/// axum's [`Json`] body, refused as `From<JsonRejection> for ApiError` says.
#[derive(Debug)]
pub struct ApiJson<T>(pub T);

impl<T, S> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let Json(value) = Json::<T>::from_request(request, state).await?;
        Ok(ApiJson(value))
    }
}

/// A `201`/`202` with a JSON body.
pub(crate) fn with_status<T: serde::Serialize>(status: StatusCode, body: T) -> Response {
    (status, axum::Json(body)).into_response()
}
