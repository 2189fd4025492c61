//! The live rooms' limits, each with why. What a racer or a room may hold is bounded before
//! anything is trusted: a page is hostile like any other client.

use std::time::Duration;

/// Racers in one room (the 1 to 8; the page draws eight colours).
pub const ROOM_RACERS_MAX: usize = 8;

/// Spectators in one room: each is relayed every racer's stream, so a room's relay work is
/// `(racers + spectators) × racers` messages per input.
pub const ROOM_SPECTATORS_MAX: usize = 32;

/// Rooms one process holds. Each costs a task, a few KiB while in the lobby and up to
/// [`RACER_MESSAGES_MAX`] relayed messages a racer while racing.
pub const ROOMS_MAX: usize = 4096;

/// The countdown from every racer ready to GO (ms): the page's 3 s countdown.
pub const COUNTDOWN_MS: i64 = 3000;

/// The longest race from GO (ms): ten minutes, as the play view's run limit. Then the
/// racers still out are out of time (their runs kept, unranked) and the room is over.
pub const RACE_MS_MAX: i64 = 600_000;

/// How long a racer cut off mid-race may take to come back (resume with their key) before
/// they are cut for good: long enough for a reload or a Wi-Fi hiccup.
pub const RESUME_GRACE: Duration = Duration::from_secs(15);

/// How long a racer whose page said it was going away (`away`: closed or reloading) may take
/// to take their seat back before they have left: a reload of the page, core included.
pub const AWAY_GRACE: Duration = Duration::from_secs(5);

/// How long a lobby may stand empty before the room closes.
pub const LOBBY_EMPTY_MAX: Duration = Duration::from_secs(120);

/// How long a room stays after its race is over (its result shown to late viewers; the
/// room's row and its runs stay in the database after).
pub const ROOM_LINGER: Duration = Duration::from_secs(60);

/// Messages one racer's stream may hold: 80 a second over a race of [`RACE_MS_MAX`] (a page
/// sends ten heartbeats a second and an input change per frame at most; a stick or touch
/// moving every 60 Hz frame is 70 a second). About 1.3 MiB of relayed frames at most.
pub const RACER_MESSAGES_MAX: usize = 80 * 600;

/// Messages one connection may send a second, sustained (a token bucket with a burst of
/// twice that): a page sends an input change per frame at most and a heartbeat a few times a
/// second, so 240 Hz frames with a change every frame fit.
pub const MESSAGES_PER_SECOND_MAX: u32 = 300;

/// The largest text message (JSON control) a member may send, bytes.
pub const TEXT_MESSAGE_BYTES_MAX: usize = 1024;

/// Time to say hello after the socket opens.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a connection the server closes is read on (and what it sends dropped) for the
/// member to answer the close, so the close frame and its reason are not lost to a reset.
pub const CLOSE_DRAIN: Duration = Duration::from_secs(2);

/// The room's own events (filing, the journal) waiting for its task: beyond it, their sender
/// waits (backpressure). A member's messages do not queue: the reader hands them over itself.
pub const ROOM_INBOX_MAX: usize = 1024;

/// Messages waiting to be written to one member: a member whose queue is full is too slow
/// for the room and is closed. Over a second of a full room's relay at the most messages a
/// racer may send (a member catching up gets the stream so far as one message a racer).
pub const MEMBER_OUTBOX_MAX: usize = 4096;

/// A process writes the rows of its rooms that changed this often, all in one transaction.
pub const ROOM_WRITE_INTERVAL: Duration = Duration::from_millis(500);

/// …and every room's row this often while it lives (the list of races in progress shows
/// rows written within [`ROOM_LISTED_FOR`]): a thousand rooms cost one transaction of a
/// thousand small updates every two seconds.
pub const ROOM_HEARTBEAT: Duration = Duration::from_secs(2);

/// A room row in progress not written for this long has lost its home (the process died, or
/// stopped and handed it over): any process takes it up (`journal.rs`). Three heartbeats, so
/// a home whose database writes stall for a few seconds keeps its rooms; well within the
/// resume grace, so its racers come back in time.
pub const ROOM_STALE: Duration = Duration::from_secs(6);

/// How often each process looks for rooms to take up.
pub const ROOM_SWEEP_INTERVAL: Duration = Duration::from_secs(2);

/// A room row not written for this long is not listed as in progress (its home died).
pub const ROOM_LISTED_FOR: Duration = Duration::from_secs(20);

/// Rooms the list of races in progress shows at most.
pub const ROOMS_LISTED_MAX: i64 = 100;

// A member's outbox holds a second of a full room's relay at the most a racer may send.
const _: () = assert!(ROOM_RACERS_MAX * MESSAGES_PER_SECOND_MAX as usize <= MEMBER_OUTBOX_MAX);
// A race at the page's pace fits a racer's stream: ten heartbeats and an input a frame.
const _: () = assert!((10 + 60) * (RACE_MS_MAX as usize / 1000) <= RACER_MESSAGES_MAX);
const _: () = assert!(ROOM_HEARTBEAT.as_secs() * 2 < ROOM_LISTED_FOR.as_secs());
const _: () = assert!(ROOM_HEARTBEAT.as_secs() * 3 <= ROOM_STALE.as_secs());
const _: () =
    assert!(ROOM_STALE.as_secs() + ROOM_SWEEP_INTERVAL.as_secs() < RESUME_GRACE.as_secs());
