//! The web page: the plain ES modules, stylesheet and HTML under `server/web/`, embedded in
//! the binary at build time (no build step, no CDN: the page works with no internet), served
//! at `/` (the HTML) and `/web/{file}` (everything else).
//!
//! Each file is served with its content type, a `Content-Security-Policy` that lets the page
//! load only its own scripts and styles and talk only to this server, an `ETag` (its content
//! hash) and `Cache-Control: no-cache`: a browser keeps the files but asks each time whether
//! they changed, and gets a `304` while the binary is the same.

use std::sync::OnceLock;

use axum::Json;
use axum::extract::Path;
use axum::extract::rejection::PathRejection;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use crate::error::{ApiError, ErrorBody};

/// One embedded file.
pub struct Asset {
    /// Its name under `server/web/` and in `/web/{file}`.
    pub name: &'static str,
    pub content_type: &'static str,
    pub body: &'static [u8],
}

macro_rules! asset {
    ($name:literal, $content_type:expr) => {
        Asset {
            name: $name,
            content_type: $content_type,
            body: include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/web/", $name)),
        }
    };
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

/// Every file of `server/web/` (a test checks that none is missing from this list).
pub const ASSETS: &[Asset] = &[
    asset!("index.html", HTML),
    asset!("style.css", CSS),
    asset!("app.js", JS),
    asset!("api.js", JS),
    asset!("dom.js", JS),
    asset!("format.js", JS),
    asset!("board.js", JS),
    asset!("race.js", JS),
    asset!("ghost.js", JS),
    asset!("level.js", JS),
    asset!("draw.js", JS),
    asset!("run.js", JS),
    asset!("upload.js", JS),
    asset!("wasm.js", JS),
    asset!("identity.js", JS),
    asset!("play-submit.js", JS),
];

/// The page may run only its own scripts and styles, load images only from itself (and the
/// empty `data:` favicon), and fetch only from this server; no plugins, no framing. Player
/// and level names are inserted as text, never as HTML: this is the second line.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
    style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'none'";

/// The file's `ETag`: the first 16 hex digits of its SHA-256, weak (`W/`) because the
/// compression layer may send it gzipped, which changes the bytes but not the meaning.
fn etag(index: usize) -> &'static str {
    static TAGS: OnceLock<Vec<String>> = OnceLock::new();
    let tags = TAGS.get_or_init(|| {
        ASSETS
            .iter()
            .map(|asset| {
                let digest = Sha256::digest(asset.body);
                let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
                format!("W/\"{hex}\"")
            })
            .collect()
    });
    &tags[index]
}

/// The embedded file `name`, as a response to a request with `headers` (a `304` when its
/// `If-None-Match` names the current version).
fn serve(name: &str, headers: &HeaderMap) -> Result<Response, ApiError> {
    let Some(index) = ASSETS.iter().position(|asset| asset.name == name) else {
        return Ok(unknown_file(name));
    };
    let asset = &ASSETS[index];
    let tag = etag(index);
    let fresh = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.trim().trim_start_matches("W/"))
        .any(|v| v == "*" || v == tag.trim_start_matches("W/"));
    let common = [
        (header::ETAG, HeaderValue::from_static(tag)),
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        (
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        ),
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
    ];
    if fresh {
        return Ok((StatusCode::NOT_MODIFIED, common).into_response());
    }
    Ok((
        common,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static(asset.content_type),
        )],
        asset.body,
    )
        .into_response())
}

/// `404 {"error": "unknown_file"}`: the route exists, the file does not. (Not `no_route`:
/// the OpenAPI test requests every documented route and expects each to be routed.) The
/// name is echoed as JSON, escaped by serde.
fn unknown_file(name: &str) -> Response {
    let body = ErrorBody {
        error: "unknown_file",
        message: format!("the page has no file {name:?}"),
        kind: None,
        retry_after_s: None,
    };
    (StatusCode::NOT_FOUND, Json(body)).into_response()
}

/// The web page: leaderboards, ghost races, uploads, runs.
#[utoipa::path(get, path = "/", tag = "web",
    responses(
        (status = 200, description = "The page (HTML; its scripts are under /web/)", content_type = "text/html", body = String),
        (status = 304, description = "Not modified (If-None-Match)"),
    ))]
pub async fn index(headers: HeaderMap) -> Result<Response, ApiError> {
    serve("index.html", &headers)
}

/// One of the page's files (ES modules, the stylesheet).
#[utoipa::path(get, path = "/web/{file}", tag = "web",
    params(("file" = String, Path, description = "File name, e.g. `app.js`")),
    responses(
        (status = 200, description = "The file, with its content type", body = String),
        (status = 304, description = "Not modified (If-None-Match)"),
        (status = 404, description = "No such file", body = crate::error::ErrorBody),
    ))]
pub async fn file(
    headers: HeaderMap,
    name: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let Path(name) = name?;
    serve(&name, &headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_of_the_web_directory_is_embedded_once() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/web");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = ASSETS.iter().map(|a| a.name.to_string()).collect();
        embedded.sort();
        assert_eq!(embedded, on_disk);
        for asset in ASSETS {
            let expected = match asset.name.rsplit_once('.').map(|(_, ext)| ext) {
                Some("html") => HTML,
                Some("js") => JS,
                Some("css") => CSS,
                other => panic!("{}: no content type for {other:?}", asset.name),
            };
            assert_eq!(asset.content_type, expected, "{}", asset.name);
        }
    }

    #[test]
    fn the_page_never_parses_api_text_as_html() {
        // Every string from the API goes in as text (dom.js's `el`); none of the ways to
        // parse a string as HTML appears in the page's code.
        for asset in ASSETS.iter().filter(|a| a.name.ends_with(".js")) {
            let code = std::str::from_utf8(asset.body).unwrap();
            for sink in [
                "innerHTML",
                "outerHTML",
                "insertAdjacentHTML",
                "document.write",
                "DOMParser",
                "createContextualFragment",
                "eval(",
                "new Function",
            ] {
                assert!(!code.contains(sink), "{} uses {sink}", asset.name);
            }
        }
    }
}
