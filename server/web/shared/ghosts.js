// How many ghosts one race holds, and their colours: one list for the board (the runs a racer
// may tick), the replay race (`race/`) and the play view (`play/`), so that what the board
// lets a racer pick is what the views take.

/** One colour per ghost, in the order the runs were picked. */
export const GHOST_COLOURS = ['#ff5a5f', '#3ec1ff', '#ffd23f', '#7ee081', '#c77dff', '#ff9f1c', '#f15bb5', '#9ef01a'];

/** The colour of a live room's racer `racer` (its seat): the same in the lobby, the
 * standings, the rigs and the result. */
export const colourOf = (racer) => GHOST_COLOURS[racer % GHOST_COLOURS.length];

/** Most ghosts in one race: one per colour. The play view steps each ghost's simulation
 * every tick beside the player's: PERFORMANCE.md measures the view with 8. */
export const GHOSTS_MAX = GHOST_COLOURS.length;

/** `1,2,3` → distinct positive run ids, in order (`ghosts=`, `runs=`); nothing else counts. */
export function runIds(text) {
  const ids = [];
  for (const part of (text ?? '').split(',')) {
    const id = Number(part);
    if (Number.isInteger(id) && id > 0 && !ids.includes(id)) ids.push(id);
  }
  return ids;
}
