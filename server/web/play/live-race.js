// One live race as this page takes part in it (docs/live.md; the server's `live/`): the room
// link (play/room-link.js), the room as the server last described it, this page's seat, the
// stream it sends and the rivals it re-simulates (play/rivals.js).
//
// What a racer's page sends mirrors the server's Rust client (`live/client.rs`,
// `page_stream`): each input change the moment the driver files it (the filed time, not the
// device's), each split on the tick it happens with the state hash after it, and a `ran`
// every HEARTBEAT_TICKS ticks; a tick's splits go before the `ran` that covers it, and
// nothing follows the finish. Nothing is sent before the page's GO (`release`), which is
// never before the server's.
//
// The race (play/race.js) hears about the room through `onRoom(view)`, `onDesync(message)`
// and `onLink(type)` ('cut', 'resumed', 'closed'), and draws the rivals through `rivalsAt`.

import { RoomLink } from './room-link.js';
import { Rival } from './rivals.js';
import { HEARTBEAT_TICKS, encodeInput, encodeRan, encodeSplit } from './wire.js';
import { getJson, segment } from '../shared/api.js';
import { colourOf } from '../shared/ghosts.js';

/** How far behind the server's clock a spectator's display runs (ms): every racer's stream
 * has arrived by then, so what is shown is confirmed, not predicted. */
export const SPECTATOR_DELAY_MS = 400;

export class LiveRace {
  /**
   * `roomId`; `role` 'racer' | 'spectator'; `identity` ({name, token}) or null (a guest);
   * `core` {pogo, level, tuning, rate}; `on` {room(view), desync(message), link(type, detail)}.
   */
  constructor({ roomId, role, identity, core, on }) {
    Object.assign(this, { roomId, role, identity, core, on });
    this.view = null;
    this.me = null;
    this.rivals = new Map();
    this.desyncs = [];
    /** A driver only to count ticks due by a time (the driver keeps the schedule). */
    this.schedule = core.pogo.driver({ tickRate: core.rate, players: 1 });
    this.dueTicks = 0;
    /** Checkpoints this racer has split on (each counts once, as the server's), the last
     * tick a heartbeat or split said ran (a seat taken back never says one twice). */
    this.splitSeen = new Set();
    this.lastRan = -1;
    this.finished = false;
    /** The seat was taken back after a reload (play/seat.js): the stream goes on from it. */
    this.resumed = false;
    this.link = new RoomLink({
      roomId, role, token: role === 'racer' ? identity?.token ?? null : null,
      onEvent: (type, detail) => this.heard(type, detail),
    });
  }

  /** Joins; resolves with the room's view. */
  async join() {
    const welcome = await this.link.open();
    this.me = welcome.racer ?? null;
    this.view = welcome.room;
    // A seat taken back: what the server holds of the stream is not sent again.
    if (this.resumed) this.link.ack(welcome.acked ?? -1);
    return this.view;
  }

  /**
   * Before `join`: this tab's seat in the room, kept across a reload (play/seat.js): `seat`
   * its key and messages, `state` what they say (seatState). The join then takes the seat
   * back, and the stream goes on after the last message sent; what the server does not
   * hold is sent again at the page's GO.
   */
  resumeSeat(seat, state) {
    this.link.restore(seat.key, seat.messages);
    this.splitSeen = new Set([...state.splits].filter((key) => key !== 'finish'));
    this.lastRan = state.lastRan;
    this.finished = state.finished;
    this.resumed = true;
  }

  /** The room as the server has it now (GET /api/rooms/ID). */
  fetchView() {
    return getJson(`/api/rooms/${segment(this.roomId)}`);
  }

  /** A filed run's status (GET /api/runs/ID). */
  fetchRun(id) {
    return getJson(`/api/runs/${id}`);
  }

  get registered() {
    return this.myView?.registered ?? false;
  }

  /** This racer as the room sees them (null for a spectator). */
  get myView() {
    return this.me === null ? null : this.view?.racers.find((r) => r.racer === this.me) ?? null;
  }

  // -- what the room says --------------------------------------------------------------------

  heard(type, detail) {
    switch (type) {
      case 'room':
        this.view = detail;
        this.on.room(detail);
        break;
      case 'relay':
        this.rival(detail.racer)?.take(detail.message);
        break;
      case 'backlog':
        for (const { message } of detail.messages) this.rival(detail.racer)?.take(message);
        break;
      case 'desync':
        this.desyncs.push(detail);
        this.on.desync(detail);
        break;
      default:
        this.on.link(type, detail);
    }
  }

  /** Racer `racer`'s rival, made the first time they are heard of (not this page's own). */
  rival(racer) {
    if (racer === this.me) return null;
    let rival = this.rivals.get(racer);
    if (!rival) {
      const name = this.view?.racers.find((r) => r.racer === racer)?.name ?? `racer ${racer + 1}`;
      const { pogo, level, tuning, rate } = this.core;
      rival = new Rival({ pogo, level, tuning, rate, racer, name, colour: colourOf(racer) });
      this.rivals.set(racer, rival);
    }
    return rival;
  }

  /** Every racer of the room but this one has a rival, seated by seat and name: in the lobby
   * as racers come and go (a seat freed renumbers those after it, so the rivals are made
   * again when the field changes), fixed from the countdown on. */
  seatRivals() {
    const field = (this.view?.racers ?? []).filter((r) => r.racer !== this.me);
    const same = field.length === this.rivals.size && field.every((r) => this.rivals.get(r.racer)?.name === r.name);
    if (!same) {
      for (const rival of this.rivals.values()) rival.free();
      this.rivals.clear();
      for (const r of field) this.rival(r.racer);
    }
    return [...this.rivals.values()];
  }

  // -- the clock ------------------------------------------------------------------------------

  /** GO on the performance clock (ms), never before the server's; null before it is set. */
  goAtMs() {
    const go = this.view?.go_ms;
    return go === null || go === undefined ? null : this.link.clock.toPerformance(go);
  }

  /** Ticks due by `ns` of game time (the schedule's answer, counted forward). */
  ticksDue(ns) {
    while (this.schedule.tickEndNs(this.dueTicks) <= ns) this.dueTicks += 1;
    return this.dueTicks;
  }

  /** A spectator's display time now: the server's clock since GO, SPECTATOR_DELAY_MS behind
   * (ns, never negative). */
  displayNs() {
    const go = this.view?.go_ms;
    if (go === null || go === undefined) return 0n;
    const ms = this.link.clock.serverNowMs() - go - SPECTATOR_DELAY_MS;
    return BigInt(Math.max(0, Math.floor(ms * 1e6)));
  }

  /** Every rival at `target` ticks (each catching up at most `catchUp` ticks now): `[{rival,
   * sim}]`. */
  rivalsAt(target, catchUp) {
    return [...this.rivals.values()].map((rival) => ({ rival, sim: rival.update(target, catchUp) }));
  }

  /** Once the race is over: the ticks its longest run lasted (the count the server
   * re-simulated), where a view of it stops; null before. */
  get endTicks() {
    if (this.view?.phase !== 'over') return null;
    return Math.max(0, ...this.view.racers.map((r) => r.tick));
  }

  // -- the stream -----------------------------------------------------------------------------

  /** An input change, as the driver filed it (`atNs`, BigInt). */
  input(atNs, input) {
    if (this.role !== 'racer' || this.finished) return;
    this.link.stream((seq) => encodeInput(seq, atNs, input));
  }

  /** Checkpoint `checkpoint` (null: the finish) on `tick`, the state hash after it (BigInt). */
  split(checkpoint, tick, hash) {
    if (this.role !== 'racer' || this.finished) return;
    if (checkpoint !== null) {
      if (this.splitSeen.has(checkpoint)) return;
      this.splitSeen.add(checkpoint);
    }
    this.link.stream((seq) => encodeSplit(seq, tick, checkpoint, hash));
    this.lastRan = Math.max(this.lastRan, tick);
    if (checkpoint === null) this.finished = true;
  }

  /** Tick `tick` ran: the heartbeat, every HEARTBEAT_TICKS ticks (after its splits); none for
   * a tick already said (a seat taken back re-runs the ticks it had run). */
  ran(tick) {
    if (this.role !== 'racer' || this.finished || tick <= this.lastRan) return;
    if (tick % HEARTBEAT_TICKS === HEARTBEAT_TICKS - 1) {
      this.link.stream((seq) => encodeRan(seq, tick));
      this.lastRan = tick;
    }
  }

  /** The page's GO: the stream goes from now on. */
  release() {
    this.link.release();
  }

  /** The page is going away (a reload or a close: a page cannot tell which): a racer racing
   * says so, so that the room counts them as left unless the reload takes the seat back
   * within seconds (docs/live.md, `away`). */
  away() {
    if (this.role === 'racer' && this.link.released) this.link.send({ type: 'away' });
  }

  /** Leaves the room: a racer still racing first says which tick they ran last (`lastTick`),
   * so the server holds the run as far as the page ran it. */
  leave(lastTick = null) {
    if (this.role === 'racer' && !this.finished && this.link.released && lastTick !== null && lastTick >= 0) {
      this.link.stream((seq) => encodeRan(seq, lastTick));
      this.finished = true;
    }
    this.link.leave();
  }

  /** What the tests read. */
  describe() {
    return {
      roomId: this.roomId, role: this.role, me: this.me, phase: this.view?.phase ?? null, goMs: this.view?.go_ms ?? null,
      link: this.link.describe(), desyncs: this.desyncs, rivals: [...this.rivals.values()].map((r) => r.describe()),
    };
  }

  /** Every stream message this page sent, decoded (the tests rebuild the input script). */
  sentStream() {
    return this.link.sent.map(({ bytes }) => Array.from(bytes));
  }

  free() {
    this.link.drop();
    for (const rival of this.rivals.values()) rival.free();
    this.rivals.clear();
    this.schedule.free();
  }
}
