//! The HTTP server's connections: the accept loop, the limits each connection is held to, and
//! the bounded stop.
//!
//! - **A request's head must arrive within `--header-read-timeout-s`** (10 s by default), the
//!   first from the accept, each next one from the previous response: hyper's
//!   `header_read_timeout`, which is also the idle keep-alive timeout (hyper starts the head's
//!   timer when a kept-alive connection goes idle). A connection that sends nothing, or sends
//!   its head a byte at a time (slow-loris), is closed at the timeout.
//! - **At most `--connections-per-address-max` connections per client IP** (an IPv6 address
//!   by its /64; 256 by default, 0 for none): an extra one is closed as soon as it is accepted, unread ([`Addresses`]). An
//!   upgraded connection (a live room's WebSocket) keeps its place until it closes: the place
//!   travels inside the connection's I/O (`Counted`), which hyper hands to the upgrade.
//! - **Accept errors are backed off** ([`ACCEPT_ERROR_BACKOFF`]), logged once per burst: out of
//!   file descriptors, the loop sleeps instead of spinning. [`raise_open_files_limit`] raises
//!   the soft `nofile` limit to the hard one at start.
//! - **TCP_NODELAY** on every connection: a live room's messages are a few bytes each, and a
//!   streamed answer (the export) is written a batch at a time; Nagle's algorithm held a small
//!   write behind the previous one's delayed ack (up to 40 ms).
//! - **The stop** ([`serve`]): once `stopping` begins the listener is closed (new connections
//!   are refused by the kernel), every connection is told to finish the request it is in and
//!   close (an idle one closes at once), new uploads, rooms and tickets are answered 503 with
//!   `Retry-After` ([`stopping_layer`]), and whatever is still open when the drain time is up
//!   is dropped. Upgraded connections are not waited for: the live rooms close their own when
//!   told (`live::LiveContext::shutdown`), and the process's exit ends the rest.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tower::Service;

use crate::error::ApiError;
use crate::limits::{ACCEPT_ERROR_BACKOFF, RETRY_AFTER_STOPPING_S};
use crate::shutdown::Shutdown;

/// What the connections are held to (`Config::connection_limits`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// How long a request's head may take to arrive (and a kept-alive connection stay idle).
    pub header_read_timeout: Duration,
    /// Connections one IP may hold open (0: no cap).
    pub per_address_max: usize,
    /// From the stop's beginning to the process's exit.
    pub stop_deadline: Duration,
}

/// Serves `app` on `listener` until `stopping` begins, then drains: the listener is closed, the
/// open connections finish their requests and close, and those still open after `drain` (from
/// the stop's beginning) are dropped. Returns when no connection is left; never fails (accept
/// errors are backed off and retried).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    drain: Duration,
    mut stopping: Shutdown,
) {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    let builder = Arc::new(builder);
    let addresses = Arc::new(Addresses::new(limits.per_address_max));
    let mut make_service = app.into_make_service_with_connect_info::<SocketAddr>();
    let mut connections = JoinSet::new();
    // Accept errors in a row, and when the first of them came.
    let mut errors: Option<(u64, Instant)> = None;
    loop {
        let accepted = tokio::select! {
            () = stopping.recv() => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
            accepted = listener.accept() => accepted,
        };
        let (tcp, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) if is_connection_error(&e) => continue,
            Err(e) => {
                errors
                    .get_or_insert_with(|| {
                        tracing::warn!(error = %e, "accept error: backing off (logged once per burst)");
                        (0, Instant::now())
                    })
                    .0 += 1;
                tokio::select! {
                    () = stopping.recv() => break,
                    () = tokio::time::sleep(ACCEPT_ERROR_BACKOFF) => {}
                }
                continue;
            }
        };
        if let Some((count, since)) = errors.take() {
            tracing::warn!(
                errors = count,
                over_ms = since.elapsed().as_millis() as u64,
                "accepting again after accept errors"
            );
        }
        let Some(place) = addresses.take(peer.ip()) else {
            drop(tcp); // closed unread
            continue;
        };
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::warn!(error = %e, "cannot set TCP_NODELAY");
        }
        let service = match make_service.call(peer).await {
            Ok(service) => service,
            Err(never) => match never {},
        };
        let io = TokioIo::new(Counted { tcp, _place: place });
        let conn = builder
            .serve_connection(io, TowerToHyperService::new(service))
            .with_upgrades();
        let mut stop = stopping.clone();
        connections.spawn(async move {
            tokio::pin!(conn);
            let served = tokio::select! {
                served = conn.as_mut() => served,
                () = stop.recv() => {
                    conn.as_mut().graceful_shutdown();
                    conn.await
                }
            };
            if let Err(e) = served {
                // A header timeout, a client gone mid-request: the client's doing.
                tracing::debug!(peer = %peer, error = %e, "connection ended with an error");
            }
        });
    }
    drop(listener);
    let open = connections.len();
    tracing::info!(
        connections = open,
        drain_s = drain.as_secs_f64(),
        "stopping: no longer accepting; open connections finish their requests"
    );
    let drained = tokio::time::timeout(drain, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            connections = connections.len(),
            "stop deadline: dropping the connections still open"
        );
        connections.shutdown().await;
    }
}

/// Errors of the one connection being accepted (it was reset before `accept` returned): the
/// next accept is unaffected.
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// The open connections per client IP, and the cap.
#[derive(Debug)]
pub struct Addresses {
    max: usize,
    open: Mutex<HashMap<IpAddr, PerAddress>>,
}

#[derive(Debug, Default)]
struct PerAddress {
    open: usize,
    /// Connections refused since the address last reached the cap.
    refused: u64,
}

impl Addresses {
    /// At most `max` open connections per IP (0: no cap).
    pub fn new(max: usize) -> Addresses {
        Addresses {
            max,
            open: Mutex::new(HashMap::new()),
        }
    }

    /// A place for one more connection from `ip`, or `None` when it holds `max` already (the
    /// first refusal at the cap is logged; the count when it drops below it).
    pub fn take(self: &Arc<Self>, ip: IpAddr) -> Option<Place> {
        if self.max == 0 {
            return Some(Place(None));
        }
        let ip = address_key(ip);
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = open.entry(ip).or_default();
        if entry.open >= self.max {
            if entry.refused == 0 {
                tracing::warn!(
                    address = %ip,
                    max = self.max,
                    "connections refused: the address holds the most it may (logged once \
                     until it holds fewer)"
                );
            }
            entry.refused += 1;
            return None;
        }
        entry.open += 1;
        Some(Place(Some((self.clone(), ip))))
    }

    /// Connections `ip` holds open (with the others of its IPv6 /64).
    pub fn open(&self, ip: IpAddr) -> usize {
        let open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.get(&address_key(ip)).map_or(0, |entry| entry.open)
    }

    fn release(&self, ip: IpAddr) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(entry) = open.get_mut(&ip) else {
            return;
        };
        entry.open = entry.open.saturating_sub(1);
        if entry.refused > 0 {
            tracing::info!(
                address = %ip,
                refused = entry.refused,
                "the address holds fewer connections than the cap again"
            );
            entry.refused = 0;
        }
        if entry.open == 0 {
            open.remove(&ip);
        }
    }
}

/// The address a connection counts against: an IPv4 address (also when mapped into IPv6) as
/// it is; an IPv6 address by its /64, the block one subscriber is given (any of its 2^64
/// addresses is theirs to use, so a cap per IPv6 address would be no cap).
fn address_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into()),
        },
    }
}

/// One connection's place among its address's (given back when dropped).
#[derive(Debug)]
pub struct Place(Option<(Arc<Addresses>, IpAddr)>);

impl Drop for Place {
    fn drop(&mut self) {
        if let Some((addresses, ip)) = self.0.take() {
            addresses.release(ip);
        }
    }
}

/// A connection's socket with its [`Place`]: the place lasts as long as the socket, through
/// an upgrade to a WebSocket.
#[derive(Debug)]
struct Counted {
    tcp: TcpStream,
    _place: Place,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }
}

/// While the server stops: a new upload (`POST /api/runs`), room (`POST
/// /api/levels/{level}/rooms`) or ticket (`POST /api/levels/{level}/tickets`) is answered 503
/// `busy` with `Retry-After` ([`RETRY_AFTER_STOPPING_S`]) and "the server is stopping"; every
/// response says `Connection: close`. At any time, an error answered to a request that has a
/// body says `Connection: close` too: the body may be unread (a 503 or 413 comes before it is
/// read), and then hyper closes the connection after the response; the header tells the
/// client so, instead of its next request on the connection failing.
pub async fn stopping_layer(
    State(stopping): State<Shutdown>,
    request: Request,
    next: Next,
) -> Response {
    let has_body = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .is_some_and(|length| length.as_bytes() != b"0")
        || request.headers().contains_key(header::TRANSFER_ENCODING);
    let mut response = if stopping.is_shutdown() && is_new_work(&request) {
        ApiError::Busy {
            what: "the server is stopping",
            retry_after_s: RETRY_AFTER_STOPPING_S,
        }
        .into_response()
    } else {
        next.run(request).await
    };
    let status = response.status();
    let close = status != StatusCode::SWITCHING_PROTOCOLS
        && (stopping.is_shutdown()
            || (has_body && (status.is_client_error() || status.is_server_error())));
    if close {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// Whether `request` starts something a stopping server should not: an upload, a room, a
/// ticket.
fn is_new_work(request: &Request) -> bool {
    if request.method() != Method::POST {
        return false;
    }
    let path = request.uri().path();
    if path == "/api/runs" {
        return true;
    }
    let Some(rest) = path.strip_prefix("/api/levels/") else {
        return false;
    };
    match rest.split_once('/') {
        Some((level, what)) => !level.is_empty() && (what == "rooms" || what == "tickets"),
        None => false,
    }
}

/// Raises this process's soft limit on open files to its hard limit (the default soft limit,
/// 1 024, is a thousand idle connections); returns both limits, as they were and as they are.
#[cfg(unix)]
pub fn raise_open_files_limit() -> io::Result<OpenFiles> {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let before = getrlimit(Resource::Nofile);
    let mut raised = before;
    raised.current = before.maximum;
    if raised.current != before.current {
        setrlimit(Resource::Nofile, raised)?;
    }
    let after = getrlimit(Resource::Nofile);
    Ok(OpenFiles {
        soft_before: before.current,
        soft: after.current,
        hard: after.maximum,
    })
}

/// The open-files limits (`None`: unlimited).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenFiles {
    pub soft_before: Option<u64>,
    pub soft: Option<u64>,
    pub hard: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_at_most_the_cap_and_gets_its_places_back() {
        let addresses = Arc::new(Addresses::new(2));
        let (a, b): (IpAddr, IpAddr) = ("127.0.0.2".parse().unwrap(), "::1".parse().unwrap());
        let first = addresses.take(a).unwrap();
        let second = addresses.take(a).unwrap();
        assert!(addresses.take(a).is_none(), "the third from one address");
        assert!(addresses.take(b).is_some(), "another address has its own");
        assert_eq!(addresses.open(a), 2);
        drop(first);
        assert_eq!(addresses.open(a), 1);
        let third = addresses.take(a).unwrap();
        drop((second, third));
        assert_eq!(addresses.open(a), 0);
        assert!(addresses.open.lock().unwrap().is_empty(), "forgotten at 0");
        // One IPv6 /64 is one address; an IPv4 address mapped into IPv6 is the IPv4 one.
        let (v6a, v6b): (IpAddr, IpAddr) = (
            "2001:db8:1:2::7".parse().unwrap(),
            "2001:db8:1:2:ffff::9".parse().unwrap(),
        );
        let _six = (addresses.take(v6a).unwrap(), addresses.take(v6b).unwrap());
        assert!(addresses.take("2001:db8:1:2::1".parse().unwrap()).is_none());
        assert!(addresses.take("2001:db8:1:3::1".parse().unwrap()).is_some());
        let _four = (addresses.take(a).unwrap(), addresses.take(a).unwrap());
        assert!(
            addresses
                .take("::ffff:127.0.0.2".parse().unwrap())
                .is_none()
        );
        let unlimited = Arc::new(Addresses::new(0));
        let places: Vec<Place> = (0..1000).map(|_| unlimited.take(a).unwrap()).collect();
        assert_eq!(places.len(), 1000);
    }

    #[test]
    fn new_work_is_uploads_rooms_and_tickets() {
        let request = |method: Method, path: &str| {
            Request::builder()
                .method(method)
                .uri(path)
                .body(axum::body::Body::empty())
                .unwrap()
        };
        for path in [
            "/api/runs",
            "/api/levels/flat/rooms",
            "/api/levels/flat/tickets",
        ] {
            assert!(is_new_work(&request(Method::POST, path)), "{path}");
            assert!(!is_new_work(&request(Method::GET, path)), "GET {path}");
        }
        for path in [
            "/api/players",
            "/api/levels//rooms",
            "/api/levels/flat/leaderboard",
            "/api/tickets/1/commits",
            "/api/runs/1",
        ] {
            assert!(!is_new_work(&request(Method::POST, path)), "{path}");
        }
    }
}
