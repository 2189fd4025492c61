// The chase camera: behind the pogo along where it has been going, above it, looking a little
// ahead; smooth enough not to make anyone sick. Metres, seconds, radians; world axes x east,
// y up, z south. A heading is an angle atan2(z, x) on the ground: 0 looks east (+x), π/2
// south (+z) — input.js steers relative to it (`chase.heading`).
//
// What moves how (every smoothing is exponential with a time constant τ, a fraction
// 1 − exp(−dt/τ) of the way per frame, so it is the same at 30, 60 or 144 frames per second):
// - the heading turns toward the direction of the pogo's smoothed horizontal velocity, at most
//   TURN_RATE_MAX; below HEADING_SPEED_MIN it holds (a pogo bouncing on the spot does not spin
//   the camera), and between that and HEADING_SPEED_FULL it turns proportionally slower. A
//   reversal therefore swings round over a second or more, never flips;
// - horizontally the camera follows the pogo exactly (the pogo stays centred);
// - vertically it follows a strongly smoothed height (HEIGHT_TAU_S) kept within a band around
//   the pogo (so a fall or a tall launch never leaves the frame): each bounce moves the view by
//   a fraction of its height, not all of it;
// - it pulls back a little with speed.

import * as THREE from '../vendor/three.module.min.js';
import { dampShare, wrapAngle } from './smoothing.js';

/** Distance behind the followed point (m) at rest, plus this much per m/s of horizontal speed,
 * up to DISTANCE_SPEED_MAX_M more. */
export const DISTANCE_M = 6.5;
export const DISTANCE_PER_SPEED_S = 0.12;
export const DISTANCE_SPEED_MAX_M = 3;
/** Camera height above the smoothed tip height (m). */
export const HEIGHT_M = 4;
/** The camera looks at a point this far ahead of the pogo (m) and this high above the
 * smoothed tip height (m). */
export const LOOK_AHEAD_M = 5;
export const LOOK_HEIGHT_M = 0.5;
/** Heading: time constant of the velocity smoothing (s) and of the turn (s), and its fastest
 * turn (rad/s). */
export const VELOCITY_TAU_S = 0.25;
export const HEADING_TAU_S = 0.55;
export const TURN_RATE_MAX = 1.8;
/** The heading holds below HEADING_SPEED_MIN and turns fully from HEADING_SPEED_FULL (m/s). */
export const HEADING_SPEED_MIN = 1.5;
export const HEADING_SPEED_FULL = 4;
/** Height smoothing time constant (s): the default steady bounce (3.3 m apex, about 1.06 s
 * apart) moves the camera up and down by about a sixth of its height. */
export const HEIGHT_TAU_S = 1;
/** The tip is never more than TIP_BELOW_MAX_M below the smoothed height nor TIP_ABOVE_MAX_M
 * above it (m): the band keeps a fall or a tall launch in the frame. */
export const TIP_BELOW_MAX_M = 2.2;
export const TIP_ABOVE_MAX_M = 2.5;
/** Distance smoothing time constant (s). */
export const DISTANCE_TAU_S = 0.6;
/** Longest frame step the smoothing takes (s): a stalled tab does not jump the camera. */
const DT_MAX_S = 0.1;


export class ChaseCamera {
  /**
   * Wraps `camera` (a THREE.PerspectiveCamera; a new one, 62° vertical, if none), looking
   * along `heading` (radians, atan2(z, x)) until `reset`.
   */
  constructor(camera = new THREE.PerspectiveCamera(62, 16 / 9, 0.1, 280), { heading = 0 } = {}) {
    this.camera = camera;
    /** The camera's heading (radians, atan2(z, x)). */
    this.heading = heading;
    this.velocity = [0, 0]; // smoothed horizontal velocity (m/s)
    this.height = 0; // smoothed tip height (m)
    this.distance = DISTANCE_M;
    this.focus = new THREE.Vector3();
    this.reset([0, 0, 0], heading);
  }

  /**
   * Snaps to `position` (the tip [x, y, z], m): on the start, a respawn or a teleport. The
   * heading becomes `headingXZ` if given, else stays.
   */
  reset(position, headingXZ) {
    if (headingXZ !== undefined && headingXZ !== null && Number.isFinite(headingXZ)) this.heading = wrapAngle(headingXZ);
    this.velocity = [0, 0];
    this.height = position[1];
    this.distance = DISTANCE_M;
    this.place(position);
  }

  /**
   * Follows the tip at `position` moving at `velocity` ([x, y, z], m/s) after `dtSeconds` of
   * wall time.
   */
  update(position, velocity, dtSeconds) {
    const dt = Math.min(Math.max(dtSeconds || 0, 0), DT_MAX_S);
    const kv = dampShare(dt, VELOCITY_TAU_S);
    this.velocity[0] += ((velocity?.[0] ?? 0) - this.velocity[0]) * kv;
    this.velocity[1] += ((velocity?.[2] ?? 0) - this.velocity[1]) * kv;
    const speed = Math.hypot(this.velocity[0], this.velocity[1]);
    if (speed > HEADING_SPEED_MIN) {
      const weight = Math.min(1, (speed - HEADING_SPEED_MIN) / (HEADING_SPEED_FULL - HEADING_SPEED_MIN));
      const error = wrapAngle(Math.atan2(this.velocity[1], this.velocity[0]) - this.heading);
      const turn = error * dampShare(dt, HEADING_TAU_S) * weight;
      const turnMax = TURN_RATE_MAX * dt;
      this.heading = wrapAngle(this.heading + Math.min(turnMax, Math.max(-turnMax, turn)));
    }
    this.height = THREE.MathUtils.damp(this.height, position[1], 1 / HEIGHT_TAU_S, dt);
    this.height = Math.min(position[1] + TIP_BELOW_MAX_M, Math.max(position[1] - TIP_ABOVE_MAX_M, this.height));
    const distance = DISTANCE_M + Math.min(DISTANCE_SPEED_MAX_M, DISTANCE_PER_SPEED_S * speed);
    this.distance = THREE.MathUtils.damp(this.distance, distance, 1 / DISTANCE_TAU_S, dt);
    this.place(position);
  }

  place(position) {
    const fx = Math.cos(this.heading);
    const fz = Math.sin(this.heading);
    this.focus.set(position[0], this.height, position[2]);
    this.camera.position.set(position[0] - fx * this.distance, this.height + HEIGHT_M, position[2] - fz * this.distance);
    this.camera.lookAt(position[0] + fx * LOOK_AHEAD_M, this.height + LOOK_HEIGHT_M, position[2] + fz * LOOK_AHEAD_M);
  }
}
