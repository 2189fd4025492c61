//! The web page: the plain ES modules, stylesheet and HTML under `server/web/` — the entry
//! point and the routes at the top, a folder per view (`board/`, `editor/`, `live/`, `play/`,
//! `race/`, `run/`, `tracks/`, `upload/`), what they share in `shared/`, the vendored three.js
//! in `vendor/` — embedded in the binary at build time (no build step, no CDN: the page works
//! with no internet), served at `/` (the HTML), `/web/{file}` and `/web/{folder}/{file}`; plus
//! the simulation core the page runs: the JS
//! binding `ffi/js/pogo.mjs` (embedded, at `/web/pogo.mjs`) and the WebAssembly module it
//! loads, `/web/pogo_ffi.wasm`, which is *not* embedded — `cargo build` of the server must not
//! need the wasm32 target — but read at run time from the build of `scripts/build-wasm.sh`
//! ([`WasmModule`]).
//!
//! Each file is served with its content type, a `Content-Security-Policy` that lets the page
//! load only its own scripts and styles and talk only to this server, an `ETag` (its content
//! hash) and `Cache-Control: no-cache`: a browser keeps the files but asks each time whether
//! they changed, and gets a `304` while the binary (or the module) is the same.

use std::io::{Read, Write};
use std::path::{Path as FsPath, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use crate::api::http::ApiPath;
use crate::error::{ApiError, ErrorBody};

/// One embedded file.
pub struct Asset {
    /// Its path under `/web/`: `app.js`, or `folder/file.js` in one of the page's folders
    /// (one level deep: the routes serve no deeper path).
    pub name: &'static str,
    /// Where it comes from, relative to the server's crate directory: `web/{name}`, or
    /// elsewhere in the repository (`../ffi/js/pogo.mjs`).
    pub source: &'static str,
    pub content_type: &'static str,
    pub body: &'static [u8],
}

/// `asset!("app.js", JS)`: `server/web/app.js`; `asset!("pogo.mjs" from "../ffi/js/pogo.mjs",
/// JS)`: a file from elsewhere in the repository, served under another name. Either way a
/// missing file is a compile error.
macro_rules! asset {
    ($name:literal, $content_type:expr) => {
        Asset {
            name: $name,
            source: concat!("web/", $name),
            content_type: $content_type,
            body: include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/web/", $name)),
        }
    };
    ($name:literal from $source:literal, $content_type:expr) => {
        Asset {
            name: $name,
            source: $source,
            content_type: $content_type,
            body: include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/", $source)),
        }
    };
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";
const WASM: &str = "application/wasm";

/// Every file of `server/web/` and its folders (a test checks that none is missing from this
/// list), and the JS binding of the simulation core.
pub const ASSETS: &[Asset] = &[
    asset!("index.html", HTML),
    asset!("style.css", CSS),
    asset!("app.js", JS),
    asset!("routes.js", JS),
    asset!("shared/api.js", JS),
    asset!("shared/dom.js", JS),
    asset!("shared/finish-panel.js", JS),
    asset!("shared/format.js", JS),
    asset!("shared/ghosts.js", JS),
    asset!("shared/identity.js", JS),
    asset!("shared/level.js", JS),
    asset!("shared/limits.js", JS),
    asset!("shared/pending-list.js", JS),
    asset!("shared/pending.js", JS),
    asset!("shared/rerecord.js", JS),
    asset!("shared/rooms.js", JS),
    asset!("shared/submission.js", JS),
    asset!("shared/track-geometry.js", JS),
    asset!("shared/track-picture.js", JS),
    asset!("shared/wasm.js", JS),
    asset!("board/board.js", JS),
    asset!("board/seasons.js", JS),
    asset!("race/draw.js", JS),
    asset!("race/ghost.js", JS),
    asset!("race/race.js", JS),
    asset!("run/run.js", JS),
    asset!("upload/upload.js", JS),
    asset!("editor/editor.js", JS),
    asset!("editor/codes.js", JS),
    asset!("editor/drafts.js", JS),
    asset!("editor/help.js", JS),
    asset!("editor/inspector.js", JS),
    asset!("editor/keys.js", JS),
    asset!("editor/model.js", JS),
    asset!("editor/preview3d.js", JS),
    asset!("editor/publish.js", JS),
    asset!("editor/session.js", JS),
    asset!("editor/testplay.js", JS),
    asset!("editor/toolbar.js", JS),
    asset!("editor/tools.js", JS),
    asset!("editor/validate.js", JS),
    asset!("editor/view2d.js", JS),
    asset!("live/live.js", JS),
    asset!("tracks/tracks.js", JS),
    asset!("tracks/track.js", JS),
    asset!("play/camera.js", JS),
    asset!("play/clock.js", JS),
    asset!("play/ghosts.js", JS),
    asset!("play/hooks.js", JS),
    asset!("play/hud.js", JS),
    asset!("play/input.js", JS),
    asset!("play/live-race.js", JS),
    asset!("play/live-screens.js", JS),
    asset!("play/live-view.js", JS),
    asset!("play/loop.js", JS),
    asset!("play/play.js", JS),
    asset!("play/race.js", JS),
    asset!("play/rig.js", JS),
    asset!("play/rivals.js", JS),
    asset!("play/room-link.js", JS),
    asset!("play/room-view.js", JS),
    asset!("play/run.js", JS),
    asset!("play/scene.js", JS),
    asset!("play/seat.js", JS),
    asset!("play/smoothing.js", JS),
    asset!("play/ticket.js", JS),
    asset!("play/wire.js", JS),
    // The one JS binding of pogo-ffi (not a copy: the file the Node tests run).
    asset!("pogo.mjs" from "../ffi/js/pogo.mjs", JS),
    // three.js, from the npm package pinned in server/vendor/ (scripts/vendor-three.sh).
    asset!("vendor/three.module.min.js", JS),
    asset!("vendor/three.core.min.js", JS),
    asset!("vendor/LICENSE", TEXT),
];

/// The page may run only its own scripts and styles, load images only from itself (and the
/// empty `data:` favicon), and fetch only from this server; no plugins, no framing. Player
/// and level names are inserted as text, never as HTML: this is the second line.
///
/// `'wasm-unsafe-eval'` lets the page compile WebAssembly (`WebAssembly.instantiate` of the
/// module it fetched from this server, `connect-src 'self'`) and nothing else: unlike
/// `'unsafe-eval'` it does not allow `eval` or `new Function`. three.js's `WebGLRenderer`
/// needs nothing more: no workers (`worker-src`), no `blob:` URLs.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; \
    script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; \
    connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// A content hash as a weak `ETag`: the first 16 hex digits of its SHA-256, weak (`W/`)
/// because the body may be sent gzipped, which changes the bytes but not the meaning.
fn content_tag(body: &[u8]) -> String {
    let digest = Sha256::digest(body);
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("W/\"{hex}\"")
}

/// The embedded file's `ETag`.
fn etag(index: usize) -> &'static str {
    static TAGS: OnceLock<Vec<String>> = OnceLock::new();
    let tags = TAGS.get_or_init(|| ASSETS.iter().map(|a| content_tag(a.body)).collect());
    &tags[index]
}

/// Whether the request's `If-None-Match` names `tag` (or `*`).
fn not_modified(headers: &HeaderMap, tag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.trim().trim_start_matches("W/"))
        .any(|v| v == "*" || v == tag.trim_start_matches("W/"))
}

/// What every web file is sent with: its tag, `no-cache`, the policy, `nosniff`.
fn common_headers(tag: HeaderValue) -> [(HeaderName, HeaderValue); 4] {
    [
        (header::ETAG, tag),
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        (
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        ),
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
    ]
}

/// The embedded file `name`, as a response to a request with `headers` (a `304` when its
/// `If-None-Match` names the current version).
fn serve(name: &str, headers: &HeaderMap) -> Result<Response, ApiError> {
    let Some(index) = ASSETS.iter().position(|asset| asset.name == name) else {
        return Ok(unknown_file(name));
    };
    let asset = &ASSETS[index];
    let tag = etag(index);
    let common = common_headers(HeaderValue::from_static(tag));
    if not_modified(headers, tag) {
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
        field: None,
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

/// One of the page's top-level files (the entry point `app.js`, `routes.js`, the stylesheet,
/// `pogo.mjs`: the simulation core's JS binding).
#[utoipa::path(get, path = "/web/{file}", tag = "web",
    params(("file" = String, Path, description = "File name, e.g. `app.js`")),
    responses(
        (status = 200, description = "The file, with its content type", body = String),
        (status = 304, description = "Not modified (If-None-Match)"),
        (status = 404, description = "No such file", body = crate::error::ErrorBody),
    ))]
pub async fn file(
    headers: HeaderMap,
    ApiPath(name): ApiPath<String>,
) -> Result<Response, ApiError> {
    if name.contains('/') {
        // `/web/play%2Fplay.js`: a folder's files have their own route.
        return Ok(unknown_file(&name));
    }
    serve(&name, &headers)
}

/// A file in one of the page's folders: a view's modules (`board/`, `live/`, `play/`, `race/`, `run/`,
/// `upload/`), what they share (`shared/`), or the vendored three.js (`vendor/`:
/// `three.module.min.js`, which imports `three.core.min.js`, and its `LICENSE`). Only the
/// embedded files exist: a path is looked up in their list, never on a disk.
#[utoipa::path(get, path = "/web/{folder}/{file}", tag = "web",
    params(
        ("folder" = String, Path, description = "Folder, e.g. `play`"),
        ("file" = String, Path, description = "File name, e.g. `play.js`"),
    ),
    responses(
        (status = 200, description = "The file, with its content type", body = String),
        (status = 304, description = "Not modified (If-None-Match)"),
        (status = 404, description = "No such file", body = crate::error::ErrorBody),
    ))]
pub async fn folder_file(
    headers: HeaderMap,
    ApiPath((folder, name)): ApiPath<(String, String)>,
) -> Result<Response, ApiError> {
    let path = format!("{folder}/{name}");
    if folder.contains('/') || name.contains('/') {
        // `/web/play/..%2Fapp.js`: one folder, one file name.
        return Ok(unknown_file(&path));
    }
    serve(&path, &headers)
}

/// The largest WebAssembly module served, in bytes. The `wasm-release` profile builds
/// pogo-ffi in about 0.6 MB (about 220 KiB gzipped; PERFORMANCE.md has the current figure);
/// the `release` profile's build, with its debug info, is 5.8 MB and must never reach a
/// browser. A module over this limit was built
/// with the wrong profile: the server refuses it and says which profile to build, rather
/// than send ten times the bytes to every player.
pub const WASM_BYTES_MAX: u64 = 2 * 1024 * 1024;

/// The module's file name, in the build's target directory and under `/web/`.
pub const WASM_FILE: &str = "pogo_ffi.wasm";

/// The same module built with the wide-arithmetic proposal's instructions (`i64.mul_wide_s`,
/// `i64.mul_wide_u`; core/src/wide.rs): beside [`WASM_FILE`] (`scripts/build-wasm.sh` puts it
/// there) and under `/web/`. The page loads it where the browser validates those
/// instructions, the other module elsewhere; both give the same bits.
pub const WASM_WIDE_FILE: &str = "pogo_ffi_wide.wasm";

/// The start of every WebAssembly binary module: `\0asm`, version 1.
const WASM_HEADER: [u8; 8] = *b"\0asm\x01\0\0\0";

/// The page's WebAssembly module, read from disk when first needed and again whenever the
/// file changes (its modification time or length), so building it while the server runs
/// works without a restart. Gzipped once per version, at the best level: it is served to
/// every player and compressed only when it changes.
#[derive(Debug)]
pub struct WasmModule {
    /// `--wasm`, or `None`: the first of [`default_wasm_paths`] that exists.
    configured: Option<PathBuf>,
    /// [`WASM_FILE`], or [`WASM_WIDE_FILE`]: the wide module is looked for beside the other.
    file: &'static str,
    current: tokio::sync::Mutex<Option<Arc<LoadedWasm>>>,
}

/// The page's two builds of the module: [`WASM_FILE`] for every browser, [`WASM_WIDE_FILE`]
/// for those with the wide-arithmetic instructions.
#[derive(Debug)]
pub struct WasmModules {
    pub plain: WasmModule,
    pub wide: WasmModule,
}

impl WasmModules {
    /// Both, from `--wasm` (the plain module's path; the wide one beside it) or the defaults.
    pub fn new(configured: Option<PathBuf>) -> WasmModules {
        WasmModules {
            plain: WasmModule::new(configured.clone(), WASM_FILE),
            wide: WasmModule::new(configured, WASM_WIDE_FILE),
        }
    }

    /// Loads both at start and logs whether each was found, with its sizes.
    pub async fn log_at_start(&self) {
        self.plain.log_at_start().await;
        self.wide.log_at_start().await;
    }
}

/// One version of the module, as read and compressed.
#[derive(Debug)]
pub struct LoadedWasm {
    pub path: PathBuf,
    modified: Option<SystemTime>,
    pub raw: Bytes,
    /// `raw` under gzip at level 9.
    pub gzip: Bytes,
    etag: HeaderValue,
}

/// Where the module is looked for without `--wasm`: beside this build
/// (`<the executable's directory>/../wasm32-unknown-unknown/wasm-release/pogo_ffi.wasm`; the
/// server runs from `target/<profile>/`, so this follows `CARGO_TARGET_DIR`), then in the
/// workspace's `target/` as this binary was compiled from.
pub fn default_wasm_paths() -> Vec<PathBuf> {
    let build = FsPath::new("wasm32-unknown-unknown/wasm-release").join(WASM_FILE);
    let mut paths = Vec::new();
    // `target/<profile>/pogo-server` → `target/`.
    if let Some(target) = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.to_path_buf()))
    {
        paths.push(target.join(&build));
    }
    paths.push(
        FsPath::new(env!("CARGO_MANIFEST_DIR"))
            .join("../target")
            .join(&build),
    );
    paths
}

impl WasmModule {
    /// The module named `file` ([`WASM_FILE`] or [`WASM_WIDE_FILE`]), at `configured` (`--wasm`,
    /// the plain module's path; the wide one beside it) or the defaults.
    pub fn new(configured: Option<PathBuf>, file: &'static str) -> WasmModule {
        WasmModule {
            configured,
            file,
            current: tokio::sync::Mutex::new(None),
        }
    }

    /// Where the module is looked for, in order.
    pub fn candidates(&self) -> Vec<PathBuf> {
        let paths = match &self.configured {
            Some(path) => vec![path.clone()],
            None => default_wasm_paths(),
        };
        if self.file == WASM_FILE {
            return paths;
        }
        paths.iter().map(|p| p.with_file_name(self.file)).collect()
    }

    /// The module as it is on disk now: the cached version if the file has not changed,
    /// else read (and gzipped) again. `WasmMissing` when no candidate exists,
    /// `WasmUnusable` when the file is over [`WASM_BYTES_MAX`] or not WebAssembly.
    pub async fn current(&self) -> Result<Arc<LoadedWasm>, ApiError> {
        let mut current = self.current.lock().await;
        // A stat or two per request (microseconds): not worth a blocking thread.
        let found = self.candidates().into_iter().find_map(|path| {
            let meta = std::fs::metadata(&path).ok().filter(|m| m.is_file())?;
            Some((path, meta))
        });
        let Some((path, meta)) = found else {
            *current = None;
            return Err(ApiError::WasmMissing);
        };
        let modified = meta.modified().ok();
        if let Some(loaded) = current.as_ref() {
            if loaded.path == path
                && loaded.modified == modified
                && modified.is_some()
                && loaded.raw.len() as u64 == meta.len()
            {
                return Ok(loaded.clone());
            }
        }
        *current = None;
        if meta.len() > WASM_BYTES_MAX {
            return Err(too_large(meta.len()));
        }
        // The stat above is taken before reading: a file replaced while it is read has a
        // newer time by the next request, which reads it again.
        let loaded = tokio::task::spawn_blocking(move || load_wasm(path, modified))
            .await
            .map_err(|e| ApiError::Internal(format!("loading the wasm module: {e}")))??;
        let loaded = Arc::new(loaded);
        *current = Some(loaded.clone());
        Ok(loaded)
    }

    /// Loads the module at start and logs whether it was found, with its sizes.
    pub async fn log_at_start(&self) {
        match self.current().await {
            Ok(m) => tracing::info!(
                path = %m.path.display(),
                raw_bytes = m.raw.len(),
                gzip_bytes = m.gzip.len(),
                "the page's WebAssembly module: found"
            ),
            Err(ApiError::WasmMissing) if self.file == WASM_WIDE_FILE => tracing::info!(
                looked_at = ?self.candidates(),
                "the page's WebAssembly module with wide arithmetic is not built: every \
                 browser gets the other (bash scripts/build-wasm.sh builds both)"
            ),
            Err(ApiError::WasmMissing) => tracing::info!(
                looked_at = ?self.candidates(),
                "the page's WebAssembly module is not built: the play view will say how \
                 (bash scripts/build-wasm.sh); it is served as soon as it exists"
            ),
            Err(e) => tracing::warn!(
                looked_at = ?self.candidates(),
                error = e.code(),
                "the page's WebAssembly module cannot be served"
            ),
        }
    }
}

fn too_large(bytes: u64) -> ApiError {
    ApiError::WasmUnusable {
        what: format!(
            "it is {bytes} bytes, over the {WASM_BYTES_MAX}-byte limit (a build of another \
             profile than wasm-release: the release profile's is about 5.8 MB)"
        ),
    }
}

/// Reads the module at `path` (at most [`WASM_BYTES_MAX`] bytes), checks its header and
/// gzips it.
fn load_wasm(path: PathBuf, modified: Option<SystemTime>) -> Result<LoadedWasm, ApiError> {
    let io = |e: std::io::Error| {
        ApiError::Internal(format!("reading the wasm module {}: {e}", path.display()))
    };
    let file = std::fs::File::open(&path).map_err(|e| match e.kind() {
        // Removed between the stat and the open.
        std::io::ErrorKind::NotFound => ApiError::WasmMissing,
        _ => io(e),
    })?;
    let mut raw = Vec::new();
    file.take(WASM_BYTES_MAX + 1)
        .read_to_end(&mut raw)
        .map_err(io)?;
    if raw.len() as u64 > WASM_BYTES_MAX {
        return Err(too_large(raw.len() as u64));
    }
    if !raw.starts_with(&WASM_HEADER) {
        return Err(ApiError::WasmUnusable {
            what: format!(
                "{WASM_FILE} ({} bytes) is not a WebAssembly module (no `\\0asm` version 1 \
                 header)",
                raw.len()
            ),
        });
    }
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(raw.len() / 2),
        flate2::Compression::best(),
    );
    encoder.write_all(&raw).map_err(io)?;
    let gzip = encoder.finish().map_err(io)?;
    let etag = HeaderValue::from_str(&content_tag(&raw))
        .map_err(|e| ApiError::Internal(format!("wasm ETag: {e}")))?;
    Ok(LoadedWasm {
        path,
        modified,
        raw: Bytes::from(raw),
        gzip: Bytes::from(gzip),
        etag,
    })
}

/// Whether a request's `Accept-Encoding` takes gzip: `gzip` (or `x-gzip`) listed with a
/// nonzero quality, or `*` with one and gzip not listed.
pub fn accepts_gzip(headers: &HeaderMap) -> bool {
    let (mut gzip, mut any) = (None, None);
    for item in headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
    {
        let mut parts = item.split(';');
        let coding = parts.next().unwrap_or("").trim();
        // `q=0`, `q=0.0`, `q=0.000` refuse; any nonzero digit accepts; no `q` is 1.
        let accepted = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .next_back()
            .is_none_or(|q| q.trim().bytes().any(|b| (b'1'..=b'9').contains(&b)));
        if coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") {
            gzip = Some(accepted);
        } else if coding == "*" {
            any = Some(accepted);
        }
    }
    gzip.or(any).unwrap_or(false)
}

/// The simulation core compiled to WebAssembly (pogo-ffi, `--profile wasm-release`), which
/// `pogo.mjs` loads. Gzipped when the request accepts gzip.
#[utoipa::path(get, path = "/web/pogo_ffi.wasm", tag = "web",
    responses(
        (status = 200, description = "The module (`Content-Encoding: gzip` when accepted)", content_type = "application/wasm", body = Vec<u8>),
        (status = 304, description = "Not modified (If-None-Match)"),
        (status = 404, description = "Not built (`wasm_missing`): the message says how to build it", body = crate::error::ErrorBody),
        (status = 503, description = "Over the size limit or not WebAssembly (`wasm_unusable`): built with the wrong profile", body = crate::error::ErrorBody),
    ))]
pub async fn wasm(
    State(wasm): State<Arc<WasmModules>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    serve_wasm(&wasm.plain, &headers).await
}

/// The same module built with the wide-arithmetic proposal's multiplies (`--profile
/// wasm-wide`, `scripts/build-wasm.sh`), which the page loads where the browser validates
/// them: the same bits, faster. Gzipped when the request accepts gzip.
#[utoipa::path(get, path = "/web/pogo_ffi_wide.wasm", tag = "web",
    responses(
        (status = 200, description = "The module (`Content-Encoding: gzip` when accepted)", content_type = "application/wasm", body = Vec<u8>),
        (status = 304, description = "Not modified (If-None-Match)"),
        (status = 404, description = "Not built (`wasm_missing`): the page loads `/web/pogo_ffi.wasm` instead", body = crate::error::ErrorBody),
        (status = 503, description = "Over the size limit or not WebAssembly (`wasm_unusable`): built with the wrong profile", body = crate::error::ErrorBody),
    ))]
pub async fn wasm_wide(
    State(wasm): State<Arc<WasmModules>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    serve_wasm(&wasm.wide, &headers).await
}

async fn serve_wasm(wasm: &WasmModule, headers: &HeaderMap) -> Result<Response, ApiError> {
    let module = wasm.current().await?;
    let vary = (header::VARY, HeaderValue::from_static("accept-encoding"));
    let common = common_headers(module.etag.clone());
    let tag = module.etag.to_str().unwrap_or_default();
    if not_modified(headers, tag) {
        return Ok((StatusCode::NOT_MODIFIED, common, [vary]).into_response());
    }
    let content_type = (header::CONTENT_TYPE, HeaderValue::from_static(WASM));
    if accepts_gzip(headers) {
        // Sent with its `Content-Encoding`, which the compression layer never compresses
        // again.
        let encoding = (header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        Ok((common, [vary, content_type, encoding], module.gzip.clone()).into_response())
    } else {
        Ok((common, [vary, content_type], module.raw.clone()).into_response())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of the files under `dir` (`server/web/`), with the files of its folders as
    /// `folder/NAME`; a folder within a folder is an error (no route serves it).
    fn files_on_disk(dir: &FsPath) -> Vec<String> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            if entry.file_type().unwrap().is_dir() {
                for inner in std::fs::read_dir(entry.path()).unwrap() {
                    let inner = inner.unwrap();
                    assert!(
                        inner.file_type().unwrap().is_file(),
                        "{:?}: no route serves a folder in a folder",
                        inner.path()
                    );
                    let file = inner.file_name().into_string().unwrap();
                    names.push(format!("{name}/{file}"));
                }
            } else {
                names.push(name);
            }
        }
        names.sort();
        names
    }

    #[test]
    fn every_file_of_the_web_directory_is_embedded_once() {
        let crate_dir = FsPath::new(env!("CARGO_MANIFEST_DIR"));
        let on_disk = files_on_disk(&crate_dir.join("web"));
        let mut embedded: Vec<String> = ASSETS
            .iter()
            .filter_map(|a| a.source.strip_prefix("web/"))
            .map(str::to_string)
            .collect();
        embedded.sort();
        assert_eq!(embedded, on_disk);
        let mut names: Vec<&str> = ASSETS.iter().map(|a| a.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ASSETS.len(), "a name served twice");
        for asset in ASSETS {
            if let Some(name) = asset.source.strip_prefix("web/") {
                assert_eq!(
                    asset.name, name,
                    "a file of web/ is served under its own name"
                );
            }
            assert!(crate_dir.join(asset.source).is_file(), "{}", asset.source);
            let file = asset.name.rsplit('/').next().unwrap();
            let expected = match file.rsplit_once('.').map(|(_, ext)| ext) {
                Some("html") => HTML,
                Some("js" | "mjs") => JS,
                Some("css") => CSS,
                None if file == "LICENSE" => TEXT,
                other => panic!("{}: no content type for {other:?}", asset.name),
            };
            assert_eq!(asset.content_type, expected, "{}", asset.name);
        }
        assert!(ASSETS.iter().any(|a| a.name == "pogo.mjs"));
    }

    #[test]
    fn the_page_never_parses_api_text_as_html() {
        // Every string from the API goes in as text (dom.js's `el`); none of the ways to
        // parse a string as HTML appears in the page's code — ours: the page's modules and
        // pogo.mjs. The vendored three.js is not our code (its FileLoader can parse a
        // document, which the page never asks of it); scripts/vendor-three.sh refuses a copy
        // with `eval(` or `new Function`.
        let ours: Vec<&Asset> = ASSETS
            .iter()
            .filter(|a| a.content_type == JS && !a.name.starts_with("vendor/"))
            .collect();
        assert!(ours.iter().any(|a| a.name == "pogo.mjs"));
        for asset in ours {
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

    #[test]
    fn gzip_is_taken_only_when_accepted() {
        let accepts = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(
                header::ACCEPT_ENCODING,
                HeaderValue::from_str(value).unwrap(),
            );
            accepts_gzip(&headers)
        };
        assert!(!accepts_gzip(&HeaderMap::new()));
        for yes in [
            "gzip",
            "GZIP",
            "gzip, deflate, br, zstd",
            "br;q=1.0, gzip;q=0.8, *;q=0.1",
            "x-gzip",
            "*",
            "gzip;q=0.001",
            "identity, *;q=0.5",
        ] {
            assert!(accepts(yes), "{yes}");
        }
        for no in [
            "",
            "identity",
            "br, deflate",
            "gzip;q=0",
            "gzip;q=0.000, br",
            "*, gzip;q=0",
            "*;q=0",
            "gzipx",
        ] {
            assert!(!accepts(no), "{no}");
        }
    }

    #[test]
    fn the_policy_allows_webassembly_but_not_eval() {
        let script_src = CONTENT_SECURITY_POLICY
            .split(';')
            .map(str::trim)
            .find(|d| d.starts_with("script-src "))
            .unwrap();
        assert_eq!(script_src, "script-src 'self' 'wasm-unsafe-eval'");
        assert!(!CONTENT_SECURITY_POLICY.contains("'unsafe-eval'"));
    }

    #[test]
    fn the_wide_module_is_looked_for_beside_the_other() {
        let configured = PathBuf::from("/srv/pogo/core.wasm");
        let modules = WasmModules::new(Some(configured.clone()));
        assert_eq!(modules.plain.candidates(), [configured]);
        assert_eq!(
            modules.wide.candidates(),
            [PathBuf::from("/srv/pogo/pogo_ffi_wide.wasm")]
        );
        let defaults = WasmModules::new(None);
        let plain = defaults.plain.candidates();
        let wide = defaults.wide.candidates();
        assert_eq!(plain.len(), wide.len());
        for (p, w) in plain.iter().zip(&wide) {
            assert_eq!(p.parent(), w.parent());
            assert!(
                w.ends_with("wasm-release/pogo_ffi_wide.wasm"),
                "{}",
                w.display()
            );
        }
    }

    #[test]
    fn the_default_module_paths_end_in_the_wasm_release_build() {
        let paths = default_wasm_paths();
        assert_eq!(paths.len(), 2);
        for path in paths {
            assert!(
                path.ends_with("wasm32-unknown-unknown/wasm-release/pogo_ffi.wasm"),
                "{}",
                path.display()
            );
        }
    }
}
