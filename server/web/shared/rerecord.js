// Re-recording a run under another name. A replay's header must carry the uploader's
// registered name, so a run raced without one (or under another) is recorded again before it
// is sent: the same level and inputs, tick by tick, into a new recorder under the name. Only
// the name may change: the date, level, rules, tuning, tick rate, hash interval, ticks,
// claimed finish and final hash are carried over and checked, so the server's copy says what
// the racer's saved file says (`pogo inspect` of both differs on the name line alone).

import { hex64 } from './wasm.js';

/** A field of the replay's header or trailer, as the binding reads it, for the check. */
function headerOf(replay) {
  const info = replay.info;
  return {
    level: replay.levelName, date: replay.date, rulesVersion: info.rulesVersion, tickRate: info.tickRate,
    players: info.players, ticks: info.ticks, levelHash: String(info.levelHash), tuningHash: String(info.tuningHash),
    hashInterval: info.hashInterval, claimedFinalHash: String(info.claimedFinalHash), finishTicks: info.finishTicks.join(','),
  };
}

/** Throws unless the re-recorded `bytes` say what `before` (headerOf the original) said. */
function checkSameHeader(pogo, bytes, before) {
  const replay = pogo.replay(bytes);
  try {
    const after = headerOf(replay);
    for (const [field, value] of Object.entries(before)) {
      if (after[field] !== value) throw new Error(`re-recording changed the replay's ${field}: ${value} → ${after[field]}`);
    }
  } finally {
    replay.free();
  }
}

/**
 * The run in replay `bytes` recorded again under `name`: the same level, inputs and header
 * (the date included), tick by tick, into a new recorder whose header carries the name.
 * Checks that the replay verifies, that the new recording ends on its final state hash (and
 * on `expectedHash`, the hash the browser computed while racing, if given) and that every
 * header field but the name is unchanged. Returns `{bytes, finalHash, ticks, level}`. Every
 * object it makes is freed.
 */
export function rerecord(pogo, tuning, bytes, name, { expectedHash = null } = {}) {
  const made = [];
  const keep = (object) => {
    made.push(object);
    return object;
  };
  const replay = keep(pogo.replay(bytes));
  try {
    const info = replay.info;
    if (info.players !== 1) throw new Error(`a replay of ${info.players} players: only single-player runs are uploaded`);
    const verdict = keep(pogo.verifier({ tuning })).verify(bytes);
    if (!verdict.verified) throw new Error(`the run does not verify here: ${verdict.kindName}: ${verdict.reason}`);
    const before = hex64(verdict.finalHash);
    if (expectedHash !== null && before !== expectedHash) {
      throw new Error(`the replay ends on state ${before}, not on the ${expectedHash} the race ended on`);
    }
    const header = headerOf(replay);
    const level = keep(pogo.level(replay.levelName));
    const sim = keep(pogo.simulation({ level, tuning, players: 1 }));
    const recorder = keep(pogo.recorder({ sim, playerName: name, date: replay.date }));
    replayInto(sim, recorder, replay.inputs(0), info.ticks);
    const out = recorder.bytes();
    const after = hex64(sim.stateHash());
    if (after !== before) throw new Error(`re-recording changed the run: it ends on state ${after}, the replay on ${before}`);
    checkSameHeader(pogo, out, header);
    return { bytes: out, finalHash: after, ticks: info.ticks, level: replay.levelName };
  } finally {
    for (const object of made.reverse()) object.free();
  }
}

/** Steps `sim` through `ticks` ticks of `inputs` (Replay.inputs' layout), recording each:
 * many ticks a call (Simulation.stepMany; the same ticks as one at a time). */
function replayInto(sim, recorder, inputs, ticks) {
  const ran = sim.stepMany(inputs, { ticks, recorder });
  if (ran !== ticks) throw new Error(`re-recording ran ${ran} of ${ticks} ticks`);
  recorder.finish();
}
