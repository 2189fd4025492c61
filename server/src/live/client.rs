//! A live room's client in Rust, as a page is one in JavaScript: connect, say hello, stream a
//! run, read what the room sends. `pogo-loadgen live` drives racers with it, and the server's
//! tests race with it.
//!
//! [`page_stream`] turns a run's input events into the messages a page sends, in its order:
//! each event as its driver filed it, each split the tick it happens (before the heartbeat
//! that covers it), a `ran` heartbeat every [`HEARTBEAT_TICKS`] ticks; each with its game
//! time, to send it on time.

use std::sync::Arc;
use std::time::Instant;

use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use pogo_core::bot::Bot;
use pogo_core::driver::Driver;
use pogo_core::world::World;
use pogo_core::{Events, Input, Simulation, Tuning};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::wire::{self, FINISH, LiveClientMessage, LiveServerMessage, Role, Stream};

/// A page's heartbeat: a `ran` every this many ticks (100 ms at 60 Hz).
pub const HEARTBEAT_TICKS: u32 = 6;

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// What the room sent.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    Control(LiveServerMessage),
    /// A racer's message, relayed; `arrived` is when this client read it.
    Relay {
        racer: u8,
        received_us: u64,
        message: Stream,
        arrived: Instant,
    },
    /// A racer's stream so far (a late joiner's catch-up).
    Backlog {
        racer: u8,
        messages: Vec<Stream>,
    },
    /// The server holds this racer's stream up to `seq`.
    Ack(u32),
    /// The room closed the socket: the code and the reason.
    Closed {
        code: u16,
        reason: String,
    },
}

/// One member's connection: its sending and its reading half, to use together or apart
/// ([`Client::split`]).
pub struct Client {
    tx: Sender,
    rx: Receiver,
}

/// A connection's sending half.
pub struct Sender {
    sink: SplitSink<Socket, Message>,
}

/// A connection's reading half.
pub struct Receiver {
    stream: SplitStream<Socket>,
}

impl Client {
    /// Connects to room `room` of the server at `base` (`http://host:port`).
    pub async fn connect(base: &str, room: &str) -> Result<Client, String> {
        let url = format!("{}/api/rooms/{room}/socket", base.replacen("http", "ws", 1));
        // No Nagle: a relay a few bytes long goes at once, not behind the last one's ack.
        let config = Some(super::socket::socket_config());
        let (socket, _) = tokio_tungstenite::connect_async_with_config(url.as_str(), config, true)
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        let (sink, stream) = socket.split();
        Ok(Client {
            tx: Sender { sink },
            rx: Receiver { stream },
        })
    }

    /// The two halves, to send and read at once.
    pub fn split(self) -> (Sender, Receiver) {
        (self.tx, self.rx)
    }

    /// Says hello as `role`, with a player's token (or none: a guest) and a racer key to
    /// resume with.
    pub async fn hello(
        &mut self,
        role: Role,
        token: Option<&str>,
        resume: Option<&str>,
    ) -> Result<(), String> {
        self.tx
            .send(&LiveClientMessage::Hello {
                role,
                token: token.map(str::to_string),
                resume: resume.map(str::to_string),
            })
            .await
    }

    /// Sends a control message.
    pub async fn send(&mut self, message: &LiveClientMessage) -> Result<(), String> {
        self.tx.send(message).await
    }

    /// Sends a stream message.
    pub async fn stream(&mut self, message: &Stream) -> Result<(), String> {
        self.tx.stream(message).await
    }

    /// Sends any bytes as a binary message (tests send malformed ones).
    pub async fn raw(&mut self, bytes: Vec<u8>) -> Result<(), String> {
        self.tx.raw(bytes).await
    }

    /// Sends any text as a text message (tests send malformed ones).
    pub async fn raw_text(&mut self, text: &str) -> Result<(), String> {
        self.tx.send_message(Message::text(text)).await
    }

    /// The next thing the room sent; `None` when the socket ended without a close frame.
    pub async fn next(&mut self) -> Option<Event> {
        self.rx.next().await
    }

    /// Drops the connection at once, as a cut cable does (no close frame).
    pub fn cut(self) {
        drop(self);
    }
}

impl Receiver {
    /// The next thing the room sent; `None` when the socket ended without a close frame.
    pub async fn next(&mut self) -> Option<Event> {
        next_event(&mut self.stream).await
    }
}

impl Sender {
    /// Sends a control message.
    pub async fn send(&mut self, message: &LiveClientMessage) -> Result<(), String> {
        let text = serde_json::to_string(message).map_err(|e| e.to_string())?;
        self.send_message(Message::text(text)).await
    }

    /// Sends a stream message.
    pub async fn stream(&mut self, message: &Stream) -> Result<(), String> {
        self.send_message(Message::binary(message.encode())).await
    }

    /// Sends any bytes as a binary message (tests send malformed ones).
    pub async fn raw(&mut self, bytes: Vec<u8>) -> Result<(), String> {
        self.send_message(Message::binary(bytes)).await
    }

    async fn send_message(&mut self, message: Message) -> Result<(), String> {
        self.sink.send(message).await.map_err(|e| e.to_string())
    }

    /// Closes the connection with a close frame.
    pub async fn close(mut self) {
        let _ = self.sink.close().await;
    }
}

/// The next thing the room sent on `stream`.
async fn next_event(stream: &mut SplitStream<Socket>) -> Option<Event> {
    loop {
        let message = stream.next().await?.ok()?;
        let arrived = Instant::now();
        match message {
            Message::Text(text) => {
                if let Ok(message) = serde_json::from_str(text.as_str()) {
                    return Some(Event::Control(message));
                }
            }
            Message::Binary(bytes) => {
                if let Some(seq) = wire::parse_ack(&bytes) {
                    return Some(Event::Ack(seq));
                }
                if let Some((racer, received_us, message)) = wire::parse_relay(&bytes) {
                    return Some(Event::Relay {
                        racer,
                        received_us,
                        message,
                        arrived,
                    });
                }
                if let Some((racer, frames)) = wire::parse_backlog(&bytes) {
                    let messages = frames
                        .iter()
                        .filter_map(|f| wire::parse_relay(f).map(|r| r.2))
                        .collect();
                    return Some(Event::Backlog { racer, messages });
                }
            }
            Message::Close(frame) => {
                let (code, reason) = frame.map_or((1005, String::new()), |f| {
                    (f.code.into(), f.reason.as_str().to_string())
                });
                return Some(Event::Closed { code, reason });
            }
            _ => {}
        }
    }
}

/// The messages a page sends for a run with `events` (`(ns since GO, input)`, in time order)
/// on `world`, to the finish or `ticks_max`: `(message, game time in µs since GO)`.
pub fn page_stream(
    world: Arc<World>,
    tuning: &Tuning,
    events: &[(u64, Input)],
    ticks_max: u32,
) -> Vec<(Stream, i64)> {
    let rate = tuning.spec().tick_rate;
    let Ok(mut sim) = Simulation::new(world, tuning.clone(), 1) else {
        return Vec::new();
    };
    let Ok(driver) = Driver::new(rate, 1) else {
        return Vec::new();
    };
    let mut driver = driver.with_ticks_per_frame_max(1);
    let mut out: Vec<(Stream, i64)> = Vec::new();
    let mut seq = 0u32;
    let mut next = |message: &dyn Fn(u32) -> Stream, game_us: i64, out: &mut Vec<_>| {
        out.push((message(seq), game_us));
        seq += 1;
    };
    let mut seen: Vec<u32> = Vec::new();
    let mut e = 0;
    while sim.state().tick.0 < ticks_max {
        let k = sim.state().tick.0;
        // The events due by the end of the tick, pushed as a page pushes them.
        let end = driver.tick_end_ns(k);
        while e < events.len() && events[e].0 < end {
            let (at, input) = events[e];
            let filed = driver.push_event(at, 0, input).unwrap_or(at);
            let game_us = i64::try_from(filed / 1000).unwrap_or(i64::MAX);
            next(
                &|seq| Stream::Input {
                    seq,
                    at_ns: filed,
                    input,
                },
                game_us,
                &mut out,
            );
            e += 1;
        }
        driver.advance_to(end, |_, inputs| sim.step(inputs));
        let end_us = i64::try_from(end / 1000).unwrap_or(i64::MAX);
        let pogo = &sim.state().pogos[0];
        let hash = sim.state_hash();
        if pogo.events.contains(Events::CHECKPOINT) {
            if let Some(i) = pogo.checkpoint.filter(|i| !seen.contains(i)) {
                seen.push(i);
                next(
                    &|seq| Stream::Split {
                        seq,
                        tick: k,
                        checkpoint: i,
                        hash,
                    },
                    end_us,
                    &mut out,
                );
            }
        }
        if pogo.events.contains(Events::FINISH) {
            next(
                &|seq| Stream::Split {
                    seq,
                    tick: k,
                    checkpoint: FINISH,
                    hash,
                },
                end_us,
                &mut out,
            );
            break;
        }
        if k % HEARTBEAT_TICKS == HEARTBEAT_TICKS - 1 {
            next(&|seq| Stream::Ran { seq, tick: k }, end_us, &mut out);
        }
    }
    out
}

/// The demo bot's run of built-in level `level` as a page streams it ([`page_stream`]): its
/// inputs as a page's events, one a change (or with `every_tick` one every tick, at the
/// tick's start). The load generator's racers and the racer benchmark send it.
pub fn bot_page_stream(level: &str, every_tick: bool) -> Result<Vec<(Stream, i64)>, String> {
    let tuning = Tuning::default();
    let desc =
        pogo_replay::builtin_level(level).ok_or_else(|| format!("no built-in level {level}"))?;
    let world = Arc::new(World::new(desc, &tuning).map_err(|e| e.to_string())?);
    let mut sim = Simulation::new(world.clone(), tuning.clone(), 1).map_err(|e| e.to_string())?;
    let driver = Driver::new(tuning.spec().tick_rate, 1).map_err(|e| e.to_string())?;
    let mut bot = Bot::new();
    let mut events: Vec<(u64, Input)> = Vec::new();
    for tick in 0..36_000 {
        let input = bot.input(&world, &tuning, &sim.state().pogos[0]);
        if every_tick || events.last().is_none_or(|e| e.1 != input) {
            events.push((driver.tick_start_ns(tick), input));
        }
        sim.step(&[input]);
        if sim.state().pogos[0].finish_tick.is_some() {
            break;
        }
    }
    Ok(page_stream(world, &tuning, &events, 36_000))
}
