//! A faulty network: GGRS's non-blocking socket wrapped so that outgoing packets are lost,
//! delayed with jitter, duplicated and reordered, all drawn from a seed.
//!
//! Faults act on the sending side, so with both peers wrapped every direction is faulty.
//! A packet that survives the loss draw is given a delay drawn uniformly from
//! `delay_ms_min..=delay_ms_max`; with probability `reorder` it is held back a further
//! [`REORDER_HOLD_MS`] so that later packets overtake it (jitter alone reorders too, whenever
//! two packets' delays differ by more than the time between them); with probability
//! `duplicate` a second copy goes out with its own delay. Delayed packets wait in a queue and
//! go out on the first socket call at or after their time (GGRS calls the socket every frame).
//!
//! Which packet is dropped depends on the seed and on the order of sends; when GGRS sends
//! depends on the wall clock, so two runs with one seed are alike, not identical. What must be
//! identical is the outcome, whatever the network does.

use std::cell::Cell;
use std::collections::BinaryHeap;
use std::fmt;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, Instant};

use ggrs::{Message, NonBlockingSocket};

use crate::rng::SplitMix64;

/// Extra hold (ms) of a packet picked for reordering.
pub const REORDER_HOLD_MS: u32 = 50;
/// Longest delay (ms) a profile may ask for: beyond GGRS's 2 s disconnect timeout every packet
/// would arrive after the peer gave up.
pub const DELAY_MS_MAX: u32 = 1000;
/// Most packets held in the delay queue; past it new packets are dropped (a real router's
/// buffer overflowing), so memory stays bounded whatever the profile.
pub const QUEUED_PACKETS_MAX: usize = 4096;

/// Parts per million: probabilities as exact integers.
pub const PPM: u32 = 1_000_000;

/// What goes wrong on the way out, and the seed that decides when.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Faults {
    /// Chance (ppm) that a packet is lost.
    pub loss_ppm: u32,
    /// Chance (ppm) that a packet is sent twice.
    pub duplicate_ppm: u32,
    /// Chance (ppm) that a packet is held back [`REORDER_HOLD_MS`] longer.
    pub reorder_ppm: u32,
    /// Shortest and longest delay (ms); `0..=0` sends at once.
    pub delay_ms_min: u32,
    pub delay_ms_max: u32,
    pub seed: u64,
}

/// A fault profile that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultsError {
    /// A probability above 1.
    Probability { what: &'static str, ppm: u32 },
    /// A delay range that is empty or too long.
    Delay { min_ms: u32, max_ms: u32 },
}

impl fmt::Display for FaultsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultsError::Probability { what, ppm } => write!(
                f,
                "{what} probability {}.{:06} is above 1",
                ppm / PPM,
                ppm % PPM
            ),
            FaultsError::Delay { min_ms, max_ms } => write!(
                f,
                "delay {min_ms}..{max_ms} ms: the range must not be empty and at most \
                 {DELAY_MS_MAX} ms"
            ),
        }
    }
}

impl std::error::Error for FaultsError {}

impl Faults {
    /// No faults: every packet goes out at once.
    pub const NONE: Faults = Faults {
        loss_ppm: 0,
        duplicate_ppm: 0,
        reorder_ppm: 0,
        delay_ms_min: 0,
        delay_ms_max: 0,
        seed: 0,
    };

    /// Checks the profile.
    pub fn check(&self) -> Result<(), FaultsError> {
        for (what, ppm) in [
            ("loss", self.loss_ppm),
            ("duplication", self.duplicate_ppm),
            ("reordering", self.reorder_ppm),
        ] {
            if ppm > PPM {
                return Err(FaultsError::Probability { what, ppm });
            }
        }
        if self.delay_ms_min > self.delay_ms_max || self.delay_ms_max > DELAY_MS_MAX {
            return Err(FaultsError::Delay {
                min_ms: self.delay_ms_min,
                max_ms: self.delay_ms_max,
            });
        }
        Ok(())
    }

    /// Whether this profile changes anything.
    pub fn is_none(&self) -> bool {
        Faults { seed: 0, ..*self } == Faults::NONE
    }
}

/// What the faulty socket did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaultStats {
    /// Packets GGRS asked to send.
    pub sent: u64,
    pub dropped: u64,
    pub duplicated: u64,
    pub reordered: u64,
    /// Packets dropped because the delay queue was full.
    pub overflowed: u64,
}

/// A packet waiting for its time.
struct Delayed {
    due: Instant,
    /// Send order, so packets due at the same instant keep it.
    seq: u64,
    addr: SocketAddr,
    message: Message,
}

impl PartialEq for Delayed {
    fn eq(&self, other: &Self) -> bool {
        (self.due, self.seq) == (other.due, other.seq)
    }
}

impl Eq for Delayed {}

impl PartialOrd for Delayed {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Delayed {
    /// Reversed: the earliest packet is the greatest, at the top of the max-heap.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (other.due, other.seq).cmp(&(self.due, self.seq))
    }
}

/// `inner` with [`Faults`] on every outgoing packet.
pub struct FaultySocket<S> {
    inner: S,
    faults: Faults,
    rng: SplitMix64,
    queue: BinaryHeap<Delayed>,
    seq: u64,
    /// Shared with whoever asked for [`FaultySocket::shared_stats`]: GGRS owns the socket.
    stats: Rc<Cell<FaultStats>>,
}

impl<S> fmt::Debug for FaultySocket<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FaultySocket")
            .field("faults", &self.faults)
            .field("queued", &self.queue.len())
            .field("stats", &self.stats.get())
            .finish_non_exhaustive()
    }
}

impl<S: NonBlockingSocket<SocketAddr>> FaultySocket<S> {
    /// Wraps `inner`; `faults` must have passed [`Faults::check`] (probabilities above 1 act
    /// as 1, a reversed delay range as its minimum).
    pub fn new(inner: S, faults: Faults) -> FaultySocket<S> {
        FaultySocket {
            inner,
            faults,
            rng: SplitMix64::new(faults.seed),
            queue: BinaryHeap::new(),
            seq: 0,
            stats: Rc::default(),
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> FaultStats {
        self.stats.get()
    }

    /// The counters, readable after the socket has been handed to a session.
    pub fn shared_stats(&self) -> Rc<Cell<FaultStats>> {
        self.stats.clone()
    }

    fn count(&self, update: impl FnOnce(&mut FaultStats)) {
        let mut stats = self.stats.get();
        update(&mut stats);
        self.stats.set(stats);
    }

    /// Queues one copy of `message` with a fresh delay (and maybe the reorder hold).
    fn schedule(&mut self, now: Instant, message: &Message, addr: &SocketAddr) {
        if self.queue.len() >= QUEUED_PACKETS_MAX {
            self.count(|s| s.overflowed += 1);
            return;
        }
        let (min, max) = (self.faults.delay_ms_min, self.faults.delay_ms_max);
        let mut delay_ms = min + self.rng.below(u64::from(max.saturating_sub(min)) + 1) as u32;
        if self.rng.chance_ppm(self.faults.reorder_ppm) {
            delay_ms += REORDER_HOLD_MS;
            self.count(|s| s.reordered += 1);
        }
        if delay_ms == 0 {
            self.inner.send_to(message, addr);
            return;
        }
        self.seq += 1;
        self.queue.push(Delayed {
            due: now + Duration::from_millis(u64::from(delay_ms)),
            seq: self.seq,
            addr: *addr,
            message: message.clone(),
        });
    }

    /// Sends every queued packet whose time has come.
    fn send_due(&mut self, now: Instant) {
        while self.queue.peek().is_some_and(|p| p.due <= now) {
            if let Some(packet) = self.queue.pop() {
                self.inner.send_to(&packet.message, &packet.addr);
            }
        }
    }
}

impl<S: NonBlockingSocket<SocketAddr>> NonBlockingSocket<SocketAddr> for FaultySocket<S> {
    fn send_to(&mut self, message: &Message, addr: &SocketAddr) {
        let now = Instant::now();
        self.send_due(now);
        self.count(|s| s.sent += 1);
        if self.rng.chance_ppm(self.faults.loss_ppm) {
            self.count(|s| s.dropped += 1);
            return;
        }
        self.schedule(now, message, addr);
        if self.rng.chance_ppm(self.faults.duplicate_ppm) {
            self.count(|s| s.duplicated += 1);
            self.schedule(now, message, addr);
        }
    }

    fn receive_all_messages(&mut self) -> Vec<(SocketAddr, Message)> {
        self.send_due(Instant::now());
        self.inner.receive_all_messages()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// A socket that keeps what it is asked to send.
    #[derive(Clone, Default)]
    struct Sink(Rc<RefCell<Vec<Message>>>);

    impl NonBlockingSocket<SocketAddr> for Sink {
        fn send_to(&mut self, message: &Message, _addr: &SocketAddr) {
            self.0.borrow_mut().push(message.clone());
        }
        fn receive_all_messages(&mut self) -> Vec<(SocketAddr, Message)> {
            Vec::new()
        }
    }

    fn addr() -> SocketAddr {
        "127.0.0.1:9".parse().unwrap()
    }

    /// Real GGRS messages, all different: each new session's first packet, a sync request
    /// with its own random number, caught by a sink instead of a network.
    fn messages(n: usize) -> Vec<Message> {
        use ggrs::{PlayerType, SessionBuilder};
        let sink = Sink::default();
        for _ in 0..n {
            let mut session = SessionBuilder::<crate::PogoConfig>::new()
                .add_player(PlayerType::Local, 0)
                .unwrap()
                .add_player(PlayerType::Remote(addr()), 1)
                .unwrap()
                .start_p2p_session(sink.clone())
                .unwrap();
            session.poll_remote_clients();
        }
        let caught = sink.0.borrow().clone();
        assert!(caught.len() >= n);
        let mut distinct: Vec<Message> = Vec::new();
        for m in caught {
            if !distinct.contains(&m) {
                distinct.push(m);
            }
        }
        distinct.truncate(n);
        assert_eq!(distinct.len(), n, "sync requests differ");
        distinct
    }

    fn faulty(faults: Faults) -> (FaultySocket<Sink>, Sink) {
        let sink = Sink::default();
        (FaultySocket::new(sink.clone(), faults), sink)
    }

    /// Flushes the queue after every packet's time has come.
    fn flush(socket: &mut FaultySocket<Sink>, after_ms: u64) {
        std::thread::sleep(Duration::from_millis(after_ms));
        socket.receive_all_messages();
    }

    #[test]
    fn no_faults_sends_everything_at_once_in_order() {
        let m = messages(2);
        let (mut socket, sink) = faulty(Faults::NONE);
        for i in 0..100 {
            socket.send_to(&m[i % 2], &addr());
        }
        let sent = sink.0.borrow();
        assert_eq!(sent.len(), 100);
        assert!(sent.iter().enumerate().all(|(i, s)| *s == m[i % 2]));
        assert_eq!(socket.stats().dropped + socket.stats().duplicated, 0);
    }

    #[test]
    fn loss_and_duplication_happen_at_their_rates() {
        let m = messages(1);
        let faults = Faults {
            loss_ppm: 200_000,
            duplicate_ppm: 100_000,
            seed: 5,
            ..Faults::NONE
        };
        let (mut socket, sink) = faulty(faults);
        for _ in 0..20_000 {
            socket.send_to(&m[0], &addr());
        }
        let stats = socket.stats();
        assert_eq!(stats.sent, 20_000);
        assert!((3_800..4_200).contains(&stats.dropped), "{stats:?}");
        // Duplication is drawn for the 80 % that survive: about 1600.
        assert!((1_450..1_750).contains(&stats.duplicated), "{stats:?}");
        let delivered = sink.0.borrow().len() as u64;
        assert_eq!(delivered, stats.sent - stats.dropped + stats.duplicated);
    }

    #[test]
    fn delayed_packets_wait_for_their_time() {
        let m = messages(1);
        let faults = Faults {
            delay_ms_min: 40,
            delay_ms_max: 40,
            ..Faults::NONE
        };
        let (mut socket, sink) = faulty(faults);
        let sent_at = Instant::now();
        socket.send_to(&m[0], &addr());
        socket.receive_all_messages();
        if sent_at.elapsed() < Duration::from_millis(40) {
            assert_eq!(sink.0.borrow().len(), 0, "sent before its time");
        }
        flush(&mut socket, 45);
        assert_eq!(sink.0.borrow().len(), 1);
    }

    #[test]
    fn reordering_lets_later_packets_overtake() {
        let m = messages(2);
        let faults = Faults {
            reorder_ppm: 500_000,
            seed: 11,
            ..Faults::NONE
        };
        let (mut socket, sink) = faulty(faults);
        // A, B, A, B…: a held A arrives after the B sent after it.
        for i in 0..40 {
            socket.send_to(&m[i % 2], &addr());
        }
        flush(&mut socket, REORDER_HOLD_MS as u64 + 10);
        let sent = sink.0.borrow();
        assert_eq!(sent.len(), 40);
        assert!(socket.stats().reordered > 0);
        let in_order = sent.iter().enumerate().all(|(i, s)| *s == m[i % 2]);
        assert!(!in_order, "nothing was overtaken");
    }

    #[test]
    fn the_queue_is_bounded() {
        let m = messages(1);
        let faults = Faults {
            delay_ms_min: DELAY_MS_MAX,
            delay_ms_max: DELAY_MS_MAX,
            ..Faults::NONE
        };
        let (mut socket, sink) = faulty(faults);
        for _ in 0..QUEUED_PACKETS_MAX + 10 {
            socket.send_to(&m[0], &addr());
        }
        assert_eq!(socket.stats().overflowed, 10);
        assert_eq!(sink.0.borrow().len(), 0);
    }

    #[test]
    fn faults_are_checked() {
        assert!(Faults::NONE.check().is_ok() && Faults::NONE.is_none());
        let loss = Faults {
            loss_ppm: PPM + 1,
            ..Faults::NONE
        };
        assert!(matches!(
            loss.check(),
            Err(FaultsError::Probability { what: "loss", .. })
        ));
        let reversed = Faults {
            delay_ms_min: 50,
            delay_ms_max: 10,
            ..Faults::NONE
        };
        assert!(matches!(reversed.check(), Err(FaultsError::Delay { .. })));
        let long = Faults {
            delay_ms_max: DELAY_MS_MAX + 1,
            ..Faults::NONE
        };
        assert!(long.check().is_err());
    }
}
