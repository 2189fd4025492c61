// The server's limits (`GET /api/limits`), asked once per page load: the page keeps no copy
// of a limit the server enforces (server/src/api/limits.rs names each one's definition). A
// failed ask is asked again next time.

import { getJson } from './api.js';

let asked = null;

/** The server's limits: `replay_bytes_max`, `run_ticks_max`, `tick_rate`,
 * `realtime_slack_ms`, `race_ms_max`, `room_racers_max`, `room_spectators_max`. */
export function serverLimits() {
  asked ??= getJson('/api/limits').catch((e) => {
    asked = null;
    throw e;
  });
  return asked;
}
