//! One member's WebSocket: the `hello` handshake, then a reader that stamps each message on
//! arrival and hands it to the room (the room handles it there and then, on the reader's
//! task: [`RoomHandle::deliver`]), and a writer that sends what the room queues for the
//! member. A connection that floods (over [`limits::MESSAGES_PER_SECOND_MAX`]), sends a frame
//! too large for any message, or does not say hello in time is closed with the reason.
//!
//! Test only: with [`Latency`] set, every message waits `base ± jitter` ms on the server's
//! side of the socket both ways, in order, as if the network had delayed it; messages are
//! stamped after the wait.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use governor::{Quota, RateLimiter};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::command::{Command, Joining, Outbox, Outgoing, Queued};
use super::room::RoomHandle;
use super::wire::{LiveClientMessage, Role, STREAM_MESSAGE_BYTES_MAX};
use super::{Close, Latency, LiveContext, limits, now_us};
use crate::auth::{self, TokenRefused};
use crate::store::PlayerRow;

/// Numbers connections (a room's `ConnId`s are unique in the process).
static CONNECTIONS: AtomicU64 = AtomicU64::new(1);

/// The largest frame a member may send: a text message; a stream message is smaller.
pub const FRAME_BYTES_MAX: usize = limits::TEXT_MESSAGE_BYTES_MAX;

/// The most bytes one read of a live socket takes in, on either side (the server's sockets,
/// the proxy's and the protocol's client's). tungstenite zero-fills its read buffer's free
/// space before every read, so its default of 128 KiB cost a 128 KiB `memset` for each
/// wake-up that read one 20-byte message: about as much CPU as the rest of the frame. A
/// larger frame (a backlog) is read in several reads.
pub const READ_BUFFER_BYTES: usize = 4 * 1024;

/// The WebSocket settings of a live socket the server or the client opens (`tungstenite`'s).
pub fn socket_config() -> tokio_tungstenite::tungstenite::protocol::WebSocketConfig {
    tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
        .read_buffer_size(READ_BUFFER_BYTES)
}
const _: () = assert!(STREAM_MESSAGE_BYTES_MAX <= FRAME_BYTES_MAX);

/// Serves one member of `room` on `socket` until either side closes.
pub async fn serve(socket: WebSocket, ctx: Arc<LiveContext>, room: RoomHandle) {
    let conn = CONNECTIONS.fetch_add(1, Ordering::Relaxed);
    let latency = ctx.settings.latency;
    let (sink, mut stream) = socket.split();
    let (queue, outbox) = mpsc::channel::<Queued>(limits::MEMBER_OUTBOX_MAX);
    let out = Outbox {
        queue,
        stamped: latency.is_some(),
    };
    // The writer says when it has sent a close (the room's, or the reader's).
    let (closed_tx, mut closed) = oneshot::channel::<()>();
    let writer = tokio::spawn(write(sink, outbox, latency, conn, closed_tx));
    let joined = match hello(&mut stream, &ctx).await {
        Ok(joining) => join(&room, conn, joining, out.clone()).await,
        Err(why) => Err(why),
    };
    if let Err(why) = joined {
        let _ = out.queue.send((out.stamp(), Outgoing::Close(why))).await;
        drop(out);
        let _ = writer.await;
        return;
    }
    let why = tokio::select! {
        why = read(&mut stream, &room, conn, latency) => why,
        _ = &mut closed => None,
    };
    if let Some(why) = why {
        let _ = out.push(Outgoing::Close(why));
    }
    // Read on (and drop) what the member still sends until it answers the close: a socket
    // shut with unread bytes is reset, and the close frame with its reason lost. A member who
    // never answers is dropped after the drain's bound.
    let drain = async { while let Some(Ok(_)) = stream.next().await {} };
    let _ = tokio::time::timeout(limits::CLOSE_DRAIN, drain).await;
    room.deliver(Command::Gone { conn });
    drop(out);
    let _ = writer.await;
}

/// The member's `hello`: who they are.
async fn hello(
    stream: &mut futures_util::stream::SplitStream<WebSocket>,
    ctx: &LiveContext,
) -> Result<(Role, Option<PlayerRow>, Option<String>), Close> {
    let first = tokio::time::timeout(limits::HELLO_TIMEOUT, stream.next())
        .await
        .map_err(|_| Close::HelloTimeout)?;
    let Some(Ok(Message::Text(text))) = first else {
        return Err(Close::NotHello);
    };
    let message: LiveClientMessage =
        serde_json::from_str(text.as_str()).map_err(|e| Close::Malformed(e.to_string()))?;
    let LiveClientMessage::Hello {
        role,
        token,
        resume,
    } = message
    else {
        return Err(Close::NotHello);
    };
    let player = match token {
        None => None,
        Some(token) => Some(player_of(ctx, &token).await?),
    };
    Ok((role, player, resume))
}

/// The token's player (not hidden: [`auth::player_of_token`]), or why not as the socket
/// closes.
async fn player_of(ctx: &LiveContext, token: &str) -> Result<PlayerRow, Close> {
    let refused = |refused| {
        Close::BadToken(match refused {
            TokenRefused::NotAPlayerToken => "not a player token".into(),
            TokenRefused::Unknown => "no player has it".into(),
            TokenRefused::Hidden { name } => format!("{name} is hidden"),
            TokenRefused::Store(e) => e.to_string(),
        })
    };
    auth::player_of_token(&ctx.store, token)
        .await
        .map_err(refused)
}

async fn join(
    room: &RoomHandle,
    conn: u64,
    (role, player, resume): (Role, Option<PlayerRow>, Option<String>),
    out: Outbox,
) -> Result<(), Close> {
    let (done, answer) = oneshot::channel();
    let joining = Joining {
        role,
        player,
        resume,
        out,
    };
    if !room.deliver(Command::Join {
        conn,
        joining,
        done,
    }) {
        return Err(Close::Over);
    }
    answer.await.map_err(|_| Close::Over)?
}

/// Reads the member's messages into the room until the socket ends; `Some` if this side
/// closes it (the reason). With injected latency the messages go through a delay line (a
/// task of their own), so that one message's wait never holds up reading the next: each
/// waits its own delay from when it was read, as a slow network would delay it, in order.
async fn read(
    stream: &mut futures_util::stream::SplitStream<WebSocket>,
    room: &RoomHandle,
    conn: u64,
    latency: Option<Latency>,
) -> Option<Close> {
    if latency.is_none() {
        return read_frames(stream, &Forward::Room(room.clone()), conn).await;
    }
    let (line, queued) = mpsc::channel(limits::ROOM_INBOX_MAX);
    let delay = Delay::new(latency, conn);
    let forwarding = tokio::spawn(delay_line(queued, room.clone(), delay));
    let why = read_frames(stream, &Forward::Line(line), conn).await;
    // Everything read before the end reaches the room before the connection is gone.
    let _ = forwarding.await;
    why
}

/// Where the reader hands a member's commands: the room, or the delay line before it.
enum Forward {
    Room(RoomHandle),
    Line(mpsc::Sender<(Instant, Command)>),
}

impl Forward {
    /// `false` when the room is gone.
    async fn send(&self, command: Command) -> bool {
        match self {
            Forward::Room(room) => room.deliver(command),
            Forward::Line(line) => line.send((Instant::now(), command)).await.is_ok(),
        }
    }
}

/// The test-only delay line: each command handed to the room `delay` after it was read (order
/// kept); a stream message is stamped when it is handed on, after its wait.
async fn delay_line(
    mut queued: mpsc::Receiver<(Instant, Command)>,
    room: RoomHandle,
    mut delay: Delay,
) {
    while let Some((read_at, mut command)) = queued.recv().await {
        delay.wait(Some(read_at)).await;
        if let Command::Binary { received_us, .. } = &mut command {
            *received_us = now_us();
        }
        if !room.deliver(command) {
            return;
        }
    }
}

/// The reading loop: each frame checked and handed on as a command.
async fn read_frames(
    stream: &mut futures_util::stream::SplitStream<WebSocket>,
    forward: &Forward,
    conn: u64,
) -> Option<Close> {
    let per_second = NonZeroU32::new(limits::MESSAGES_PER_SECOND_MAX).unwrap_or(NonZeroU32::MIN);
    let burst = NonZeroU32::new(limits::MESSAGES_PER_SECOND_MAX * 2).unwrap_or(NonZeroU32::MIN);
    let bucket = RateLimiter::direct(Quota::per_second(per_second).allow_burst(burst));
    while let Some(frame) = stream.next().await {
        let command = match frame {
            Ok(Message::Binary(bytes)) => {
                if bytes.len() > STREAM_MESSAGE_BYTES_MAX {
                    return Some(Close::Malformed(format!(
                        "a binary message of {} bytes (at most {STREAM_MESSAGE_BYTES_MAX})",
                        bytes.len()
                    )));
                }
                if bucket.check().is_err() {
                    return Some(Close::TooFast);
                }
                Command::Binary {
                    conn,
                    bytes,
                    received_us: now_us(),
                }
            }
            Ok(Message::Text(text)) => {
                if text.len() > limits::TEXT_MESSAGE_BYTES_MAX {
                    return Some(Close::Malformed("a text message over 1 KiB".into()));
                }
                if bucket.check().is_err() {
                    return Some(Close::TooFast);
                }
                let message = match serde_json::from_str(text.as_str()) {
                    Ok(message) => message,
                    Err(e) => return Some(Close::Malformed(e.to_string())),
                };
                Command::Text { conn, message }
            }
            Ok(Message::Ping(_) | Message::Pong(_)) => continue,
            Ok(Message::Close(_)) | Err(_) => return None,
        };
        if !forward.send(command).await {
            return Some(Close::Over);
        }
    }
    None
}

/// Writes the room's messages to the member, each after the injected delay (if any) from
/// when it was queued, until a close.
async fn write(
    mut sink: futures_util::stream::SplitSink<WebSocket, Message>,
    mut outbox: mpsc::Receiver<Queued>,
    latency: Option<Latency>,
    conn: u64,
    closed: oneshot::Sender<()>,
) {
    let mut delay = Delay::new(latency, conn ^ 0x9e37_79b9_7f4a_7c15);
    // Every message already queued is written before one flush: under load a member gets
    // several relays at once, and one system call sends them all.
    while let Some(first) = outbox.recv().await {
        // Woken by the first of them, the writer lets every task already woken run first: the
        // readers of the other sockets that the same poll found ready, whose relays to this
        // member then go in the same write. A room's racers send on the same ticks, so their
        // messages arrive together; without the yield the runtime ran the writer right after
        // the first reader (it runs a task just woken next), and a member got a write for
        // each rival. (2.3 relays a write, not 1.4, and 12 % less CPU a frame:
        // PERFORMANCE.md, "The relay and its floor".)
        tokio::task::yield_now().await;
        let mut next = Some(first);
        while let Some((queued, message)) = next.take() {
            delay.wait(queued).await;
            let frame = match message {
                Outgoing::Text(text) => Message::Text(text.into()),
                Outgoing::Binary(bytes) => Message::Binary(bytes),
                Outgoing::AckThen(ack, bytes) => {
                    if sink.feed(Message::Binary(ack)).await.is_err() {
                        return;
                    }
                    Message::Binary(bytes)
                }
                Outgoing::Close(why) => {
                    let frame = CloseFrame {
                        code: why.code(),
                        reason: why.reason().into(),
                    };
                    let _ = sink.send(Message::Close(Some(frame))).await;
                    let _ = closed.send(());
                    return;
                }
            };
            if sink.feed(frame).await.is_err() {
                return;
            }
            next = outbox.try_recv().ok();
        }
        if sink.flush().await.is_err() {
            return;
        }
    }
    let _ = sink.close().await;
}

/// The injected delay of one direction of one connection: `base ± jitter` from each
/// message's time, never before the previous message's release (order is kept).
struct Delay {
    latency: Option<Latency>,
    release: Instant,
    /// SplitMix64's state: a seeded stream, one a connection and direction.
    rng: u64,
}

impl Delay {
    fn new(latency: Option<Latency>, seed: u64) -> Delay {
        Delay {
            latency,
            release: Instant::now(),
            rng: seed,
        }
    }

    async fn wait(&mut self, since: Option<Instant>) {
        let (Some(latency), Some(since)) = (self.latency, since) else {
            return;
        };
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        let span = 2 * latency.jitter_ms + 1;
        let ms = (latency.base_ms + z % span).saturating_sub(latency.jitter_ms);
        let at = since + std::time::Duration::from_millis(ms);
        self.release = self.release.max(at);
        tokio::time::sleep_until(self.release).await;
    }
}
