// `window.__pogo.play`: the play view read back (and, with `?clock=manual`, driven) by the
// browser tests and the benchmark. Reads only: nothing here changes the race except
// `start`, `frame`, `input` and `stop`, which do what a racer's Play, a frame, a key and the
// time limit do.

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
    /** Manual clock: the player's input changes at run time `ns`. */
    input: (ns, input) => run().input(BigInt(ns), input).toString(),
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
  };
}
