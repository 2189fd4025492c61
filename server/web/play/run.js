// One run of the player's in the play view, live or offline (`PlayRun`): the simulation, the
// frame driver that decides when each tick runs (Fix Your Timestep's accumulator) and the
// recorder that writes the replay the server will verify; the run's clock (GO on the
// performance clock); what the run has done (splits, finish) and, once over, its replay bytes
// and final state hash.
//
// Ticks run only here, one driver call per tick (`advance`), so the view sees each tick's
// events (a checkpoint, a perfect landing) and its ghosts step the same tick in lockstep.

import { hex } from '../pogo.mjs';

/** A neutral input: no steering, no buttons. */
const NEUTRAL = Object.freeze({ steerX: 0, steerZ: 0, buttons: 0 });

export class PlayRun {
  /**
   * A fresh run on `level` under `tuning` (pogo: the loaded core), recorded under
   * `playerName` with `date` in its header ('' for none).
   */
  constructor({ pogo, level, tuning, rate, playerName, date }) {
    this.rate = rate;
    this.sim = pogo.simulation({ level, tuning, players: 1 });
    this.driver = pogo.driver({ tickRate: rate, players: 1 });
    this.recorder = pogo.recorder({ sim: this.sim, playerName, date });
    /** GO on the performance clock (ms); null before GO. */
    this.t0Ms = null;
    /** When the countdown ends, on the performance clock (ms); null before it is known. */
    this.goAtMs = null;
    /** The latest run time a frame ran to (ns): time never goes back. */
    this.lastNs = 0n;
    this.over = false;
    /** Checkpoints and the finish reached, in order: {checkpoint (null: finish), tick}. */
    this.splits = [];
    this.finishTick = null;
    /** The events of every tick since the last frame drew (Event bits). */
    this.frameEvents = 0;
    this.lastInput = { ...NEUTRAL };
    /** Once over: the replay and the final state hash (16 hex). */
    this.bytes = null;
    this.hash = null;
    /** Inputs filed before a reload, pushed into the driver as their ticks come (a seat
     * taken back: play/seat.js), in order: {atNs, input}. */
    this.queued = [];
    /** The run ticket (null: an open race, `openWhy` says why) and whether GO has passed. */
    this.ticket = null;
    this.openWhy = null;
    this.went = false;
  }

  /** A time on the performance clock (ms) as run time (ns since GO, never negative). */
  nsAt(ms) {
    if (this.t0Ms === null) return 0n;
    return BigInt(Math.max(0, Math.round((ms - this.t0Ms) * 1e6)));
  }

  /** The player's input changes at run time `ns`; the driver files it at its tick. */
  input(ns, input) {
    this.lastInput = input;
    return this.driver.pushEvent(ns, 0, input);
  }

  /**
   * Runs every tick due by run time `nowNs`, one driver call per tick, calling `afterTick(t)`
   * after each (t: the tick that ran, from 0) until the run is over; then the driver's frame
   * info (its `alpha`), or null if the run ended.
   */
  advance(nowNs, afterTick) {
    const t = nowNs > this.lastNs ? nowNs : this.lastNs;
    this.lastNs = t;
    for (;;) {
      if (this.over) return null;
      // The driver says when the next tick ends; the view never computes the schedule.
      const tickEnd = this.driver.tickEndNs(this.sim.tick);
      if (tickEnd > t) break;
      this.pushQueued(tickEnd);
      this.driver.advance(this.sim, this.recorder, tickEnd);
      afterTick(this.sim.tick - 1);
    }
    return this.driver.advance(this.sim, this.recorder, t);
  }

  /** The queued inputs due before `tickEnd` (ns) go into the driver, at the times they were
   * filed at first: the driver files each where it did then (the events of a tick are pushed
   * before it runs, as the page pushed them). */
  pushQueued(tickEnd) {
    while (this.queued.length && this.queued[0].atNs < tickEnd) {
      const { atNs, input } = this.queued.shift();
      this.input(atNs, input);
    }
  }

  /** The state hash now (16 hex). */
  stateHash() {
    return hex(this.sim.stateHash());
  }

  /** Ends the run: the recorder finishes, the replay and final hash are kept. */
  end() {
    this.over = true;
    this.recorder.finish();
    this.bytes = this.recorder.bytes();
    this.hash = this.stateHash();
  }

  /** What the finish panel needs of a finished run. */
  summary() {
    return { ticks: this.sim.tick, finishTick: this.finishTick, hash: this.hash, bytes: this.bytes.length };
  }

  free() {
    for (const object of [this.recorder, this.driver, this.sim]) object.free();
  }
}
