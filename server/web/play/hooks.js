// `window.__pogo.play`: the play view read back (and, with `?clock=manual`, driven) by the
// browser tests and the benchmark. Reads only: nothing here changes the race except
// `start`, `frame`, `input`, `stop`, `ready` and `follow`, which do what a racer's Play, a
// frame, a key, the time limit, the lobby's Ready button and a click on a racer's name do,
// and `cut`, which drops the room's socket as a cut cable would (the page comes back).

import { hex } from '../pogo.mjs';

/** BigInts as strings (tests read states through JSON). */
function jsonSafe(value) {
  if (value === undefined || value === null) return null;
  return JSON.parse(JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? v.toString() : v)));
}

/** The hook of a play view: its `race`, frame `loop`, all `ghosts`, `controls`, core. */
export function playHook({ race, loop, ghosts, controls, pogo, rate }) {
  const run = () => race.run;
  return {
    get state() { return race.state; },
    start: () => race.start(),
    /** Manual clock: one frame at run time `ns` (number or BigInt). */
    frame: (ns) => loop.frame(performance.now(), BigInt(ns)),
    /** Manual clock: the player's input changes at run time `ns`; the time it was filed at. */
    input: (ns, input) => race.input(BigInt(ns), input).toString(),
    /** Ends the run now, as the time limit does (recorded, unfinished, no upload panel);
     * the ticks it ran. For tests whose script stops short of the finish. */
    stop: () => {
      race.finish('The run was stopped before the finish.');
      return run()?.sim.tick ?? null;
    },
    tick: () => run()?.sim.tick ?? null,
    /** The run's clock: GO on the performance clock (ms, null before GO), now, ticks run. */
    clock: () => ({ t0Ms: run()?.t0Ms ?? null, nowMs: performance.now(), ticks: run()?.sim.tick ?? null, rate }),
    player: () => jsonSafe(run()?.sim.player(0)),
    hash: () => (run() ? hex(run().sim.stateHash()) : null),
    replay: () => (run()?.bytes ? Array.from(run().bytes) : null),
    result: () => (run()?.over ? run().summary() : null),
    splits: () => run()?.splits ?? [],
    /** The run's ticket: {id, problem, sent: [{kind, tick, ok}]}, or null (`openWhy`). */
    ticket: () => run()?.ticket?.summary() ?? null,
    openWhy: () => run()?.openWhy ?? null,
    ghosts: () => ghosts.map((g) => g.describe()),
    devices: () => [...(controls?.used ?? [])],
    lastInput: () => run()?.lastInput ?? null,
    frameTimes: () => [...loop.frameTimes],
    rulesVersion: pogo.rulesVersion,
    // -- a live race --------------------------------------------------------------------
    /** The live race: {roomId, role, me, phase, goMs, link: {…, cuts, resumes, offsetMs},
     * desyncs, rivals: [{racer, name, confirmed: {tick, hash, positionRaw}, shown, splits}]},
     * or null (offline). */
    live: () => jsonSafe(race.live?.describe() ?? null),
    /** The room's view as the page last heard it. */
    room: () => race.live?.view ?? null,
    /** Every stream message the page sent (bytes), in order. */
    sent: () => race.live?.sentStream() ?? [],
    /** The server's filing of the finished run: {runId, status} or {why}, or null. */
    filing: () => jsonSafe(race.filing),
    /** A spectator's display time now (ns since GO, a string): what `frame` shows. */
    displayNs: () => (race.live?.displayNs() ?? 0n).toString(),
    /** The tick the rivals are drawn at this frame. */
    liveTick: () => loop.liveLayer.target,
    /** Ready (or not) in a room's lobby. */
    ready: (ready = true) => race.setReady(ready),
    /** A spectator's camera follows racer `racer` (null: the leader). */
    follow: (racer) => { loop.liveLayer.follow = racer; },
    /** Drops the room's socket without a word (a cut); the link resumes by itself. */
    cut: () => race.live?.link.cut(),
  };
}
