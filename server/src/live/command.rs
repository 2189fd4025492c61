//! What a room is told and what it sends: the commands to a room (from its members'
//! connections, its filing, its journal), a member's outbox, and the queue of the writers
//! (the journal's, the filings') that answer rooms. The room ([`super::room`])
//! owns the race; these, and its [`RoomHandle`](super::room::RoomHandle), are all that the
//! modules around it share with it.

use axum::body::Bytes;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::Close;
use super::wire::{LiveClientMessage, Role};
use crate::store::PlayerRow;

/// A connection's number in its room.
pub type ConnId = u64;

/// A process-wide writer's queue (the journal's, the filings'): unbounded, its receiving end
/// taken once, by the writer's task as it starts.
#[derive(Debug)]
pub struct WriterQueue<T> {
    sender: mpsc::UnboundedSender<T>,
    receiver: std::sync::Mutex<Option<mpsc::UnboundedReceiver<T>>>,
}

impl<T> Default for WriterQueue<T> {
    fn default() -> WriterQueue<T> {
        let (sender, receiver) = mpsc::unbounded_channel();
        WriterQueue {
            sender,
            receiver: std::sync::Mutex::new(Some(receiver)),
        }
    }
}

impl<T> WriterQueue<T> {
    /// Queues `item` for the writer; `false` once the writer has stopped.
    #[must_use]
    pub fn push(&self, item: T) -> bool {
        self.sender.send(item).is_ok()
    }

    /// The receiving end, for the writer's task (`None` once taken).
    pub fn take_receiver(&self) -> Option<mpsc::UnboundedReceiver<T>> {
        self.receiver.lock().ok().and_then(|mut r| r.take())
    }
}

/// What a connection's writer sends.
#[derive(Clone, Debug, PartialEq)]
pub enum Outgoing {
    Text(String),
    /// Shared, not copied, between the members a frame is relayed to.
    Binary(Bytes),
    /// A racer's held ack (`wire::Frames::ack`) and then a frame relayed to them: two
    /// WebSocket messages in one write, queued as one (`room::stream`).
    AckThen(Bytes, Bytes),
    Close(Close),
}

/// What a member's outbox carries: each message with when it was queued, if the writer
/// needs to know (injected latency, a test's: `socket.rs`).
pub type Queued = (Option<Instant>, Outgoing);

/// Where the room's messages to one member go (the member's writer sends them).
#[derive(Clone, Debug)]
pub struct Outbox {
    pub queue: mpsc::Sender<Queued>,
    /// Whether each message is stamped with when it was queued: only under injected latency
    /// (reading the clock for every relay and ack is a cost of its own).
    pub stamped: bool,
}

impl Outbox {
    /// Queues `message`; `false` if the member's outbox is full (too slow) or gone.
    pub fn push(&self, message: Outgoing) -> bool {
        self.queue.try_send((self.stamp(), message)).is_ok()
    }

    /// When a message queued now is queued, if this outbox's messages are stamped.
    pub fn stamp(&self) -> Option<Instant> {
        self.stamped.then(Instant::now)
    }
}

/// A room as the journal's writer answers it, on the writer's own task (`room::durable`
/// implements it; the writer holds it in each [`Batch`](super::journal::Batch)).
pub trait Answer: std::fmt::Debug + Send + Sync {
    /// The room's batch is committed: each racer in `acks` (their last message in it) is to
    /// be told, and the room's next batch goes to the writer. `true` if acks are left held,
    /// for the writer to send before its next commit (it sent those the last commit left
    /// before this one).
    fn journaled(&self, acks: Vec<(u8, u32)>) -> bool;
    /// Sends the acks still held: no relay has carried them since the last commit.
    fn send_held_acks(&self);
    /// Another process took the room up: its members are sent there.
    fn moved(&self);
}

/// Who asks to join.
#[derive(Debug)]
pub struct Joining {
    pub role: Role,
    /// The token's player, if a token was given and is valid.
    pub player: Option<PlayerRow>,
    /// A racer key from an earlier `welcome`.
    pub resume: Option<String>,
    /// Where the room's messages to this member go.
    pub out: Outbox,
}

/// A command to a room.
#[derive(Debug)]
pub enum Command {
    Join {
        conn: ConnId,
        joining: Joining,
        done: oneshot::Sender<Result<(), Close>>,
    },
    Text {
        conn: ConnId,
        message: LiveClientMessage,
    },
    Binary {
        conn: ConnId,
        /// The frame's payload as read (not copied).
        bytes: Bytes,
        /// When it arrived: the server's clock, Unix µs.
        received_us: i64,
    },
    Gone {
        conn: ConnId,
    },
    Filed {
        racer: u8,
        run_id: Option<i64>,
    },
    /// Another process took the room up (this one stopped writing its row in time): the
    /// members are sent there.
    Moved,
}
