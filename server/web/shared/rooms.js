// Live rooms over HTTP (docs/live.md, "Rooms over HTTP"), for every view that makes or lists
// them: the play view's Play and "Race friends", the board's "live now", `#/live`.

import { getJson, request, segment } from './api.js';

/** How often a view listing the races in progress asks again (ms). */
export const ROOMS_POLL_MS = 3000;

/** Makes a room on level `levelName`; its id. */
export async function makeRoom(levelName) {
  const { body } = await request(`/api/levels/${segment(levelName)}/rooms`, { method: 'POST', retry: false });
  return body.id;
}

/** The races in progress (lobby, countdown, racing), newest first; of one level, or all. */
export async function listRooms(levelName = null, signal = undefined) {
  const query = levelName === null ? '' : `?level=${segment(levelName)}`;
  return (await getJson(`/api/rooms${query}`, { signal })).rooms;
}

/** `listRooms` now and every ROOMS_POLL_MS until `signal` aborts; `show(rooms)` each time
 * (a failed read is skipped: the list stays as it was). */
export function pollRooms(levelName, signal, show) {
  const tick = async () => {
    if (signal.aborted) return;
    try {
      show(await listRooms(levelName, signal));
    } catch (e) {
      if (e.name === 'AbortError') return;
    }
    if (!signal.aborted) setTimeout(tick, ROOMS_POLL_MS);
  };
  tick();
}
