// The other racers of a live room, each re-simulated in this page from their stream as it
// arrives (docs/live.md: pogos never collide, so a racer's own pogo is never rolled back; only
// the rivals are, the way GGRS treats remote players):
//
// - the *confirmed* simulation runs a rival's ticks once they are known: their inputs pushed
//   into their own driver as their page filed them, each tick run once their `ran` or
//   `split` says their page ran it (the server does the same: live/racer.rs);
// - the *shown* simulation is the confirmed one restored from its snapshot and predicted to
//   the tick on screen with the inputs known so far (their last, as GGRS predicts), stepped
//   on tick by tick while nothing new arrives, and redone from the confirmed state when
//   something does (a correction);
// - a correction moves the drawn pogo by the difference at the tick it was drawn at; that
//   offset decays with three.js's `MathUtils.damp` (play/smoothing.js), so it never teleports.
//
// A spectator's display is behind every racer, so its rivals are all confirmed; a racer's are
// predicted over the network's delay. The work is bounded: a rival catches up at most
// CATCH_UP_TICKS_MAX ticks a frame (a spectator joining late spreads the backlog over a few
// frames) and is predicted at most PREDICT_TICKS_MAX ahead of what is confirmed.

import { Event, hex } from '../pogo.mjs';
import { Smoothing } from './smoothing.js';

/** The most ticks one rival's confirmed simulation runs in a frame while this page races
 * (2 s of game at 60 Hz): the player's own frame comes first. */
export const CATCH_UP_TICKS_MAX = 120;
/** The same for a page that only watches (a spectator, a racer whose run is over, a finished
 * room): 10 s of game a frame, so that one who joins late is on the race within a few frames
 * (the clock waits for the pogos meanwhile: play/live-view.js). */
export const WATCH_CATCH_UP_TICKS_MAX = 600;
/** The furthest a rival is predicted past their confirmed tick (3 s at 60 Hz): a rival whose
 * stream stopped stays there, shown as lagging, rather than costing every frame more. */
export const PREDICT_TICKS_MAX = 180;
/** Stream messages kept per rival: the server's bound (live/limits.rs RACER_MESSAGES_MAX). */
export const RIVAL_MESSAGES_MAX = 80 * 600;

/** A neutral input: no steering, no buttons. */
const NEUTRAL = Object.freeze({ steerX: 0, steerZ: 0, buttons: 0 });

export class Rival {
  /** Racer `racer` of the room, called `name`, drawn in `colour`. */
  constructor({ pogo, level, tuning, rate, racer, name, colour }) {
    Object.assign(this, { pogo, level, tuning, rate, racer, name, colour });
    this.sim = pogo.simulation({ level, tuning, players: 1 });
    this.driver = pogo.driver({ tickRate: rate, players: 1 });
    this.shown = null;
    /** The stream: the next seq expected, the inputs ({atNs, input}) and how many were
     * pushed into the driver, the last tick their page ran (-1: none yet). */
    this.nextSeq = 0;
    this.events = [];
    this.pushed = 0;
    this.ranTick = -1;
    /** Their splits: checkpoint index (or 'finish') → {tick, hash (16 hex)}. */
    this.splits = new Map();
    this.finishTick = null;
    /** The confirmed state changed since the shown one was restored from it. */
    this.dirty = true;
    this.snapshotBytes = null;
    this.smoothing = new Smoothing();
    this.corrections = 0;
    /** A message out of sequence (a gap) stops the stream here: nothing after it is sure. */
    this.broken = null;
  }

  /** Takes one of their messages, in sequence (a copy of one taken is ignored: a backlog
   * after a resume repeats the stream). */
  take(message) {
    if (message.seq < this.nextSeq) return;
    if (message.seq > this.nextSeq || this.nextSeq >= RIVAL_MESSAGES_MAX) {
      this.broken ??= `message ${message.seq} after ${this.nextSeq - 1}`;
      return;
    }
    if (this.broken) return;
    this.nextSeq += 1;
    if (message.kind === 'input') {
      this.events.push({ atNs: message.atNs, input: message.input });
    } else {
      this.ranTick = Math.max(this.ranTick, message.tick);
      if (message.kind === 'split') {
        const key = message.checkpoint === null ? 'finish' : message.checkpoint;
        if (!this.splits.has(key)) this.splits.set(key, { tick: message.tick, hash: hex(message.hash) });
        if (message.checkpoint === null) this.finishTick = message.tick;
      }
    }
  }

  /** Whether the confirmed simulation is still short of `target` ticks that are known (the
   * stream so far not yet re-simulated: a late joiner catching up). */
  catchingUp(target) {
    return this.sim.tick < Math.min(target, this.knownTicks);
  }

  /** The ticks their confirmed simulation may run: through their last `ran`, and not past
   * their finish. */
  get knownTicks() {
    return this.finishTick === null ? this.ranTick + 1 : Math.min(this.ranTick, this.finishTick) + 1;
  }

  /** Runs the confirmed simulation toward `target` ticks (what is known, at most `catchUp`
   * ticks now). */
  confirm(target, catchUp = CATCH_UP_TICKS_MAX) {
    const until = Math.min(target, this.knownTicks, this.sim.tick + catchUp);
    while (this.sim.tick < until) {
      const end = this.driver.tickEndNs(this.sim.tick);
      // The inputs due by the end of the tick, pushed as their page pushed them.
      while (this.pushed < this.events.length && this.events[this.pushed].atNs < end) {
        const { atNs, input } = this.events[this.pushed++];
        this.driver.pushEvent(atNs, 0, input);
      }
      this.driver.advance(this.sim, null, end);
      this.dirty = true;
    }
  }

  /**
   * Brings the rival to `target` ticks (the tick on screen): confirmed as far as known, the
   * rest predicted (never past their finish). The simulation to draw from: the shown one,
   * which is the confirmed state itself when nothing is left to predict.
   */
  update(target, catchUp = CATCH_UP_TICKS_MAX) {
    this.confirm(target, catchUp);
    // Nothing is predicted past a finish, nor while the stream so far is still being caught
    // up (what is known is drawn, not a guess ahead of it).
    const finished = this.finishTick !== null && this.sim.tick > this.finishTick;
    const goal = finished || this.catchingUp(target) ? this.sim.tick : Math.min(target, this.sim.tick + PREDICT_TICKS_MAX);
    if (!this.shown) {
      this.shown = this.pogo.simulation({ level: this.level, tuning: this.tuning, players: 1 });
      this.dirty = true;
    }
    if (this.dirty || this.shown.tick > goal) this.correct(goal);
    this.predict(goal);
    return this.shown;
  }

  /** The shown simulation restarted from the confirmed one; the drawn pogo keeps its place
   * (the difference at the tick it was shown at goes into the smoothing). */
  correct(goal) {
    const shownTick = Math.min(this.shown.tick, goal);
    const before = shownTick >= this.sim.tick && shownTick > 0 ? this.shown.player(0) : null;
    this.snapshotBytes = this.sim.snapshot();
    this.shown.restore(this.snapshotBytes);
    this.dirty = false;
    if (!before) return;
    this.predict(shownTick);
    const after = this.shown.player(0);
    const jumped = after.stateName === 'respawn' || before.stateName === 'respawn' || (after.events & Event.TELEPORT) !== 0;
    if (this.smoothing.correct(before.position, after.position, jumped)) this.corrections += 1;
  }

  /** Steps the shown simulation to `goal` ticks with the inputs known for each tick. */
  predict(goal) {
    while (this.shown.tick < goal) this.shown.step([this.inputAt(this.shown.tick)]);
  }

  /** Their input at tick `k` as far as this page knows: the latest event filed before the
   * tick's start (the driver's own rule, give or take a nanosecond: it is a guess). */
  inputAt(k) {
    if (k === 0) return this.events.length && this.events[0].atNs === 0n ? this.events[0].input : NEUTRAL;
    const start = this.driver.tickEndNs(k - 1);
    for (let i = this.events.length - 1; i >= 0; i--) {
      if (this.events[i].atNs < start) return this.events[i].input;
    }
    return NEUTRAL;
  }

  /** The gap of racer `me`'s tick at a checkpoint to theirs: the latest checkpoint both
   * reached (`mySplits`: key → tick), as `{key, ticks}` (ticks < 0: they are ahead), or null. */
  gapTo(mySplits) {
    let last = null;
    for (const [key, { tick }] of this.splits) {
      if (mySplits.has(key)) last = { key, ticks: mySplits.get(key) - tick };
    }
    return last;
  }

  /** What the tests read: the confirmed state (its tick count, hash, raw position) and the
   * shown one. */
  describe() {
    const confirmed = this.sim.player(0);
    const shown = (this.shown ?? this.sim).player(0);
    return {
      racer: this.racer, name: this.name, colour: this.colour, messages: this.nextSeq, events: this.events.length,
      ranTick: this.ranTick, finishTick: this.finishTick, broken: this.broken,
      confirmed: { tick: this.sim.tick, hash: hex(this.sim.stateHash()), positionRaw: confirmed.positionRaw.map(String) },
      shown: { tick: (this.shown ?? this.sim).tick, position: shown.position, predicted: (this.shown?.tick ?? 0) > this.sim.tick },
      splits: Object.fromEntries([...this.splits].map(([k, v]) => [k, v.tick])),
      corrections: this.corrections, offset: [...this.smoothing.offset],
    };
  }

  free() {
    this.shown?.free();
    this.sim.free();
    this.driver.free();
  }
}
