// The play view's ghosts: verified runs raced beside the player, each re-simulated from its
// own inputs in lockstep (one tick of the ghost's for each tick of the player's), on the
// same core the server verified it with. A ghost that cannot be raced (missing, corrupt,
// refused by the verifier, of another level) is listed as refused, with why; the race goes
// on without it.

import { getJson, segment } from '../shared/api.js';
import { serverLimits } from '../shared/limits.js';
import { GHOSTS_MAX, GHOST_COLOURS, runIds } from '../shared/ghosts.js';
import { Event, Replay, hex } from '../pogo.mjs';

/**
 * The race's ghosts: the runs picked (`?ghosts=`), then the leader's and the player's own
 * best, at most GHOSTS_MAX. Each is fetched, checked by the wasm verifier (a ghost the
 * verifier refuses, of another level, or missing is listed as refused, with why) and set up
 * to re-simulate from its own inputs in lockstep with the player.
 */
export async function loadGhosts({ pogo, tuning, level, levelName, params, identity, view }) {
  const wanted = runIds(params.get('ghosts')).slice(0, GHOSTS_MAX).map((id) => ({ id, why: 'picked' }));
  if (params.get('leader') !== 'no') {
    try {
      const board = await getJson(`/api/levels/${segment(levelName)}/leaderboard?limit=1`, { signal: view.signal });
      if (board.entries[0]) wanted.push({ id: board.entries[0].run_id, why: 'leader', player: board.entries[0].player });
      if (identity) {
        const mine = await getJson(`/api/levels/${segment(levelName)}/leaderboard?around=${segment(identity.name)}&limit=1`, { signal: view.signal });
        const entry = mine.entries.find((e) => e.player.toLowerCase() === identity.name.toLowerCase());
        if (entry) wanted.push({ id: entry.run_id, why: 'your best', player: entry.player });
      }
    } catch (e) {
      if (e.name === 'AbortError') throw e;
      console.warn('no leader or personal-best ghost:', e);
    }
  }
  const picked = [];
  for (const w of wanted) {
    if (picked.length >= GHOSTS_MAX) break;
    const same = picked.find((p) => p.id === w.id);
    if (same) {
      if (w.why !== 'picked') same.why = w.why;
      continue;
    }
    picked.push({ ...w });
  }
  const verifier = pogo.verifier({ tuning });
  try {
    const loaded = [];
    for (const [i, w] of picked.entries()) {
      loaded.push(await loadGhost({ pogo, tuning, level, levelName, verifier, want: w, colour: GHOST_COLOURS[i], view }));
    }
    return loaded;
  } finally {
    verifier.free();
  }
}

async function loadGhost({ pogo, tuning, level, levelName, verifier, want, colour, view }) {
  const key = `run-${want.id}`;
  const base = { key, runId: want.id, colour, label: `${want.player ?? `run ${want.id}`}${want.why === 'picked' ? '' : ` (${want.why})`}` };
  const refuse = (why) => new Ghost({ ...base, refused: why });
  let bytes;
  try {
    // The largest replay the server accepts is the largest it serves: a longer answer is
    // not a replay (checked before and after reading).
    const { replay_bytes_max: bytesMax } = await serverLimits();
    const response = await fetch(`/api/runs/${want.id}/replay`, { signal: view.signal });
    if (!response.ok) {
      const body = await response.json().catch(() => null);
      return refuse(response.status === 404 ? 'no such run' : `the server said ${response.status} ${body?.message ?? ''}`.trim());
    }
    const length = Number(response.headers.get('content-length'));
    if (length > bytesMax) return refuse(`its replay is ${length} bytes, more than a ghost may be`);
    bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length > bytesMax) return refuse('its replay is too large');
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    return refuse(`cannot fetch it: ${e.message}`);
  }
  const verdict = verifier.verify(bytes);
  if (!verdict.verified) return refuse(`${verdict.kindName}: ${verdict.reason}`);
  let replay;
  try {
    replay = pogo.replay(bytes);
  } catch (e) {
    return refuse(`unreadable: ${e.message}`);
  }
  try {
    if (replay.levelName !== levelName) return refuse(`a run of ${replay.levelName}, not of ${levelName}`);
    const info = replay.info;
    const player = 0;
    const name = replay.playerName || want.player || `run ${want.id}`;
    return new Ghost({
      ...base, label: `${name}${want.why === 'picked' ? '' : ` (${want.why})`}`,
      pogo, tuning, level, players: info.players, ticks: info.ticks, player,
      inputs: Array.from({ length: info.players }, (_, p) => replay.inputs(p)),
      finishTick: verdict.finishTicks[player], finalHash: hex(verdict.finalHash),
    });
  } finally {
    replay.free();
  }
}

/** One ghost: its own simulation, stepped with its replay's inputs — kept in the module's
 * memory, every tick's in one block — one tick for each of the player's. */
class Ghost {
  constructor(options) {
    Object.assign(this, options);
    if (this.refused) return;
    this.block = this.pogo.inputs(Replay.interleave(this.inputs));
    this.inputs = null;
    this.sim = this.pogo.simulation({ level: this.level, tuning: this.tuning, players: this.players });
    // Its splits, from one pass over the whole run now (a split the player reaches first
    // still shows the gap to where the ghost will be): many ticks a call, stopping at each
    // tick with a checkpoint.
    this.splits = new Map();
    for (let at = 0; at < this.ticks;) {
      at += this.sim.stepMany(this.block, { first: at, ticks: this.ticks - at, stopEvents: Event.CHECKPOINT });
      if (!(this.sim.events[this.player] & Event.CHECKPOINT)) continue;
      const state = this.sim.player(this.player);
      if (state.checkpoint !== null && !this.splits.has(state.checkpoint)) this.splits.set(state.checkpoint, at - 1);
    }
    this.reset();
  }

  /** Back to the start (a new run of the player's). */
  reset() {
    this.frameEvents = 0;
    this.at = 0;
    this.sim.free();
    this.sim = this.pogo.simulation({ level: this.level, tuning: this.tuning, players: this.players });
  }

  /** The player's tick `tick` ran: the ghost runs it too, while its replay lasts. */
  step(tick) {
    if (this.refused || tick !== this.at || tick >= this.ticks) return;
    this.at += this.sim.stepMany(this.block, { first: tick, ticks: 1 });
    this.frameEvents |= this.sim.events[this.player];
  }

  /** The ghost's tick at checkpoint `checkpoint` (null: the finish), or null if never. */
  splitTick(checkpoint) {
    if (this.refused) return null;
    if (checkpoint === null) return this.finishTick ?? null;
    return this.splits.get(checkpoint) ?? null;
  }

  draw(alpha, dt) {
    if (!this.rig) return;
    const cur = this.sim.player(this.player);
    const prev = this.sim.previousPlayer(this.player);
    const teleported = (cur.events & Event.TELEPORT) !== 0 || this.sim.tick === 0;
    const t = this.sim.tick >= this.ticks ? 1 : alpha;
    const position = teleported ? cur.position
      : [0, 1, 2].map((i) => prev.position[i] + (cur.position[i] - prev.position[i]) * t);
    // Every event of the ticks since the last frame (a perfect landing two ticks ago too).
    const events = this.frameEvents | cur.events;
    this.frameEvents = 0;
    this.rig.update({
      position, lean: cur.lean, stateName: cur.stateName, events, stunTicksLeft: cur.stunTicksLeft,
      compressionT: cur.stateName === 'compression' ? 1 : null, velocity: cur.velocity,
    }, dt);
  }

  describe() {
    if (this.refused) return { key: this.key, runId: this.runId, refused: this.refused };
    const state = this.sim.player(this.player);
    return {
      key: this.key, runId: this.runId, label: this.label, colour: this.colour, tick: this.sim.tick,
      positionRaw: state.positionRaw.map(String), position: state.position, stateName: state.stateName,
      finishTick: this.finishTick, splits: Object.fromEntries(this.splits),
    };
  }

  free() {
    if (this.refused) return;
    this.sim.free();
    this.block.free();
  }
}
