//! The floor a live relay stands on: `pogo-loadgen bare-relay`, a WebSocket relay on
//! pogo-server's own stack (tokio, axum's WebSocket, mimalloc as the allocator, one reading
//! task and one writing task a member, what a member is sent coalesced into one flush after
//! the woken readers have run, the same socket settings) that does nothing but forward each
//! binary frame to the other members of its room — no hello, no judgment, no re-simulation,
//! no journal, no view.
//! `pogo-loadgen live --bare` races the same streams through it after each wave through
//! pogo-server, its rooms starting at the offsets of that wave's GOs, so that the two costs
//! per frame sit side by side from one sitting and one arrival pattern.
//!
//! A bare racer's frame is its stream message with the time it was sent (µs since the Unix
//! epoch, 8 bytes little-endian) in front: latency is arrival minus that (one clock, one
//! machine), the relay's work plus two loopback hops where pogo-server's figure has one.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::get;
use axum::serve::ListenerExt;
use clap::Args;
use futures_util::{SinkExt, StreamExt};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message as ClientMessage;

use pogo_server::live::now_us;
use pogo_server::live::socket::{READ_BUFFER_BYTES, socket_config};

/// Frames waiting for one member's writer; a member this far behind loses frames (the floor
/// closes nobody: it has no rules).
const OUTBOX_MAX: usize = 1024;

#[derive(Debug, Args)]
pub struct BareArgs {
    /// Where to listen (loopback).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: String,
}

/// The members of one room: an id and an outbox each.
type Members = Arc<Mutex<Vec<(u64, mpsc::Sender<Bytes>)>>>;

#[derive(Clone, Default)]
struct Rooms {
    rooms: Arc<Mutex<HashMap<String, Members>>>,
    next_id: Arc<AtomicU64>,
}

/// Serves the bare relay until killed; prints the address it listens on.
pub fn serve(args: BareArgs) -> Result<(), String> {
    super::check_loopback(&format!("http://{}", args.listen))?;
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .map_err(|e| format!("{}: {e}", args.listen))?;
        let address = listener.local_addr().map_err(|e| e.to_string())?;
        println!("listening on http://{address}");
        // No Nagle, as pogo-server's accept loop (`serve.rs`): a relay goes at once.
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let app = Router::new()
            .route("/healthz", get(|| async { "ok" }))
            .route("/bare/{room}", get(upgrade))
            .with_state(Rooms::default());
        axum::serve(listener, app).await.map_err(|e| e.to_string())
    })
}

async fn upgrade(
    ws: WebSocketUpgrade,
    Path(room): Path<String>,
    State(rooms): State<Rooms>,
) -> Response {
    ws.read_buffer_size(READ_BUFFER_BYTES)
        .on_upgrade(move |socket| member(socket, room, rooms))
}

/// One member: every binary frame it sends goes to every other member of its room.
async fn member(socket: WebSocket, room: String, rooms: Rooms) {
    let (sink, mut stream) = socket.split();
    let (out, outbox) = mpsc::channel(OUTBOX_MAX);
    let id = rooms.next_id.fetch_add(1, Ordering::Relaxed);
    let members = {
        let mut all = lock(&rooms.rooms);
        all.entry(room.clone()).or_default().clone()
    };
    lock(&members).push((id, out));
    let writer = tokio::spawn(write(sink, outbox));
    while let Some(Ok(message)) = stream.next().await {
        match message {
            Message::Binary(frame) => {
                for (other, out) in lock(&members).iter() {
                    if *other != id {
                        let _ = out.try_send(frame.clone());
                    }
                }
            }
            Message::Close(_) => break,
            _ => {}
        }
    }
    let empty = {
        let mut members = lock(&members);
        members.retain(|(other, _)| *other != id);
        members.is_empty()
    };
    if empty {
        lock(&rooms.rooms).remove(&room);
    }
    let _ = writer.await;
}

/// Writes what the member is sent: everything already queued, then one flush.
async fn write(
    mut sink: futures_util::stream::SplitSink<WebSocket, Message>,
    mut outbox: mpsc::Receiver<Bytes>,
) {
    while let Some(first) = outbox.recv().await {
        // As pogo-server's writer (`socket.rs`): the readers already woken run first.
        tokio::task::yield_now().await;
        if sink.feed(Message::Binary(first)).await.is_err() {
            return;
        }
        while let Ok(next) = outbox.try_recv() {
            if sink.feed(Message::Binary(next)).await.is_err() {
                return;
            }
        }
        if sink.flush().await.is_err() {
            return;
        }
    }
    let _ = sink.close().await;
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What one bare racer saw: relay latencies (µs) and how late it sent (µs).
#[derive(Default)]
pub struct BareSeen {
    pub relay_us: Vec<u32>,
    pub lag_us: Vec<u32>,
    pub failure: Option<String>,
}

/// One wave through the bare relay at `base`: `racers` racers in rooms of `room_size`, each
/// sending `frames` (bytes, µs after its room's GO), each reading every other member's
/// frames. Connects everyone first, then sets GO half a second on, room `r` starting
/// `starts_us[r]` later (the last given, for rooms past the list). The live load generator
/// passes the offsets of the GOs pogo-server set in the same wave: set room by room as the
/// racers get ready, they fall in most milliseconds of a span of about a tenth of a second,
/// and the rooms' frames arrive as spread as pogo-server's did. All zeros put every frame
/// of a tick in one burst, which lets the relay handle many in one wake-up.
pub async fn wave(
    base: &str,
    wave: usize,
    racers: usize,
    room_size: usize,
    starts_us: &[i64],
    frames: Arc<Vec<(Vec<u8>, i64)>>,
) -> Result<Vec<BareSeen>, String> {
    let ws = base.replacen("http", "ws", 1);
    let mut sockets = Vec::with_capacity(racers);
    for i in 0..racers {
        let url = format!("{ws}/bare/w{wave}-r{}", i / room_size);
        let config = Some(socket_config());
        let (socket, _) = tokio_tungstenite::connect_async_with_config(url.as_str(), config, true)
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        let in_room = room_size.min(racers - i / room_size * room_size);
        sockets.push((socket, in_room, i / room_size));
    }
    let go_us = now_us() + 500_000;
    let tasks: Vec<_> = sockets
        .into_iter()
        .map(|(socket, in_room, room)| {
            let frames = frames.clone();
            let start_us = starts_us.get(room).or(starts_us.last()).copied();
            let room_go_us = go_us + start_us.unwrap_or(0);
            tokio::spawn(async move {
                racer(socket, room_go_us, &frames, in_room)
                    .await
                    .unwrap_or_else(|failure| BareSeen {
                        failure: Some(failure),
                        ..BareSeen::default()
                    })
            })
        })
        .collect();
    let mut seen = Vec::with_capacity(racers);
    for task in tasks {
        seen.push(task.await.map_err(|e| e.to_string())?);
    }
    Ok(seen)
}

type ClientSocket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn racer(
    socket: ClientSocket,
    go_us: i64,
    frames: &[(Vec<u8>, i64)],
    in_room: usize,
) -> Result<BareSeen, String> {
    let (mut tx, mut rx) = socket.split();
    let expected = frames.len() * (in_room - 1);
    let sender = async {
        let mut lag_us = Vec::with_capacity(frames.len());
        for (bytes, game_us) in frames {
            let due = go_us + game_us;
            let wait = due - now_us();
            if wait > 0 {
                tokio::time::sleep(Duration::from_micros(wait as u64)).await;
            }
            let now = now_us();
            lag_us.push(u32::try_from((now - due).max(0)).unwrap_or(u32::MAX));
            let mut frame = Vec::with_capacity(8 + bytes.len());
            frame.extend_from_slice(&now.to_le_bytes());
            frame.extend_from_slice(bytes);
            tx.send(ClientMessage::binary(frame))
                .await
                .map_err(|e| e.to_string())?;
        }
        Ok::<_, String>((lag_us, tx))
    };
    let reader = async {
        let mut relay_us = Vec::with_capacity(expected);
        while relay_us.len() < expected {
            let next = tokio::time::timeout(Duration::from_secs(60), rx.next())
                .await
                .map_err(|_| "the bare relay went silent".to_string())?;
            match next {
                Some(Ok(ClientMessage::Binary(frame))) if frame.len() >= 8 => {
                    let mut sent = [0u8; 8];
                    sent.copy_from_slice(&frame[..8]);
                    let latency = now_us() - i64::from_le_bytes(sent);
                    relay_us.push(u32::try_from(latency.max(0)).unwrap_or(u32::MAX));
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e.to_string()),
                None => return Err("the bare relay closed".into()),
            }
        }
        Ok(relay_us)
    };
    let (sent, read) = tokio::join!(sender, reader);
    let (lag_us, mut tx) = sent?;
    let relay_us = read?;
    let _ = tx.close().await;
    Ok(BareSeen {
        relay_us,
        lag_us,
        failure: None,
    })
}
