// The live race on screen, each frame (play/loop.js calls `frame`): which tick the rivals are
// drawn at, their rigs (one per rival, in the palette, with their names), a correction
// smoothed rather than drawn as a jump (play/smoothing.js), and the HUD's standings: who is
// connected, where each racer is, and the gap to each at the latest checkpoint both reached.
//
// The tick on screen: a racer racing draws the rivals at their own tick (the current one);
// before GO at tick 0; once their own run is over, and for a spectator, at the ticks due by
// the time on screen — the racer's own clock since GO, or a spectator's display clock a few
// hundred ms behind the server's (play/live-race.js: SPECTATOR_DELAY_MS).

import { checkpointLabel, tickClock } from '../shared/format.js';
import { colourOf } from '../shared/ghosts.js';
import { CATCH_UP_TICKS_MAX, WATCH_CATCH_UP_TICKS_MAX } from './rivals.js';

/** The standings are redrawn at most this often (ms of wall time), and when they change. */
const STANDINGS_EVERY_MS = 250;
/** A rival closer than this to the player (m, on the ground) is drawn see-through at
 * NEAR_OPACITY: racers on one line would hide the player's own pogo. */
const NEAR_M = 2.5;
const NEAR_OPACITY = 0.35;

/** The tick to show when watching `drawn` ({rival, sim}) at `target`: the lowest tick drawn
 * of a rival still catching up, else `target`. */
function drawnTick(drawn, target) {
  let tick = target;
  for (const { rival, sim } of drawn) {
    if (rival.catchingUp(target)) tick = Math.min(tick, sim.tick);
  }
  return tick;
}

const lerp3 = (a, b, t) => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];

export class LiveLayer {
  constructor({ race, stage, hud, rate }) {
    Object.assign(this, { race, stage, hud, rate });
    /** Each rival's rig (null without a 3D view). */
    this.rigs = new Map();
    this.target = 0;
    this.standingsAt = -Infinity;
    this.standingsKey = '';
    /** Whom a spectator's camera follows (a racer number; null: the leader). */
    this.follow = null;
  }

  /** The tick the rivals are drawn at this frame (`nowNs`: the manual clock's time). */
  targetTick(frameMs, nowNs) {
    const { race } = this;
    const live = race.live;
    const run = race.run;
    if (race.state === 'racing') return run.sim.tick;
    // A race that is over stops where its longest run ended (a finished room opened later).
    if (race.state === 'watching' || race.state === 'over') return Math.min(live.ticksDue(nowNs ?? live.displayNs()), live.endTicks ?? Infinity);
    if (run?.t0Ms !== null && run?.went) return live.ticksDue(nowNs ?? run.nsAt(frameMs));
    return 0;
  }

  /**
   * One frame: the rivals brought to the tick on screen and drawn at `alpha` between their
   * last two ticks (racing: the player's alpha; otherwise their newest state), see-through
   * near `player` (the player's drawn position; null for a spectator). The followed racer's
   * position (a spectator's camera), or null.
   */
  frame({ frameMs, nowNs, alpha, dt, player = null }) {
    const live = this.race.live;
    if (!live) {
      this.syncRigs([]);
      return null;
    }
    this.target = this.targetTick(frameMs, nowNs);
    const racing = this.race.state === 'racing';
    const drawn = live.rivalsAt(this.target, racing ? CATCH_UP_TICKS_MAX : WATCH_CATCH_UP_TICKS_MAX);
    // Watching, the clock and the standings wait for the pogos: while a rival is still
    // re-simulating the stream so far (a spectator who joined mid-race), the time shown is the
    // tick they are drawn at, so the three always agree.
    if (!racing) this.target = drawnTick(drawn, this.target);
    this.syncRigs(drawn.map((d) => d.rival));
    const t = this.race.state === 'racing' ? alpha : 1;
    let followed = null;
    const wanted = this.follow ?? this.leader(drawn);
    for (const { rival, sim } of drawn) {
      const cur = sim.player(0);
      const prev = sim.previousPlayer(0);
      const jumped = cur.stateName === 'respawn' || sim.tick === 0;
      const position = rival.smoothing.apply(jumped ? cur.position : lerp3(prev.position, cur.position, t), dt);
      if (rival.racer === wanted) followed = { position, velocity: cur.velocity, rival, jumped };
      const rig = this.rigs.get(rival);
      const near = player && Math.hypot(position[0] - player[0], position[2] - player[2]) < NEAR_M;
      rig?.fade(near ? NEAR_OPACITY : 1);
      rig?.update({
        position, lean: cur.lean, stateName: cur.stateName, events: cur.events, stunTicksLeft: cur.stunTicksLeft,
        compressionT: cur.stateName === 'compression' ? 1 : null, velocity: cur.velocity,
      }, dt);
    }
    this.standings(frameMs);
    return followed;
  }

  /** The racer furthest on: most splits, then the earliest last split, then the lowest seat. */
  leader(drawn) {
    let best = null;
    for (const { rival } of drawn) {
      const splits = rival.splits.size;
      const last = splits ? [...rival.splits.values()].at(-1).tick : 0;
      if (!best || splits > best.splits || (splits === best.splits && last < best.last)) best = { racer: rival.racer, splits, last };
    }
    return best?.racer ?? null;
  }

  /** A rig for each rival drawn, none for a rival gone (a new race). */
  syncRigs(rivals) {
    const wanted = new Set(rivals);
    for (const [rival, rig] of this.rigs) {
      if (!wanted.has(rival)) {
        if (rig) this.stage.removePogo(rig);
        this.rigs.delete(rival);
      }
    }
    for (const rival of rivals) {
      if (!this.rigs.has(rival)) {
        this.rigs.set(rival, this.stage?.addPogo({ colour: rival.colour, label: rival.name, named: true }) ?? null);
      }
    }
  }

  /** The HUD's standings, when they changed (at most every STANDINGS_EVERY_MS). */
  standings(frameMs) {
    if (frameMs - this.standingsAt < STANDINGS_EVERY_MS) return;
    this.standingsAt = frameMs;
    const rows = this.rows();
    const key = JSON.stringify(rows);
    if (key === this.standingsKey) return;
    this.standingsKey = key;
    const watching = this.race.live.role === 'spectator';
    this.hud.setRivals(rows, watching ? 'Racers · click one to follow' : 'Rivals', watching ? (key) => this.pick(key) : null);
  }

  /** One row a racer of the room (this page's own aside): name, colour, connected, what
   * they are doing, and the gap to them (a racer) or their last split (a spectator: only
   * splits already on screen, never ahead of the race it shows). */
  rows() {
    const live = this.race.live;
    const mine = new Map((this.race.run?.splits ?? []).map((s) => [s.checkpoint === null ? 'finish' : s.checkpoint, s.tick]));
    const shown = (split) => live.role === 'racer' || split[1].tick < this.target;
    return (live.view?.racers ?? []).filter((r) => r.racer !== live.me).map((r) => {
      const rival = live.rivals.get(r.racer);
      const valid = rival && r.state !== 'desynced';
      const gap = valid && live.role === 'racer' ? rival.gapTo(mine) : null;
      const last = valid ? [...rival.splits].filter(shown).at(-1) ?? null : null;
      return {
        key: `racer-${r.racer}`, name: r.name, colour: colourOf(r.racer), connected: r.connected, ready: r.ready, state: r.state,
        gap: gap && { label: checkpointLabel(gap.key === 'finish' ? null : gap.key), ticks: gap.ticks },
        last: last && { label: checkpointLabel(last[0] === 'finish' ? null : last[0]), time: tickClock(last[1].tick, this.rate) },
        followed: live.role === 'spectator' && (this.follow ?? this.leaderOf()) === r.racer,
      };
    });
  }

  /** A spectator follows the racer of row `key` (`racer-N`); the standings redraw at once. */
  pick(key) {
    this.follow = Number(key.slice('racer-'.length));
    this.standingsAt = -Infinity;
  }

  leaderOf() {
    return this.leader([...this.race.live.rivals.values()].map((rival) => ({ rival })));
  }

  dispose() {
    this.syncRigs([]);
  }
}
