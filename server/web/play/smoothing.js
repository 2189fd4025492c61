// How a rival's correction is drawn (play/rivals.js): when their real inputs arrive and the
// prediction was wrong, the simulation jumps; the drawn pogo does not. The jump (metres, the
// old position minus the new one at the same tick) goes into an offset added to what is
// drawn, and the offset decays to zero with three.js's `MathUtils.damp` (frame-rate
// independent exponential smoothing), so a correction slides in over a few tenths of a
// second. A respawn or teleport is a jump the racer should see: it resets the offset.

import { MathUtils } from '../vendor/three.core.min.js';

/** `a` (radians) wrapped into [−π, π). */
export const wrapAngle = (a) => MathUtils.euclideanModulo(a + Math.PI, 2 * Math.PI) - Math.PI;

/** The share of the way to a target covered in `dt` s by exponential smoothing with time
 * constant `tau` s: `MathUtils.damp` with λ = 1/τ (the camera and the rigs smooth by it). */
export const dampShare = (dt, tau) => MathUtils.damp(0, 1, 1 / tau, dt);

/** How fast a correction fades (1/s): MathUtils.damp's lambda; 1 − e^(−12·0.25) ≈ 95 % of it
 * is gone after a quarter of a second. */
export const CORRECTION_LAMBDA = 12;
/** A correction larger than this (m) is drawn as the jump it is: smoothing it would show a
 * pogo sliding through walls for longer than it helps. */
export const CORRECTION_SMOOTHED_MAX_M = 4;
/** Below this (m) the offset is zero (no endless tiny decay). */
const OFFSET_EPSILON_M = 1e-4;

export class Smoothing {
  constructor() {
    /** Added to the drawn position (m, x y z). */
    this.offset = [0, 0, 0];
  }

  /** The pogo was drawn at `before` and is now at `after` at the same tick; `jumped`: a
   * respawn or teleport. Whether the correction is being smoothed. */
  correct(before, after, jumped) {
    const delta = [0, 1, 2].map((i) => before[i] + this.offset[i] - after[i]);
    if (jumped || Math.hypot(...delta) > CORRECTION_SMOOTHED_MAX_M) {
      this.offset = [0, 0, 0];
      return false;
    }
    const moved = Math.hypot(...[0, 1, 2].map((i) => before[i] - after[i])) > OFFSET_EPSILON_M;
    this.offset = delta;
    return moved;
  }

  /** `position` as drawn after `dt` s more of decay. */
  apply(position, dt) {
    for (let i = 0; i < 3; i++) {
      const o = MathUtils.damp(this.offset[i], 0, CORRECTION_LAMBDA, dt);
      this.offset[i] = Math.abs(o) < OFFSET_EPSILON_M ? 0 : o;
    }
    return [0, 1, 2].map((i) => position[i] + this.offset[i]);
  }
}
