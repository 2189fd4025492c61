// The play view's frame, in order (Fix Your Timestep, with the core's frame driver as the
// accumulator):
//   1. countdown: the seconds left, or GO (the race's transition) at the frame that reaches it;
//   2. input: the devices were stamped as they changed (play/input.js); the gamepad, which
//      can only be polled, is read now and its changes stamped with this frame's time;
//   3. advance: the driver runs every tick that became due, one call per tick; after each,
//      the ghosts step the same tick and the tick's events are read (a checkpoint, the finish),
//      then the live stream's heartbeat (play/live-race.js);
//   4. render: previous + (current − previous) · alpha, except across a teleport; a live
//      race's rivals at the tick on screen (play/live-view.js), which a spectator's camera
//      follows instead of a pogo of their own;
//   5. hud: the clock, speed, combo.
// The view never decides when a tick runs, and floats appear only in step 4.

import { Event } from '../pogo.mjs';
import { LiveLayer } from './live-view.js';
import { RUN_SECONDS_MAX } from './race.js';

/** Frame times kept for the HUD's and the tests' statistics. */
const FRAME_TIMES_KEPT = 600;
/** The longest step the camera and rigs animate in one frame (s): a stalled frame jumps. */
const DT_MAX_S = 0.1;

const lerp3 = (a, b, t) => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];

/** The rig's view of a pogo: interpolated tip, lean, state, this frame's events. */
export function rigView(state, position, events) {
  return {
    position, lean: state.lean, stateName: state.stateName, events, stunTicksLeft: state.stunTicksLeft,
    compressionT: state.stateName === 'compression' ? 1 : null, velocity: state.velocity,
  };
}

export class FrameLoop {
  /**
   * `race` (play/race.js); `controls` (null with the manual clock); `stage`, `chase`,
   * `playerRig` (null without the 3D view); `hud`; `ghosts` (the live ones); `geometry` (the
   * level's JSON: its checkpoints).
   */
  constructor({ race, controls, stage, chase, playerRig, hud, ghosts, geometry }) {
    Object.assign(this, { race, controls, stage, chase, playerRig, hud, ghosts, geometry });
    this.frameTimes = [];
    this.lastFrameMs = null;
    this.liveLayer = new LiveLayer({ race, stage, hud, rate: geometry.tick_rate });
  }

  /** A spectator's view: no pogo of their own, the camera on a racer. */
  get spectating() {
    return this.race.live?.role === 'spectator';
  }

  /** One frame at `frameMs` (performance clock) or, with the manual clock, at run time
   * `nowNs`; the race tick it drew (fractional: interpolated), -1 before a run. */
  frame(frameMs, nowNs) {
    const started = performance.now();
    this.countdown(frameMs);
    this.input(frameMs);
    const alpha = this.advance(frameMs, nowNs);
    const tick = this.race.run ? this.render(alpha, frameMs, nowNs) : -1;
    if (this.race.run) this.hudUpdate(frameMs);
    this.stats(started, frameMs);
    return tick;
  }

  /** 1. The countdown's seconds on the HUD; GO when they run out. */
  countdown(frameMs) {
    const left = this.race.countdownLeft(frameMs);
    if (left !== null && left > 0) this.hud.setCountdown(Math.ceil(left));
  }

  /** 2. The gamepad polled (steering relative to the camera's heading). */
  input(frameMs) {
    this.controls?.poll(frameMs, this.chase?.heading);
  }

  /** 3. Every tick due by now; the interpolation factor of this frame (0 when not racing). */
  advance(frameMs, nowNs) {
    const run = this.race.run;
    if (!run || this.race.state !== 'racing') return 0;
    const info = run.advance(nowNs ?? run.nsAt(frameMs), (tick) => this.afterTick(tick));
    return info ? info.alpha : 0;
  }

  /** After tick `tick` ran: the ghosts step it, its events are read. */
  afterTick(tick) {
    const { race } = this;
    const run = race.run;
    for (const ghost of this.ghosts) ghost.step(tick);
    const state = run.sim.player(0);
    run.frameEvents |= state.events;
    if (state.events & Event.CHECKPOINT && state.checkpoint !== null) this.checkpoint(state.checkpoint, tick);
    if (state.events & Event.FINISH) {
      run.finishTick = state.finishTick;
      this.split(null, state.finishTick);
      race.finish();
    } else if (run.sim.tick >= RUN_SECONDS_MAX * run.rate) {
      race.finish();
    } else {
      race.ran(tick);
    }
  }

  /** Checkpoint `checkpoint` reached on `tick`: its split, and the next one marked. */
  checkpoint(checkpoint, tick) {
    this.split(checkpoint, tick);
    const next = checkpoint + 1 < this.geometry.checkpoints.length ? checkpoint + 1 : null;
    this.stage?.setNextCheckpoint?.(next);
  }

  /** A split (null: the finish) to the race and the HUD, with each ghost's and each rival's
   * at the same place (a rival not there yet is left out). */
  split(checkpoint, tick) {
    this.race.split(checkpoint, tick);
    const rows = this.ghosts.map((g) => ({ key: g.key, name: g.label, colour: g.colour, tick: g.splitTick(checkpoint) }));
    for (const rival of this.race.live?.rivals.values() ?? []) {
      const theirs = rival.splits.get(checkpoint === null ? 'finish' : checkpoint);
      rows.push({ key: `racer-${rival.racer}`, name: rival.name, colour: rival.colour, tick: theirs?.tick ?? null });
    }
    this.hud.showSplit(checkpoint, tick, rows, performance.now());
  }

  /** 4. The player, the ghosts, the rivals and the camera at `alpha` between the last two
   * ticks; a spectator's camera on the racer followed. The tick drawn (fractional). */
  render(alpha, frameMs, nowNs) {
    const run = this.race.run;
    const dt = this.lastFrameMs === null ? 1 / 60 : Math.min(DT_MAX_S, Math.max(0, (frameMs - this.lastFrameMs) / 1000));
    if (this.spectating) return this.renderWatched(this.liveLayer.frame({ frameMs, nowNs, alpha, dt }), dt);
    const cur = run.sim.player(0);
    const prev = run.sim.previousPlayer(0);
    const teleported = (cur.events & Event.TELEPORT) !== 0 || cur.stateName === 'respawn';
    const position = teleported || run.sim.tick === 0 ? cur.position : lerp3(prev.position, cur.position, alpha);
    this.liveLayer.frame({ frameMs, nowNs, alpha, dt, player: position });
    const events = run.frameEvents;
    run.frameEvents = 0;
    const tickFloat = run.sim.tick === 0 ? 0 : run.sim.tick - 2 + (teleported ? 1 : alpha);
    if (!this.stage) return tickFloat;
    this.stage.setTick(Math.max(0, tickFloat));
    this.playerRig?.update(rigView(cur, position, events), dt);
    if (teleported) this.chase.reset(position);
    else this.chase.update(position, cur.velocity, dt);
    for (const ghost of this.ghosts) ghost.draw(alpha, dt);
    this.stage.render(this.chase.camera);
    return tickFloat;
  }

  /** A spectator's frame: the followed racer in the middle, no pogo of their own. */
  renderWatched(followed, dt) {
    const tick = this.liveLayer.target;
    if (!this.stage) return tick;
    this.stage.setTick(Math.max(0, tick - 1));
    if (this.playerRig) this.playerRig.object.visible = false;
    if (followed?.jumped) this.chase.reset(followed.position);
    else if (followed) this.chase.update(followed.position, followed.velocity, dt);
    this.stage.render(this.chase.camera);
    return tick;
  }

  /** 5. The race clock, the speed, the combo (a spectator: the time on screen, the followed
   * racer's speed). */
  hudUpdate(frameMs) {
    const run = this.race.run;
    if (this.spectating) {
      const rival = this.race.live.rivals.get(this.liveLayer.follow ?? this.liveLayer.leaderOf());
      const v = rival ? rival.sim.player(0).velocity : [0, 0, 0];
      this.hud.update({ tick: this.liveLayer.target - 1, speed: Math.hypot(...v), combo: 0, nowMs: frameMs });
      return;
    }
    const cur = run.sim.player(0);
    const speed = Math.hypot(cur.velocity[0], cur.velocity[1], cur.velocity[2]);
    this.hud.update({ tick: run.t0Ms === null ? -1 : run.sim.tick - 1, speed, combo: cur.combo, nowMs: frameMs });
  }

  /** The frame's own time (ms), kept for the statistics. */
  stats(started, frameMs) {
    if (this.lastFrameMs !== null) {
      this.frameTimes.push(performance.now() - started);
      if (this.frameTimes.length > FRAME_TIMES_KEPT) this.frameTimes.shift();
    }
    this.lastFrameMs = frameMs;
  }

  /** The player's rig and the camera at the run's spawn (a new run). */
  resetView() {
    const spawn = this.race.run.sim.player(0);
    this.hud.resetSplits();
    this.stage?.setNextCheckpoint?.(this.geometry.checkpoints.length ? 0 : null);
    this.playerRig?.update?.(rigView(spawn, spawn.position, 0));
    this.chase?.reset(spawn.position, this.stage?.startHeading);
  }
}
