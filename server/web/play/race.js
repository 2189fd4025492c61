// The race, as a state machine you can draw. A run is live by default (a room on the server,
// play/live-race.js); offline when the server's rooms cannot be reached, or with `?live=off`:
//
//   loading ─loaded─▶ ready ─join─▶ joining ─countdown─▶ countdown ─go─▶ racing ─finish─▶ finished ─upload─▶ submitting
//     │                 │              │                   ▲  ▲                  │            ▲           ├─verified─▶ verified
//     │                 │              └─start (offline)───┘  │                  │            └───kept────┤
//     │                 └─start (offline)─────────────────────┘                  │                        └─refused─▶ refused
//     │                                                                          └─file─▶ filing ─filed─▶ verified
//     ├─joined─▶ lobby ─countdown─▶ countdown            (#/room/ID, a racer)              ├─unfiled─▶ refused
//     ├─rejoin─▶ countdown                               (a reload mid-race: the seat back)
//     ├─watch─▶ watching                                  (#/room/ID, a spectator)          └─kept─▶ finished
//     ├─over─▶ over                                       (a room's result; from lobby, watching, finished,
//     ├─coreMissing─▶ missing-core                         filing, verified, refused too)
//     └─fail─▶ failed
//   and from countdown, racing, finished, filing, submitting, verified, refused: ─join─▶ joining
//   (a new live run: R, Play, Race again) or ─start─▶ countdown (a new offline run).
//
// `EVENTS` is the table: each state and the events it accepts, with the state each leads to.
// Each transition is one method of `Race`, and `#take` — the only code that assigns the
// state — refuses an event the state does not accept (a finish before GO, an upload's
// verdict once the racer has started another run).
//
// - join (live, `#/play/LEVEL`): a room of one is made and joined, and this racer is ready at
//   once; the room's countdown (the server's GO, seen through play/clock.js) follows. A room
//   that cannot be made or joined leaves the race offline: `start`.
// - start (offline): a new run; the countdown is COUNTDOWN_S. With a token, a run ticket is
//   asked for (play/ticket.js) in its last TICKET_ASK_BEFORE_GO_MS, and the countdown then
//   ends at the ticket's GO (`run.goAtMs`: the server's 1 s countdown, from the answer's
//   arrival). With the manual clock (tests) GO comes at once without a ticket; with one, the
//   ticket is asked for at once and GO comes at its GO.
// - countdown: the live race's GO is known: a fresh run whose replay header is dated GO (to
//   the second, as the server's recording), the rivals seated.
// - go: GO at a frame's time: the run's clock starts; the stream (live) or the ticket's start
//   commitment (offline) goes.
// - finish: the finish line, the time limit (`RUN_SECONDS_MAX`) or `stop`. A live racer with
//   a name who finished is filed by the server (`file` → filing → filed | unfiled); anyone
//   else gets the finish panel (shared/finish-panel.js), whose upload the race follows.
// - over: the room's race is over (`#/room/ID`): its result.
// - rejoin: the page was reloaded mid-race; this tab kept its seat (play/seat.js): the seat
//   is taken back with its key, the run re-simulated from the stream sent before and raced
//   on from where the wall clock says it is (a run cannot be paused).
//
// What each state shows is the view's (`screens`, called on entering a state; `screens.room`
// whenever the room changes); the frame loop (play/loop.js) runs the ticks. A ranked run
// cannot be paused.

import { PlayRun } from './run.js';
import { LiveRace } from './live-race.js';
import { makeRoom } from '../shared/rooms.js';
import { seatState } from './seat.js';
import { RunTicket } from './ticket.js';

/** The countdown before GO (s) of an offline run. */
export const COUNTDOWN_S = 3;
/** How long before the countdown's end a run ticket is asked for (ms): the server's own
 * countdown (`TICKET_COUNTDOWN_MS`), so that the ticket's GO falls where the page's
 * countdown ends, one answer's trip later. A game can begin at the ticket's issue, so the
 * server's countdown is what a run can bank beyond the slack: kept to what a page needs. */
const TICKET_ASK_BEFORE_GO_MS = 1000;
/** Longest run (s): past it the run ends unfinished (a forgotten tab is not a race). */
export const RUN_SECONDS_MAX = 600;
/** How long a finished live run waits for the server to file it before it is offered for
 * upload instead (ms). */
export const FILING_WAIT_MS = 30_000;

const AGAIN = { join: 'joining', start: 'countdown' };

/** A live run's replay header date: GO (Unix ms) to the second, as the server records it. */
const goDate = (goMs) => `${new Date(goMs).toISOString().slice(0, 19)}Z`;

/** The states, the events each accepts and where each leads. */
export const EVENTS = {
  loading: { loaded: 'ready', joined: 'lobby', watch: 'watching', over: 'over', rejoin: 'countdown', coreMissing: 'missing-core', fail: 'failed' },
  'missing-core': {},
  failed: {},
  ready: { ...AGAIN },
  joining: { ...AGAIN, countdown: 'countdown' },
  lobby: { countdown: 'countdown', over: 'over' },
  countdown: { ...AGAIN, go: 'racing' },
  racing: { ...AGAIN, finish: 'finished', file: 'filing' },
  finished: { ...AGAIN, upload: 'submitting', over: 'over' },
  filing: { ...AGAIN, filed: 'verified', unfiled: 'refused', kept: 'finished', over: 'over' },
  submitting: { ...AGAIN, verified: 'verified', refused: 'refused', kept: 'finished' },
  verified: { ...AGAIN, over: 'over' },
  refused: { ...AGAIN, over: 'over' },
  watching: { over: 'over' },
  over: {},
};

/** States in which leaving the page loses the run in progress. */
const IN_PROGRESS = new Set(['countdown', 'racing']);

/** How the upload's states (shared/submission.js) move the race. */
const UPLOAD_EVENTS = {
  uploading: 'upload', verified: 'verified', rejected: 'refused', refused: 'refused', error: 'kept',
};

export class Race {
  #state = 'loading';
  /** Resolves a live join's promise with the run the room's countdown made (or null). */
  #counted = null;

  /**
   * `screens`: per state, what the view shows on entering it (`screens[state](race, detail)`),
   * and `screens.room(race)` when the room changes; `manual`: the test clock (no countdown on
   * the wall clock, no date in an offline replay); `live`: whether Play races live.
   */
  constructor({ screens, manual, live = true, mode = 'solo' }) {
    this.screens = screens;
    this.manual = manual;
    this.liveWanted = live;
    /** 'solo' (`#/play/LEVEL`: Play makes a room of one) or 'room' (`#/room/ID`). */
    this.mode = mode;
    /** The current run (a PlayRun), from `loaded` on. */
    this.run = null;
    /** The live race (a LiveRace) of the current run or of the room, or null (offline). */
    this.live = null;
    /** What a run needs, from `loaded`: {pogo, tuning, level, levelName, rate, identity,
     * playerName (the replay's, when not the identity's), ghosts (the live ones), signal}. */
    this.setup = null;
    /** The server's filing of this racer's live run: {runId, status (GET /api/runs/ID)} or
     * {why} (not filed). */
    this.filing = null;
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

  /**
   * loading → lobby | watching | over (`#/room/ID`): joins room `roomId` as a racer while it
   * is in its lobby, as a spectator once it has started; shows the result once it is over.
   * Rejects when the room cannot be joined.
   */
  async enterRoom(setup, roomId, phase) {
    this.setup = setup;
    this.#newRun();
    if (phase === 'over') {
      // While the room lingers its streams are there to draw the racers where they ended;
      // after, the result alone (from the database).
      const live = this.#liveRace(roomId, 'spectator');
      this.live = live;
      try {
        await live.join();
        live.seatRivals();
      } catch {
        live.view = await live.fetchView();
      }
      this.#take('over');
      return;
    }
    const role = phase === 'lobby' ? 'racer' : 'spectator';
    const live = this.#liveRace(roomId, role);
    this.live = live;
    await live.join();
    if (role === 'spectator' || live.me === null) {
      live.seatRivals();
      this.#take('watch');
    } else {
      this.#take('joined');
    }
    this.#onRoom(live, live.view);
  }

  /**
   * loading → countdown: takes back this tab's seat in a race it raced before a reload
   * (`seat`: play/seat.js). The run is re-simulated from the stream it sent (its inputs as
   * filed) and goes on from the tick the wall clock says, its next message after the last
   * sent; at GO (at once, it is past) what the server lacks is sent again. Resolves with
   * null, or with the racer's state when the seat cannot race on ('left', 'cut', …, or
   * 'gone': the room or the key is unknown): then nothing changed.
   */
  async rejoin(setup, seat) {
    this.setup = setup;
    const state = seatState(seat);
    const live = this.#liveRace(seat.roomId, 'racer');
    live.resumeSeat(seat, state);
    try {
      await live.join();
    } catch {
      live.free();
      return 'gone';
    }
    const mine = live.myView;
    const racing = mine && (mine.state === 'waiting' || mine.state === 'racing' || (mine.state === 'finished' && state.finished));
    if (!racing || live.view.go_ms === null) {
      live.leave();
      live.free();
      return mine?.state ?? 'gone';
    }
    this.live = live;
    const run = this.#newRun(goDate(live.view.go_ms));
    run.goAtMs = live.goAtMs();
    run.queued = state.inputs;
    live.seatRivals();
    this.#take('rejoin');
    if (this.manual) this.#goAt(run);
    this.screens.room?.(this);
    return null;
  }

  /** loading → missing-core: the wasm module is not built (`error`: how to build it). */
  coreMissing(error) {
    this.#take('coreMissing', error);
  }

  /** loading → failed: the level (or something else the view needs) could not be had. */
  fail(error) {
    this.#take('fail', error);
  }

  // -- a live run -------------------------------------------------------------------------

  /**
   * → joining: a new live run in a room of one (Play, R, Race again on `#/play/LEVEL`);
   * offline if the room cannot be had. Resolves when the run has gone (the manual clock) or
   * once its countdown is on (the wall clock).
   */
  async join() {
    if (!EVENTS[this.#state].join || this.mode === 'room') return;
    this.#leaveLive();
    const run = this.#newRun();
    this.#take('join');
    const { levelName, identity } = this.setup;
    const counted = new Promise((resolve) => { this.#counted = resolve; });
    let live = null;
    try {
      const roomId = await makeRoom(levelName);
      if (this.run !== run) return;
      live = this.#liveRace(roomId, 'racer');
      this.live = live;
      await live.join();
      live.link.ready(true);
    } catch (e) {
      if (this.run !== run) return;
      live?.free();
      this.live = null;
      await this.#offline(run, `an open race: the live race could not start (${e.message}), so it ran offline`);
      return;
    }
    const dated = await counted;
    if (dated && identity && !live.registered) dated.openWhy = 'an open race: the room did not take your token, so you raced as a guest';
    if (dated) await this.#goneOrCounting(dated);
  }

  /** A LiveRace of room `roomId` in `role`, whose news reach this race while it is current. */
  #liveRace(roomId, role) {
    const { identity, pogo, level, tuning, rate } = this.setup;
    const live = new LiveRace({
      roomId, role, identity, core: { pogo, level, tuning, rate },
      on: {
        room: (view) => this.#onRoom(live, view),
        desync: (message) => this.#onDesync(live, message),
        link: (type, detail) => this.#onLink(live, type, detail),
      },
    });
    return live;
  }

  /** The room changed: its countdown, this racer's filing, the race's end. */
  #onRoom(live, view) {
    if (this.live !== live) return;
    // The rivals stand at the start in the lobby already (drawn, named) as racers come and go.
    if (this.#state === 'lobby') live.seatRivals();
    if (view.go_ms !== null && (this.#state === 'joining' || this.#state === 'lobby')) this.#countdown(live, view);
    if (this.filing?.pending) this.#checkFiling(live);
    if (view.phase === 'over' && this.mode === 'room') this.#take('over');
    this.screens.room?.(this);
  }

  /** joining | lobby → countdown: GO is set; a fresh run dated GO, the rivals seated. */
  #countdown(live, view) {
    const run = this.#newRun(goDate(view.go_ms));
    run.goAtMs = live.goAtMs();
    live.seatRivals();
    this.#take('countdown');
    if (this.manual) this.#goAt(run);
    this.#counted?.(run);
    this.#counted = null;
  }

  /** With the manual clock: GO by a timer at the run's GO (the test's frames follow). */
  #goAt(run) {
    run.went = false;
    run.manualGo = new Promise((resolve) => {
      setTimeout(() => {
        if (this.run === run && this.#state === 'countdown') this.go(run.goAtMs);
        resolve();
      }, Math.max(0, run.goAtMs - performance.now()));
    });
  }

  /** Resolves when `run` has gone (manual clock) or at once. */
  #goneOrCounting(run) {
    return this.manual && run.manualGo ? run.manualGo : Promise.resolve();
  }

  #onDesync(live, message) {
    if (this.live !== live) return;
    this.screens.desync?.(this, message);
  }

  /** The link was cut ('cut'), came back ('resumed') or is gone for good ('closed'). */
  #onLink(live, type, detail) {
    if (this.live !== live) return;
    if (type === 'closed' && this.#state === 'filing') this.#keep('the connection to the room was lost before the run was filed');
    this.screens.link?.(this, type, detail);
  }

  /** Ready (or not) in the lobby. */
  setReady(ready) {
    this.live?.link.ready(ready);
  }

  // -- an offline run ---------------------------------------------------------------------

  /**
   * → countdown: a new offline run (with `?live=off`, or when the server's rooms cannot be
   * reached). Resolves once the run has gone (the manual clock) or as soon as the countdown
   * is on (the wall clock); does nothing before the view is loaded.
   */
  start() {
    if (!EVENTS[this.#state].start || this.mode === 'room') return Promise.resolve();
    if (this.liveWanted) return this.join();
    this.#leaveLive();
    return this.#offline(this.#newRun(), null);
  }

  /** `run` raced offline (`why`: why it is not live, or null when it was not asked to be). */
  #offline(run, why) {
    // GO: COUNTDOWN_S from now, or the run ticket's GO once its answer is here.
    run.goAtMs = performance.now() + COUNTDOWN_S * 1000;
    if (why) run.offlineWhy = why;
    if (!this.manual) {
      this.#take('start');
      // The ticket in the countdown's last second (nothing if the run is over by then).
      setTimeout(() => {
        if (this.run === run && this.#state === 'countdown') this.#askTicket(run);
      }, COUNTDOWN_S * 1000 - TICKET_ASK_BEFORE_GO_MS);
      return Promise.resolve();
    }
    const asked = this.#askTicket(run);
    this.#take('start');
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

  // -- racing -----------------------------------------------------------------------------

  /** Each frame of the countdown (the wall clock): seconds left, or GO when none are. */
  countdownLeft(frameMs) {
    const run = this.run;
    if (this.#state !== 'countdown' || this.manual || run.goAtMs === null) return null;
    const left = (run.goAtMs - frameMs) / 1000;
    if (left <= 0) this.go(run.goAtMs);
    return left;
  }

  /** countdown → racing: GO at `t0Ms` on the performance clock: the stream goes (live), or
   * the ticket commits the start (the state before the first tick). */
  go(t0Ms) {
    const run = this.run;
    if (!this.#take('go')) return;
    run.t0Ms = t0Ms;
    run.went = true;
    if (this.live) this.live.release();
    else if (run.ticket) run.ticket.start(run.stateHash());
    else if (!run.openWhy) run.openWhy = run.offlineWhy ?? 'an open race: the run ticket did not arrive before GO';
  }

  /** The player's input changes at run time `ns`: the driver files it, the stream sends it
   * as filed. The filed time (BigInt). */
  input(ns, input) {
    const filed = this.run.input(ns, input);
    this.live?.input(filed, input);
    return filed;
  }

  /** A checkpoint (null: the finish) reached on `tick`: kept, committed by the ticket,
   * streamed to the room. */
  split(checkpoint, tick) {
    const run = this.run;
    run.ticket?.split(checkpoint, tick, run.stateHash());
    this.live?.split(checkpoint, tick, run.sim.stateHash());
    run.splits.push({ checkpoint, tick });
  }

  /** Tick `tick` ran (after its splits): the stream's heartbeat. */
  ran(tick) {
    this.live?.ran(tick);
  }

  /** racing → finished | filing: the finish line (`run.finishTick` set), the time limit, or
   * a stop (`why`: for a run that did not finish). */
  finish(why = `Time is up (${RUN_SECONDS_MAX / 60} minutes): the run did not finish.`) {
    if (!EVENTS[this.#state].finish) return;
    const run = this.run;
    run.end();
    const live = this.live;
    if (live && run.finishTick === null) live.leave(run.sim.tick - 1);
    const filed = live && run.finishTick !== null && live.registered && !live.link.closed && !this.myDesync;
    if (live && !filed && run.finishTick !== null && !run.openWhy) {
      run.openWhy = !live.registered ? 'an open race: raced live as a guest (the room relays a guest\'s run but files none)'
        : live.link.closed ? `an open race: the connection to the room was lost (${live.link.closed.reason || live.link.closed.code})`
          : 'an open race: the room will not file it (a desync)';
    }
    if (!filed) {
      this.#take('finish', why);
      return;
    }
    this.filing = { pending: true, runId: null, status: null };
    this.#take('file');
    this.#checkFiling(live);
    setTimeout(() => {
      if (this.run !== run || !this.filing?.pending) return;
      const why = `the server did not file it within ${FILING_WAIT_MS / 1000} s`;
      if (this.#state === 'filing') this.#keep(why);
      else {
        this.filing = { why };
        this.screens.room?.(this);
      }
    }, FILING_WAIT_MS);
  }

  /** This racer's desync, as the room named it (null: none). */
  get myDesync() {
    const me = this.live?.me;
    return me === null || me === undefined ? null : this.live.desyncs.find((d) => d.racer === me) ?? null;
  }

  /** filing → verified | refused: the room filed this racer's run (its status read), or
   * says it will not (desynced). The filing is followed whatever the race's state (the room
   * may be over first); only `filing` moves on. */
  #checkFiling(live) {
    const mine = live.myView;
    const desync = this.myDesync;
    if (desync || mine?.state === 'desynced') {
      const why = desync
        ? `your page's state at tick ${desync.tick} (${desync.found}) is not the server's (${desync.expected}): a desync, so the run is not filed`
        : 'your page disagreed with the server\'s re-simulation: a desync, so the run is not filed';
      this.filing = { why };
      this.#take('unfiled', why);
      return;
    }
    if (!mine?.run_id || this.filing.runId === mine.run_id) return;
    const run = this.run;
    const filing = { pending: true, runId: mine.run_id, status: null };
    this.filing = filing;
    live.fetchRun(mine.run_id).then((status) => {
      if (this.run !== run || this.filing !== filing) return;
      filing.status = status;
      filing.pending = false;
      if (!this.#take('filed', filing)) this.screens.room?.(this);
    }, (e) => {
      if (this.run === run && this.filing === filing) {
        this.filing = null;
        this.#keep(`its status cannot be read (${e.message})`);
      }
    });
  }

  /** filing → finished: the server will not file the run after all; it is kept here and
   * offered for upload (`why`). */
  #keep(why) {
    this.run.openWhy = `an open race: ${why}`;
    if (this.filing?.pending) this.filing = null;
    this.#take('kept');
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

  /** A fresh run (the previous one freed) recorded with `date` in its header; the ghosts
   * back to tick 0. */
  #newRun(date = this.#offlineDate()) {
    const { pogo, tuning, level, rate, identity, ghosts, playerName } = this.setup;
    this.run?.free();
    this.filing = null;
    this.run = new PlayRun({ pogo, level, tuning, rate, playerName: playerName ?? identity?.name ?? '', date });
    for (const ghost of ghosts) ghost.reset();
    return this.run;
  }

  /** An offline run's header date: when it began, to the second (none under the test clock,
   * so that runs at different frame rates give byte-identical replays). */
  #offlineDate() {
    return this.manual ? '' : `${new Date().toISOString().slice(0, 19)}Z`;
  }

  /** Asks for `run`'s ticket (with a token); resolves once it is there or refused. Null
   * without a token (the race is open at once). */
  #askTicket(run) {
    const { identity, levelName, signal } = this.setup;
    if (!identity) {
      run.openWhy = run.offlineWhy ?? 'an open race: no name in this browser, so no run ticket';
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

  /** Leaves the current live race (a run in progress: as far as it ran). */
  #leaveLive() {
    this.#counted?.(null);
    this.#counted = null;
    const live = this.live;
    if (!live) return;
    this.live = null;
    const racing = this.#state === 'racing';
    live.leave(racing ? this.run.sim.tick - 1 : null);
    live.free();
  }

  /** Frees the run and leaves the room (the view is closing). */
  dispose() {
    this.#leaveLive();
    this.run?.free();
    this.run = null;
  }
}
