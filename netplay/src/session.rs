//! One peer of a two-player GGRS P2P session over UDP, from synchronisation to a recorded,
//! confirmed end.
//!
//! # The loop
//!
//! Every frame (at the tuning's tick rate, slowed down a little while GGRS says this peer
//! runs ahead, and paused for GGRS's wait recommendations): poll the network, hand GGRS the
//! local player's input for the current frame, and fulfil the requests `advance_frame`
//! returns, in order ([`Adapter::fulfil`]). GGRS predicts the remote input, and when the real
//! one differs it asks to load an older state and re-advance: that is the rollback.
//!
//! # Confirmed ticks, and how both peers stop at tick N
//!
//! A replay holds confirmed inputs only. After each frame's requests are fulfilled, every
//! tick up to GGRS's `confirmed_frame()` (and already run) ran last with its confirmed inputs:
//! either GGRS re-ran it with the real inputs, or the prediction was right and it was never
//! rolled back. Those ticks are taken from the adapter in order and stepped once more in a
//! second simulation, the *record*, which feeds the replay [`Recorder`] and ends at exactly N
//! ticks. Every record state is compared with the hash the rollback simulation saved for the
//! same tick: a mismatch is [`NetplayError::Diverged`], caught at the tick.
//!
//! A peer that has recorded its N ticks still has to keep the session going for the other
//! one, which may not have all of this peer's inputs yet. So from then on its input carries
//! the [`NetInput::DONE`] flag (frames past N are played with neutral input and not recorded).
//! A peer stops once it has recorded N ticks *and* holds a confirmed input from the other
//! peer with DONE set — then both have everything — after a short [`LINGER`] that resends its
//! own DONE. If the other peer has already gone, GGRS reports it disconnected (or
//! [`DONE_WAIT_MAX`] passes), which is fine once this peer's record is complete and an error
//! before.
//!
//! # Desyncs
//!
//! GGRS's desync detection is on: every [`CHECKSUM_INTERVAL_TICKS`] confirmed ticks each peer
//! sends the checksum it saved for that frame (the state hash) and compares the other's;
//! a difference is [`NetplayError::Desync`]. The replays add a state hash every second of
//! play, so `pogo verify` re-checks the whole session.

use std::cell::Cell;
use std::fmt;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, Instant};

use ggrs::{
    DesyncDetection, GgrsError, GgrsEvent, P2PSession, PlayerType, SessionBuilder, SessionState,
    UdpNonBlockingSocket,
};
use pogo_core::{Input, Simulation};
use pogo_replay::Recorder;

use crate::adapter::{Adapter, PogoConfig, RequestError, RollbackStats};
use crate::faulty::{FaultStats, Faults, FaultsError, FaultySocket};
use crate::input::NetInput;
use crate::players::Player;

/// Players in a session: one local, one remote.
pub const PLAYERS: usize = 2;
/// Most ticks a session may record: 4 hours at 60 Hz, the verifier's default limit.
pub const TICKS_MAX: u32 = 4 * 3600 * 60;
/// How far GGRS may run ahead of the confirmed frame (ticks): GGRS's default. A rollback is
/// never longer; PERFORMANCE.md shows pogo could afford far more (GGRS's input queue of 128
/// frames is the hard limit).
pub const PREDICTION_WINDOW_TICKS: usize = 8;
/// Local input delay (ticks). None: every frame's own input, as in `pogo simulate`, so the
/// bot plays exactly as it does there — and rollbacks happen on every latency.
pub const INPUT_DELAY_TICKS: usize = 0;
/// GGRS exchanges the checksum of every this many confirmed ticks (6 a second at 60 Hz).
pub const CHECKSUM_INTERVAL_TICKS: u32 = 10;
/// Longest wait for the other peer to answer at the start.
pub const SYNC_TIMEOUT: Duration = Duration::from_secs(10);
/// No packet from the other peer for this long: GGRS disconnects it.
pub const DISCONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// No new confirmed tick for this long while the record is incomplete: give up.
pub const STALL_MAX: Duration = Duration::from_secs(10);
/// How long a finished peer keeps sending after seeing the other's DONE, so that the other
/// sees this one's.
pub const LINGER: Duration = Duration::from_millis(250);
/// Longest a peer whose record is complete waits for the other's DONE.
pub const DONE_WAIT_MAX: Duration = Duration::from_secs(5);
/// Sleep between polls while synchronising.
const SYNC_POLL: Duration = Duration::from_millis(2);
/// Frames a peer that fell behind may run back to back to catch up; beyond, it drops the debt.
const CATCH_UP_FRAMES_MAX: u32 = 4;

/// How to run one peer.
#[derive(Clone, Copy, Debug)]
pub struct PeerConfig {
    /// UDP port to listen on (all interfaces, GGRS's socket).
    pub local_port: u16,
    /// The other peer.
    pub remote: SocketAddr,
    /// The local player, 0 or 1; the other is remote.
    pub player: usize,
    /// Ticks to play and record, 1…[`TICKS_MAX`].
    pub ticks: u32,
    /// Faults to inject into this peer's outgoing packets.
    pub faults: Faults,
}

/// A finished peer: the record simulation at exactly `ticks` ticks, the recording, and what
/// the network and rollbacks cost.
#[derive(Debug)]
pub struct PeerOutcome<W> {
    /// The confirmed simulation after the session's ticks (what the replay ends on).
    pub sim: Simulation,
    /// The recorder's writer, after the trailer, if one was given.
    pub recording: Option<W>,
    pub rollbacks: RollbackStats,
    pub network: FaultStats,
    /// Record ticks compared with the rollback simulation's saved hash (all matched).
    pub checked_ticks: u64,
    /// Ticks the rollback simulation ran past the end (played for the other peer).
    pub extra_ticks: u32,
    /// From the start to the end of the session, synchronisation included.
    pub wall: Duration,
}

/// Why a peer could not finish.
#[derive(Debug)]
pub enum NetplayError {
    /// The simulation must have exactly [`PLAYERS`] pogos, at tick 0.
    Simulation {
        players: usize,
        tick: u32,
    },
    /// The local player must be 0 or 1.
    Player {
        found: usize,
    },
    /// Ticks must be 1…[`TICKS_MAX`].
    Ticks {
        found: u32,
    },
    Faults(FaultsError),
    /// The UDP port could not be bound.
    Bind {
        port: u16,
        error: io::Error,
    },
    /// GGRS refused the session or a call.
    Ggrs(GgrsError),
    /// GGRS's requests did not fit the simulation.
    Request(RequestError),
    /// The other peer did not answer in time.
    SyncTimeout {
        remote: SocketAddr,
        waited: Duration,
    },
    /// The other peer went away before every tick was confirmed.
    Disconnected {
        remote: SocketAddr,
        confirmed_ticks: u32,
    },
    /// No tick was confirmed for [`STALL_MAX`].
    Stalled {
        confirmed_ticks: u32,
    },
    /// GGRS's checksum exchange found the peers' states differ after `tick`'s frame.
    Desync {
        frame: i32,
        local: u128,
        remote: u128,
    },
    /// The record simulation's state after `tick` differs from the rollback simulation's.
    Diverged {
        tick: u32,
        record: u64,
        rollback: u64,
    },
    /// Writing the replay failed.
    Record(io::Error),
}

impl fmt::Display for NetplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetplayError::Simulation { players, tick } => write!(
                f,
                "a session needs a new simulation of {PLAYERS} players, not {players} at tick {tick}"
            ),
            NetplayError::Player { found } => {
                write!(f, "player {found}: the local player must be 0 or 1")
            }
            NetplayError::Ticks { found } => {
                write!(f, "{found} ticks: a session plays 1 to {TICKS_MAX}")
            }
            NetplayError::Faults(e) => e.fmt(f),
            NetplayError::Bind { port, error } => {
                write!(f, "cannot listen on UDP port {port}: {error}")
            }
            NetplayError::Ggrs(e) => write!(f, "GGRS: {e}"),
            NetplayError::Request(e) => e.fmt(f),
            NetplayError::SyncTimeout { remote, waited } => {
                write!(f, "no answer from {remote} within {} s", waited.as_secs())
            }
            NetplayError::Disconnected {
                remote,
                confirmed_ticks,
            } => write!(
                f,
                "{remote} disconnected after {confirmed_ticks} confirmed ticks, before the end"
            ),
            NetplayError::Stalled { confirmed_ticks } => write!(
                f,
                "no tick confirmed for {} s (stuck after {confirmed_ticks} ticks)",
                STALL_MAX.as_secs()
            ),
            NetplayError::Desync {
                frame,
                local,
                remote,
            } => write!(
                f,
                "desync at frame {frame}: local state hash {local:016x}, remote {remote:016x}"
            ),
            NetplayError::Diverged {
                tick,
                record,
                rollback,
            } => write!(
                f,
                "after tick {tick} the confirmed re-simulation has state hash {record:016x} \
                 but the rollback simulation saved {rollback:016x}"
            ),
            NetplayError::Record(e) => write!(f, "recording: {e}"),
        }
    }
}

impl std::error::Error for NetplayError {}

impl From<GgrsError> for NetplayError {
    fn from(e: GgrsError) -> NetplayError {
        NetplayError::Ggrs(e)
    }
}

impl From<RequestError> for NetplayError {
    fn from(e: RequestError) -> NetplayError {
        NetplayError::Request(e)
    }
}

/// The record: confirmed ticks stepped once, in order, into a simulation and a recorder.
struct Record<W: Write> {
    sim: Simulation,
    recorder: Option<Recorder<W>>,
    ticks: u32,
    checked: u64,
}

impl<W: Write> Record<W> {
    fn complete(&self) -> bool {
        self.sim.state().tick.0 >= self.ticks
    }

    /// Steps the record through one confirmed tick and records it; `rollback_hash` is the
    /// rollback simulation's saved hash of the state after it, if there is one.
    fn step(
        &mut self,
        inputs: &[NetInput],
        rollback_hash: Option<u64>,
    ) -> Result<(), NetplayError> {
        let tick = self.sim.state().tick.0;
        let inputs: Vec<Input> = inputs.iter().map(|net| net.input()).collect();
        self.sim.step(&inputs);
        let record = self.sim.state_hash();
        if let Some(rollback) = rollback_hash {
            if rollback != record {
                return Err(NetplayError::Diverged {
                    tick,
                    record,
                    rollback,
                });
            }
            self.checked += 1;
        }
        if let Some(recorder) = &mut self.recorder {
            recorder
                .record(&inputs, || record)
                .map_err(NetplayError::Record)?;
        }
        Ok(())
    }
}

/// Runs one peer of a session to its end: `sim` must be a new two-player simulation (the
/// same level and tuning on both peers, or GGRS's checksums will tell), `local` drives
/// `config.player`, and `recorder`, if given, receives the confirmed ticks. `notes` gets
/// one-line progress notes for a human (synchronised, network interrupted, …).
pub fn run_peer<W: Write>(
    sim: Simulation,
    local: Player,
    config: &PeerConfig,
    recorder: Option<Recorder<W>>,
    notes: &mut dyn FnMut(fmt::Arguments),
) -> Result<PeerOutcome<W>, NetplayError> {
    let players = sim.state().pogos.len();
    let tick = sim.state().tick.0;
    if players != PLAYERS || tick != 0 {
        return Err(NetplayError::Simulation { players, tick });
    }
    if config.player >= PLAYERS {
        return Err(NetplayError::Player {
            found: config.player,
        });
    }
    if config.ticks == 0 || config.ticks > TICKS_MAX {
        return Err(NetplayError::Ticks {
            found: config.ticks,
        });
    }
    config.faults.check().map_err(NetplayError::Faults)?;
    let tick_rate = sim.tuning().spec().tick_rate;
    let (session, network) = start_session(config, tick_rate)?;
    let now = Instant::now();
    Peer {
        config: *config,
        session,
        network,
        adapter: Adapter::new(sim.clone()).keeping_history(),
        record: Record {
            sim,
            recorder,
            ticks: config.ticks,
            checked: 0,
        },
        local,
        notes,
        started: now,
        frame_time: Duration::from_nanos(1_000_000_000 / u64::from(tick_rate.max(1))),
        next_due: None,
        local_input: None,
        next_tick: 0,
        last_progress: now,
        complete_at: None,
        peer_done_at: None,
    }
    .run()
}

/// Whether the session goes on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flow {
    Continue,
    /// The record is complete and this peer may leave.
    End,
}

/// A running peer: the session, both simulations, the frame clock, the end handshake.
struct Peer<'n, W: Write> {
    config: PeerConfig,
    session: P2PSession<PogoConfig>,
    network: Rc<Cell<FaultStats>>,
    /// The rollback simulation GGRS drives.
    adapter: Adapter,
    /// The confirmed ticks, once each.
    record: Record<W>,
    local: Player,
    notes: &'n mut dyn FnMut(fmt::Arguments),
    started: Instant,
    frame_time: Duration,
    /// When the next frame is due; set when the session starts running.
    next_due: Option<Instant>,
    /// The local input of the current frame, made once per frame (the bot has state) even if
    /// GGRS stalls on the frame.
    local_input: Option<(i32, NetInput)>,
    /// The next tick to take from the adapter as confirmed.
    next_tick: u32,
    /// When a tick was last confirmed (or play started).
    last_progress: Instant,
    /// When the record became complete.
    complete_at: Option<Instant>,
    /// When a confirmed input of the other peer first carried DONE.
    peer_done_at: Option<Instant>,
}

impl<W: Write> Peer<'_, W> {
    /// The loop: the network and GGRS's events, then — when a frame is due — one frame and
    /// the ticks it confirmed, until the end.
    fn run(mut self) -> Result<PeerOutcome<W>, NetplayError> {
        loop {
            self.session.poll_remote_clients();
            if self.handle_events()? == Flow::End {
                return self.finish();
            }
            if self.session.current_state() != SessionState::Running {
                self.wait_for_sync()?;
                continue;
            }
            if !self.frame_due() {
                continue;
            }
            self.play_frame()?;
            self.take_confirmed()?;
            if self.end_reached()? == Flow::End {
                return self.finish();
            }
        }
    }

    fn handle_events(&mut self) -> Result<Flow, NetplayError> {
        let notes = &mut *self.notes;
        for event in self.session.events() {
            match event {
                GgrsEvent::Synchronized { addr } => notes(format_args!("synchronized with {addr}")),
                GgrsEvent::NetworkInterrupted {
                    addr,
                    disconnect_timeout,
                } => notes(format_args!(
                    "no packets from {addr}; disconnecting in {disconnect_timeout} ms"
                )),
                GgrsEvent::NetworkResumed { addr } => notes(format_args!("{addr} is back")),
                GgrsEvent::WaitRecommendation { skip_frames } => {
                    if let Some(due) = &mut self.next_due {
                        *due += self.frame_time * skip_frames;
                    }
                }
                GgrsEvent::DesyncDetected {
                    frame,
                    local_checksum,
                    remote_checksum,
                    ..
                } => {
                    return Err(NetplayError::Desync {
                        frame,
                        local: local_checksum,
                        remote: remote_checksum,
                    });
                }
                GgrsEvent::Disconnected { addr } => {
                    if self.record.complete() {
                        notes(format_args!("{addr} has left"));
                        return Ok(Flow::End);
                    }
                    return Err(NetplayError::Disconnected {
                        remote: addr,
                        confirmed_ticks: self.record.sim.state().tick.0,
                    });
                }
                GgrsEvent::Synchronizing { .. } => {}
            }
        }
        Ok(Flow::Continue)
    }

    /// Waits a little for the other peer's answer, or gives up after [`SYNC_TIMEOUT`].
    fn wait_for_sync(&self) -> Result<(), NetplayError> {
        if self.started.elapsed() > SYNC_TIMEOUT {
            return Err(NetplayError::SyncTimeout {
                remote: self.config.remote,
                waited: SYNC_TIMEOUT,
            });
        }
        std::thread::sleep(SYNC_POLL);
        Ok(())
    }

    /// Frame pacing: one frame per tick time, a tenth slower while GGRS says this peer is
    /// ahead. False (after sleeping until the frame is due) when it is not time yet.
    fn frame_due(&mut self) -> bool {
        let now = Instant::now();
        let due = match self.next_due {
            Some(due) => due,
            None => {
                // Running from now: the stall clock starts with play, not synchronising.
                self.last_progress = now;
                now
            }
        };
        if now < due {
            self.next_due = Some(due);
            std::thread::sleep(due - now);
            return false;
        }
        let behind_limit = now
            .checked_sub(self.frame_time * CATCH_UP_FRAMES_MAX)
            .unwrap_or(now);
        let mut next = due.max(behind_limit) + self.frame_time;
        if self.session.frames_ahead() > 0 {
            next += self.frame_time / 10;
        }
        self.next_due = Some(next);
        true
    }

    /// Hands GGRS the local input of the current frame and fulfils what it asks.
    fn play_frame(&mut self) -> Result<(), NetplayError> {
        let frame = self.session.current_frame();
        let input = match self.local_input {
            Some((f, input)) if f == frame => input,
            _ => self.new_local_input(frame)?,
        };
        self.local_input = Some((frame, input));
        self.session.add_local_input(self.config.player, input)?;
        match self.session.advance_frame() {
            Ok(requests) => self.adapter.fulfil(requests)?,
            Err(GgrsError::PredictionThreshold | GgrsError::NotSynchronized) => {}
            Err(e) => return Err(e.into()),
        }
        Ok(())
    }

    /// The local player's input for `frame`, flagged DONE once the record is complete;
    /// neutral past the end.
    fn new_local_input(&mut self, frame: i32) -> Result<NetInput, NetplayError> {
        let sim = self.adapter.simulation();
        let tick = sim.state().tick.0;
        if i64::from(tick) != i64::from(frame) {
            return Err(RequestError::FrameMismatch {
                request: "play",
                frame,
                tick,
            }
            .into());
        }
        let flags = if self.record.complete() {
            NetInput::DONE
        } else {
            0
        };
        let input = if tick < self.config.ticks {
            self.local.input(sim, self.config.player)
        } else {
            Input::default()
        };
        Ok(NetInput::new(input, flags))
    }

    /// Confirmed ticks, in order, into the record (or, past the end, checked for the other
    /// peer's DONE). A tick is taken once the state after it has been saved too (GGRS saves
    /// the current frame at the start of the next call), so that every record tick is
    /// checked against the rollback simulation.
    fn take_confirmed(&mut self) -> Result<(), NetplayError> {
        let ran = self.adapter.simulation().state().tick.0;
        let confirmed = self.session.confirmed_frame();
        let remote_player = 1 - self.config.player;
        while i64::from(self.next_tick) <= i64::from(confirmed) && self.next_tick + 1 < ran {
            let tick = self.next_tick;
            let Some((inputs, rollback_hash)) = self.adapter.take_tick(tick) else {
                return Err(RequestError::FrameMismatch {
                    request: "confirm",
                    frame: tick as i32,
                    tick: ran,
                }
                .into());
            };
            if tick < self.config.ticks {
                self.record.step(&inputs, rollback_hash)?;
            } else if inputs.get(remote_player).is_some_and(|i| i.done()) {
                self.peer_done_at.get_or_insert_with(Instant::now);
            }
            self.next_tick += 1;
            self.last_progress = Instant::now();
        }
        Ok(())
    }

    /// Whether this peer may leave: its record is complete and it has seen the other's DONE
    /// (and lingered), or waited [`DONE_WAIT_MAX`] for it. An error if nothing is confirmed
    /// for [`STALL_MAX`] before that.
    fn end_reached(&mut self) -> Result<Flow, NetplayError> {
        if !self.record.complete() {
            if self.last_progress.elapsed() > STALL_MAX {
                return Err(NetplayError::Stalled {
                    confirmed_ticks: self.record.sim.state().tick.0,
                });
            }
            return Ok(Flow::Continue);
        }
        let complete = *self.complete_at.get_or_insert_with(Instant::now);
        let linger_over = self.peer_done_at.is_some_and(|t| t.elapsed() >= LINGER);
        if linger_over || complete.elapsed() >= DONE_WAIT_MAX {
            return Ok(Flow::End);
        }
        Ok(Flow::Continue)
    }

    /// The outcome of a complete record: the trailer written, the figures gathered.
    fn finish(self) -> Result<PeerOutcome<W>, NetplayError> {
        let record = self.record;
        let recording = match record.recorder {
            Some(recorder) => Some(
                recorder
                    .finish_simulation(&record.sim)
                    .map_err(NetplayError::Record)?,
            ),
            None => None,
        };
        let ran = self.adapter.simulation().state().tick.0;
        Ok(PeerOutcome {
            sim: record.sim,
            recording,
            rollbacks: self.adapter.stats(),
            network: self.network.get(),
            checked_ticks: record.checked,
            extra_ticks: ran.saturating_sub(record.ticks),
            wall: self.started.elapsed(),
        })
    }
}

/// Builds and starts the GGRS session on a (faulty) UDP socket.
fn start_session(
    config: &PeerConfig,
    tick_rate: u32,
) -> Result<(P2PSession<PogoConfig>, Rc<Cell<FaultStats>>), NetplayError> {
    let udp = UdpNonBlockingSocket::bind_to_port(config.local_port).map_err(|error| {
        NetplayError::Bind {
            port: config.local_port,
            error,
        }
    })?;
    let socket = FaultySocket::new(udp, config.faults);
    let network = socket.shared_stats();
    let session = SessionBuilder::<PogoConfig>::new()
        .with_num_players(PLAYERS)?
        .with_fps(tick_rate as usize)?
        .with_max_prediction_window(PREDICTION_WINDOW_TICKS)
        .with_input_delay(INPUT_DELAY_TICKS)
        .with_desync_detection_mode(DesyncDetection::On {
            interval: CHECKSUM_INTERVAL_TICKS,
        })
        .with_disconnect_timeout(DISCONNECT_TIMEOUT)
        .add_player(PlayerType::Local, config.player)?
        .add_player(PlayerType::Remote(config.remote), 1 - config.player)?
        .start_p2p_session(socket)?;
    Ok((session, network))
}
