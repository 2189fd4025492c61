// A level's geometry (`GET /api/levels/{level}`) made ready to draw: solids ordered and
// shaded per view, platforms as functions of the tick.

/** Solids are shaded by height (from above) or depth (from the side) between these greys. */
const SHADE_LO = 58;
const SHADE_HI = 150;

/** The geometry JSON plus what drawing needs. */
export function prepareLevel(geometry) {
  const solids = geometry.solids;
  // A loop, not Math.min(...values): sprawl has 102 401 solids, past the argument limit.
  const range = (values) => values.reduce(([lo, hi], v) => [Math.min(lo, v), Math.max(hi, v)], [0, 1]);
  const [yLo, yHi] = range(solids.map((s) => s.max[1]));
  const [zLo, zHi] = range(solids.map((s) => s.max[2]));
  const grey = (f) => {
    const g = Math.round(SHADE_LO + (SHADE_HI - SHADE_LO) * Math.min(1, Math.max(0, f)));
    return `rgb(${g - 8}, ${g}, ${g + 12})`;
  };
  const shaded = solids.map((s) => ({
    ...s,
    shade: {
      top: grey((s.max[1] - yLo) / (yHi - yLo || 1)),
      side: grey((s.max[2] - zLo) / (zHi - zLo || 1)),
    },
  }));
  return {
    ...geometry,
    solidsByView: {
      top: [...shaded].sort((a, b) => a.max[1] - b.max[1]),
      side: [...shaded].sort((a, b) => a.max[2] - b.max[2]),
    },
  };
}

/**
 * A platform's `min` corner after race tick `tick` (the simulation's tick count is then
 * tick + 1), by the formula of the API's `PlatformJson`: with p = count mod period and
 * h = period / 2, from → to in the first half, back in the second. For the views that draw
 * without the wasm core (the replay race's 2D view, from trajectories); the 3D play view asks
 * the core (`Simulation.platformPosition`).
 */
export function platformAt(platform, tick) {
  const period = platform.period_ticks;
  const half = period / 2;
  const p = (Math.floor(tick) + 1) % period;
  const [a, b, f] = p < half ? [platform.from, platform.to, p / half] : [platform.to, platform.from, (p - half) / half];
  return a.map((c, i) => c + (b[i] - c) * f);
}

/** The union of the level's bounds and every ghost's trajectory (so no ghost leaves it). */
export function raceBounds(level, ghosts) {
  const min = [...level.bounds.min];
  const max = [...level.bounds.max];
  for (const ghost of ghosts) {
    for (const p of ghost.points) {
      const xyz = [p.x, p.y, p.z];
      for (let i = 0; i < 3; i++) {
        min[i] = Math.min(min[i], xyz[i]);
        max[i] = Math.max(max[i], xyz[i]);
      }
    }
  }
  return { min, max };
}
