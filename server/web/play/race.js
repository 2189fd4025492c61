// The race, as a state machine you can draw:
//
//   loading ─loaded─▶ ready ─start─▶ countdown ─go─▶ racing ─finish─▶ finished ─upload─▶ submitting
//     ├─coreMissing─▶ missing-core                                     ▲                  ├─verified─▶ verified
//     └─fail─▶ failed                                                  └───────kept───────┤
//                                                                                         └─refused─▶ refused
//   and from countdown, racing, finished, submitting, verified, refused: ─start─▶ countdown
//   (R, Play, Race again: a new run).
//
// `EVENTS` is the table: each state and the events it accepts, with the state each leads to.
// Each transition is one method of `Race`, and `#take` — the only code that assigns the
// state — refuses an event the state does not accept (a finish before GO, an upload's
// verdict once the racer has started another run).
//
// - start: a new run (LiveRun): simulation, driver, recorder; the ghosts back to tick 0. With
//   a token, a run ticket is asked for (play/ticket.js). The countdown runs on the wall clock
//   to `run.goAtMs`: `COUNTDOWN_S` from the start, or the ticket's GO once its answer is here
//   (the server's GO, never earlier); with the manual clock (tests) GO comes at once without
//   a ticket and at the ticket's GO with one.
// - go: GO at a frame's time: the run's clock starts, the ticket commits the start.
// - finish: the finish line, the time limit (`RUN_SECONDS_MAX`) or `stop`: the recorder
//   finishes; a finished run gets its finish panel (shared/finish-panel.js), whose upload
//   (shared/submission.js) the race follows: upload, verified, refused, or kept (not sent
//   yet: it stays in this browser and can be sent again).
//
// What each state shows is the view's (`screens`, called on entering a state); the frame
// loop (play/loop.js) runs the ticks. A ranked run cannot be paused.

import { LiveRun } from './live-run.js';
import { RunTicket } from './ticket.js';

/** The countdown before GO (s). */
export const COUNTDOWN_S = 3;
/** Longest run (s): past it the run ends unfinished (a forgotten tab is not a race). */
export const RUN_SECONDS_MAX = 600;

/** The states, the events each accepts and where each leads. */
export const EVENTS = {
  loading: { loaded: 'ready', coreMissing: 'missing-core', fail: 'failed' },
  'missing-core': {},
  failed: {},
  ready: { start: 'countdown' },
  countdown: { start: 'countdown', go: 'racing' },
  racing: { start: 'countdown', finish: 'finished' },
  finished: { start: 'countdown', upload: 'submitting' },
  submitting: { start: 'countdown', verified: 'verified', refused: 'refused', kept: 'finished' },
  verified: { start: 'countdown' },
  refused: { start: 'countdown' },
};

/** States in which leaving the page loses the run in progress. */
const IN_PROGRESS = new Set(['countdown', 'racing']);

/** How the upload's states (shared/submission.js) move the race. */
const UPLOAD_EVENTS = {
  uploading: 'upload', verified: 'verified', rejected: 'refused', refused: 'refused', error: 'kept',
};

export class Race {
  #state = 'loading';

  /**
   * `screens`: per state, what the view shows on entering it (`screens[state](race, detail)`);
   * `manual`: the test clock (no countdown on the wall clock, no date in the replay).
   */
  constructor({ screens, manual }) {
    this.screens = screens;
    this.manual = manual;
    /** The current run (a LiveRun), from `loaded` on. */
    this.run = null;
    /** What a run needs, from `loaded`: {pogo, tuning, level, levelName, rate, identity,
     * ghosts (the live ones), signal}. */
    this.setup = null;
  }

  get state() {
    return this.#state;
  }

  /** Whether leaving now would lose a run in progress. */
  get inProgress() {
    return IN_PROGRESS.has(this.#state);
  }

  /** Takes `event` if the state accepts it (the only assignment of the state), then shows
   * the new state. */
  #take(event, detail) {
    const to = EVENTS[this.#state][event];
    if (!to) return false;
    this.#state = to;
    this.screens[to]?.(this, detail);
    return true;
  }

  // -- loading -----------------------------------------------------------------------------

  /** loading → ready: the level, the core and the ghosts are there; a first run is set up. */
  loaded(setup) {
    this.setup = setup;
    this.#newRun();
    this.#take('loaded');
  }

  /** loading → missing-core: the wasm module is not built (`error`: how to build it). */
  coreMissing(error) {
    this.#take('coreMissing', error);
  }

  /** loading → failed: the level (or something else the view needs) could not be had. */
  fail(error) {
    this.#take('fail', error);
  }

  // -- racing ------------------------------------------------------------------------------

  /**
   * → countdown: a new run. Resolves once the run has gone (the manual clock) or as soon as
   * the countdown is on (the wall clock); does nothing before the view is loaded.
   */
  start() {
    if (!EVENTS[this.#state].start) return Promise.resolve();
    const run = this.#newRun();
    // GO: COUNTDOWN_S from now, or the run ticket's GO once its answer is here.
    run.goAtMs = performance.now() + COUNTDOWN_S * 1000;
    const asked = this.#askTicket(run);
    this.#take('start');
    if (!this.manual) return Promise.resolve();
    // The manual clock: GO at once without a ticket; with one, at its GO (a timer), so that
    // the commitments the test's frames make are never before the server's GO.
    const goNow = () => {
      if (this.run === run && this.#state === 'countdown') this.go(run.ticket ? run.goAtMs : 0);
    };
    if (!asked) return Promise.resolve(goNow());
    return asked.then(() => new Promise((resolve) => {
      setTimeout(() => resolve(goNow()), run.ticket ? Math.max(0, run.goAtMs - performance.now()) : 0);
    }));
  }

  /** Each frame of the countdown (the wall clock): seconds left, or GO when none are. */
  countdownLeft(frameMs) {
    const run = this.run;
    if (this.#state !== 'countdown' || this.manual || run.goAtMs === null) return null;
    const left = (run.goAtMs - frameMs) / 1000;
    if (left <= 0) this.go(run.goAtMs);
    return left;
  }

  /** countdown → racing: GO at `t0Ms` on the performance clock; the ticket commits the start
   * (the state before the first tick). */
  go(t0Ms) {
    const run = this.run;
    if (!this.#take('go')) return;
    run.t0Ms = t0Ms;
    run.went = true;
    if (run.ticket) run.ticket.start(run.stateHash());
    else if (!run.openWhy) run.openWhy = 'an open race: the run ticket did not arrive before GO';
  }

  /** A checkpoint (null: the finish) reached on `tick`: kept, and committed by the ticket. */
  split(checkpoint, tick) {
    const run = this.run;
    run.ticket?.split(checkpoint, tick, run.stateHash());
    run.splits.push({ checkpoint, tick });
  }

  /** racing → finished: the finish line (`run.finishTick` set), the time limit, or a stop
   * (`why`: for a run that did not finish). */
  finish(why = `Time is up (${RUN_SECONDS_MAX / 60} minutes): the run did not finish.`) {
    if (!EVENTS[this.#state].finish) return;
    this.run.end();
    this.#take('finish', why);
  }

  // -- the upload --------------------------------------------------------------------------

  /** Follows `submission` (the finished run's upload) for as long as the run is current. */
  follow(submission) {
    const run = this.run;
    submission.onTransition((state) => {
      const event = UPLOAD_EVENTS[state];
      if (event && this.run === run) this.#take(event);
    });
  }

  // -- runs --------------------------------------------------------------------------------

  /** A fresh run (the previous one freed); the ghosts back to tick 0. */
  #newRun() {
    const { pogo, tuning, level, rate, identity, ghosts } = this.setup;
    this.run?.free();
    // The header's date: when the run began, to the second (none under the test clock, so
    // that runs at different frame rates give byte-identical replays).
    const date = this.manual ? '' : `${new Date().toISOString().slice(0, 19)}Z`;
    this.run = new LiveRun({ pogo, level, tuning, rate, playerName: identity?.name ?? '', date });
    for (const ghost of ghosts) ghost.reset();
    return this.run;
  }

  /** Asks for `run`'s ticket (with a token); resolves once it is there or refused. Null
   * without a token (the race is open at once). */
  #askTicket(run) {
    const { identity, levelName, signal } = this.setup;
    if (!identity) {
      run.openWhy = 'an open race: no name in this browser, so no run ticket';
      return null;
    }
    return RunTicket.mint(levelName, identity, signal).then(({ ticket, error }) => {
      if (error) run.openWhy = `an open race: no run ticket (${error})`;
      else if (run.went) run.openWhy = 'an open race: the run ticket arrived after GO';
      else {
        run.ticket = ticket;
        // The countdown ends at the server's GO, seen from here (never before it).
        run.goAtMs = ticket.goAtMs;
      }
    }, () => {});
  }

  /** Frees the run (the view is closing). */
  dispose() {
    this.run?.free();
    this.run = null;
  }
}
