// pogo.mjs — a thin ES-module wrapper over the pogo-ffi WebAssembly module.
//
// The module (`cargo build -p pogo-ffi --target wasm32-unknown-unknown --profile
// wasm-release` → pogo_ffi.wasm) exports the very C ABI of include/pogo.h: plain functions
// over its linear memory, no imports. This file is the only glue: handles become objects,
// status codes become PogoError exceptions, structs are read and written at their wasm32
// offsets (checked against pogo_sizeof when the module loads). No bundler, no wasm-bindgen:
// the ABI is already C-shaped, and one ABI for every host means the browser runs exactly
// what the native library and the server run.
//
// Memory: arguments that live in memory (inputs, text, bytes, out-parameters) are placed in
// blocks from pogo_alloc; each object frees its own with free(). 64-bit values (hashes,
// nanosecond times, fixed-point raw bits) are BigInts.
//
//   import { load } from './pogo.mjs';
//   const pogo = await load(fetch('pogo_ffi.wasm'));      // or bytes, or a WebAssembly.Module
//   const level = pogo.level('course'), tuning = pogo.tuning();
//   const sim = pogo.simulation({ level, tuning, players: 1 });
//   sim.step([{ steerX: 127, steerZ: 0, buttons: 0 }]);
//   console.log(hex(sim.stateHash()), sim.player(0).position);
//
// A ghost from replay bytes: verify them, decode them, step a simulation with their inputs.
//
//   const replay = pogo.replay(bytes);                       // PogoError on bad bytes
//   const { players, ticks } = replay.info;
//   const inputs = Array.from({ length: players }, (_, p) => replay.inputs(p));
//   replay.free();
//   const ghost = pogo.simulation({ level, tuning, players });
//   for (let t = 0; t < ticks; t++) ghost.step(inputs.map((row) => Replay.inputAt(row, t)));
//
// or many ticks a call, from the inputs kept in the module's memory (pogo_sim_step_many):
//
//   const block = pogo.inputs(Replay.interleave(inputs));  // every tick's inputs, tick-major
//   ghost.stepMany(block);                                   // the whole run: one call
//   ghost.stepMany(block, { first: 0, ticks: 600, stopEvents: Event.CHECKPOINT });
//   block.free();

export const ABI_VERSION = 1;

/** Status codes (PogoStatus). */
export const Status = Object.freeze({
  OK: 0, NULL_POINTER: 1, INVALID_HANDLE: 2, STALE_HANDLE: 3, WRONG_HANDLE_KIND: 4,
  INVALID_ARGUMENT: 5, BUFFER_TOO_SMALL: 6, PARSE: 7, UNKNOWN_LEVEL: 8, MISMATCH: 9,
  INVALID_SNAPSHOT: 10, INVALID_STATE: 11, LIMIT: 12, INTERNAL: 13,
});

export const Button = Object.freeze({ TRICK: 1, DIVE: 2 });

/** Event bits of PlayerState.events. */
export const Event = Object.freeze({
  BOUNCE: 1 << 0, PERFECT: 1 << 1, LAUNCH: 1 << 2, RICOCHET: 1 << 3, BODY_HIT: 1 << 4,
  STUN: 1 << 5, TRICK_STARTED: 1 << 6, TRICK_LANDED: 1 << 7, TRICK_FAILED: 1 << 8,
  CHECKPOINT: 1 << 9, FINISH: 1 << 10, DEATH: 1 << 11, TELEPORT: 1 << 12,
});

export const STATE_NAMES = Object.freeze(['respawn', 'airborne', 'compression', 'stunned', 'finished']);

/** A call into the library failed: `status` (a Status code), its `statusName`, the message. */
export class PogoError extends Error {
  constructor(status, statusName, message) {
    super(`${statusName}: ${message}`);
    this.name = 'PogoError';
    this.status = status;
    this.statusName = statusName;
  }
}

/** A u64 as 16 lowercase hex digits (how state hashes are printed everywhere). */
export function hex(value) {
  return BigInt.asUintN(64, value).toString(16).padStart(16, '0');
}

/** A 32.32 fixed-point raw value (BigInt) as a decimal with exactly `places` decimals,
 * rounded half to even — exactly what Rust prints with `{:.N}`. */
export function formatFixed(raw, places) {
  const negative = raw < 0n;
  const magnitude = negative ? -raw : raw;
  const whole = magnitude >> 32n;
  const scale = 10n ** BigInt(places);
  const scaled = (magnitude & 0xffffffffn) * scale;
  let digits = scaled >> 32n;
  const rest = scaled & 0xffffffffn, half = 1n << 31n;
  let w = whole;
  if (rest > half || (rest === half && (digits & 1n) === 1n)) digits += 1n;
  if (digits === scale) { digits = 0n; w += 1n; }
  const frac = places > 0 ? '.' + digits.toString().padStart(places, '0') : '';
  return `${negative ? '-' : ''}${w}${frac}`;
}

// Struct layouts on wasm32 (types.rs; sizes checked at load time).
const SIZES = { input: 3, playerState: 192, frameInfo: 32, verdict: 392, simDef: 16, driverDef: 16, recorderDef: 24, verifierDef: 40, replayInfo: 112, trackCheck: 32 };
const STRUCT = { input: 1, playerState: 2, frameInfo: 3, verdict: 4, simDef: 5, driverDef: 6, recorderDef: 7, verifierDef: 8, replayInfo: 9, trackCheck: 10 };
const SCRATCH_BYTES = 1024;
/** Ticks of inputs one pogo_replay_inputs call copies (12 KiB of the module's memory). */
const REPLAY_INPUT_BATCH = 4096;
/** Most ticks one pogo_sim_step_many call runs (POGO_STEP_TICKS_MAX); stepMany makes as
 * many calls as a longer batch needs. */
export const STEP_TICKS_MAX = 36_000;

/**
 * Instantiates the module. `source`: a Response or a promise of one (fetch), an
 * ArrayBuffer or typed array of the .wasm bytes, or a WebAssembly.Module.
 */
export async function load(source) {
  source = await source;
  let instance;
  if (source instanceof WebAssembly.Module) {
    instance = await WebAssembly.instantiate(source, {});
  } else if (typeof Response !== 'undefined' && source instanceof Response) {
    const bytes = await source.arrayBuffer();
    ({ instance } = await WebAssembly.instantiate(bytes, {}));
  } else {
    ({ instance } = await WebAssembly.instantiate(source, {}));
  }
  return new Pogo(instance);
}

/** One instance of the module: its memory and its objects. */
export class Pogo {
  constructor(instance) {
    this.instance = instance;
    this.x = instance.exports;
    this.memory = this.x.memory;
    const abi = this.x.pogo_abi_version() >>> 0;
    if (abi !== ABI_VERSION) throw new Error(`pogo.mjs speaks ABI ${ABI_VERSION}, the module ${abi}`);
    for (const [name, size] of Object.entries(SIZES)) {
      const found = this.x.pogo_sizeof(STRUCT[name]) >>> 0;
      if (found !== size) throw new Error(`layout of ${name}: the module has ${found} bytes, pogo.mjs ${size}`);
    }
    this.scratch = this.x.pogo_alloc(SCRATCH_BYTES) >>> 0;
    if (this.scratch === 0) throw new Error('pogo_alloc failed');
    this.decoder = new TextDecoder();
    this.encoder = new TextEncoder();
  }

  // -- memory ---------------------------------------------------------------------------

  /** A DataView of the whole memory. Made again only when the memory has grown: growing
   * detaches the old buffer, and a typed array of a detached buffer has length 0, which is
   * cheaper to test each call than to ask for `memory.buffer` (a getter that makes a new
   * wrapper object), the test this replaces. */
  view() {
    if (this._bytes === undefined || this._bytes.length === 0) {
      this._bytes = new Uint8Array(this.memory.buffer);
      this._view = new DataView(this.memory.buffer);
    }
    return this._view;
  }

  /** The whole memory as bytes (made again only when the memory has grown, as `view`). */
  bytes() {
    if (this._bytes === undefined || this._bytes.length === 0) this.view();
    return this._bytes;
  }

  bytesAt(ptr, len) {
    return new Uint8Array(this.memory.buffer, ptr, len);
  }

  alloc(len) {
    const ptr = this.x.pogo_alloc(Math.max(len, 1)) >>> 0;
    if (ptr === 0) this.fail(Status.LIMIT);
    return ptr;
  }

  dealloc(ptr) {
    this.check(this.x.pogo_dealloc(ptr));
  }

  /** Runs `body(ptr, len)` with `bytes` (a Uint8Array) copied into a temporary block. */
  withBytes(bytes, body) {
    if (bytes.length === 0) return body(0, 0);
    const ptr = this.alloc(bytes.length);
    try {
      this.bytesAt(ptr, bytes.length).set(bytes);
      return body(ptr, bytes.length);
    } finally {
      this.dealloc(ptr);
    }
  }

  withText(text, body) {
    return this.withBytes(this.encoder.encode(text), body);
  }

  readText(ptr, len) {
    return this.decoder.decode(this.bytesAt(ptr, len));
  }

  /** A variable-length output: `call(buffer, capacity, lenPtr)` asked for the length, then
   * with a block of that size. */
  readVariable(call) {
    const lenPtr = this.scratch;
    this.check(call(0, 0, lenPtr));
    const len = this.view().getUint32(lenPtr, true);
    if (len === 0) return new Uint8Array(0);
    const ptr = this.alloc(len);
    try {
      this.check(call(ptr, len, lenPtr));
      return this.bytesAt(ptr, len).slice();
    } finally {
      this.dealloc(ptr);
    }
  }

  // -- errors ---------------------------------------------------------------------------

  statusName(status) {
    const ptr = this.x.pogo_status_name(status) >>> 0;
    const bytes = this.bytesAt(ptr, 64);
    return this.decoder.decode(bytes.subarray(0, bytes.indexOf(0)));
  }

  lastError() {
    const len = this.x.pogo_last_error(0, 0) >>> 0;
    const ptr = this.alloc(len + 1);
    try {
      this.x.pogo_last_error(ptr, len + 1);
      return this.readText(ptr, len);
    } finally {
      this.x.pogo_dealloc(ptr);
    }
  }

  /** The last error of the object with handle id `id` (or why the id names none). */
  handleError(id) {
    const len = this.x.pogo_handle_error(id, 0, 0) >>> 0;
    const ptr = this.alloc(len + 1);
    try {
      this.x.pogo_handle_error(id, ptr, len + 1);
      return this.readText(ptr, len);
    } finally {
      this.x.pogo_dealloc(ptr);
    }
  }

  fail(status) {
    throw new PogoError(status, this.statusName(status), this.lastError());
  }

  check(status) {
    if (status !== Status.OK) this.fail(status);
  }

  /** Calls `call(outPtr)` and reads the u32 it wrote. */
  outU32(call) {
    this.check(call(this.scratch));
    return this.view().getUint32(this.scratch, true);
  }

  outU64(call) {
    this.check(call(this.scratch));
    return this.view().getBigUint64(this.scratch, true);
  }

  // -- versions and counts --------------------------------------------------------------

  get abiVersion() { return this.x.pogo_abi_version() >>> 0; }
  get rulesVersion() { return this.x.pogo_rules_version() >>> 0; }
  get replayFormatVersion() { return this.x.pogo_replay_format_version() >>> 0; }
  /** Objects alive, of every kind. */
  handleCount() { return this.x.pogo_handle_count() >>> 0; }
  /** Blocks from pogo_alloc alive (this instance's scratch block is one). */
  blockCount() { return this.x.pogo_block_count() >>> 0; }

  builtinLevels() {
    const names = [];
    for (let i = 0; i < (this.x.pogo_builtin_level_count() >>> 0); i++) {
      names.push(this.decoder.decode(this.readVariable((b, c, l) => this.x.pogo_builtin_level_name(i, b, c, l))));
    }
    return names;
  }

  // -- objects --------------------------------------------------------------------------

  /** A built-in level by name. */
  level(name) {
    const id = this.withText(name, (p, l) => this.outU32((out) => this.x.pogo_level_builtin(p, l, out)));
    return new Level(this, id);
  }

  /** A level from level JSON text. */
  levelFromJson(text) {
    const id = this.withText(text, (p, l) => this.outU32((out) => this.x.pogo_level_from_json(p, l, out)));
    return new Level(this, id);
  }

  /** The default tuning, or one from tuning JSON text. */
  tuning(json) {
    const id = json === undefined
      ? this.outU32((out) => this.x.pogo_tuning_default(out))
      : this.withText(json, (p, l) => this.outU32((out) => this.x.pogo_tuning_from_json(p, l, out)));
    return new Tuning(this, id);
  }

  simulation({ level, tuning, players = 1 }) {
    const def = this.alloc(SIZES.simDef);
    try {
      this.x.pogo_default_sim_def(def); // returned through a pointer (wasm C ABI)
      const v = this.view();
      v.setUint32(def + 4, level.id, true);
      v.setUint32(def + 8, tuning.id, true);
      v.setUint32(def + 12, players, true);
      const id = this.outU32((out) => this.x.pogo_sim_create(def, out));
      return new Simulation(this, id, players);
    } finally {
      this.dealloc(def);
    }
  }

  driver({ tickRate, players = 1, ticksPerFrameMax } = {}) {
    const def = this.alloc(SIZES.driverDef);
    try {
      this.x.pogo_default_driver_def(def);
      const v = this.view();
      if (tickRate !== undefined) v.setUint32(def + 4, tickRate, true);
      v.setUint32(def + 8, players, true);
      if (ticksPerFrameMax !== undefined) v.setUint32(def + 12, ticksPerFrameMax, true);
      return new Driver(this, this.outU32((out) => this.x.pogo_driver_create(def, out)), players);
    } finally {
      this.dealloc(def);
    }
  }

  recorder({ sim, playerName = '', date = '' }) {
    const def = this.alloc(SIZES.recorderDef);
    const name = this.encoder.encode(playerName), when = this.encoder.encode(date);
    const namePtr = this.alloc(name.length), datePtr = this.alloc(when.length);
    try {
      this.bytesAt(namePtr, name.length).set(name);
      this.bytesAt(datePtr, when.length).set(when);
      this.x.pogo_default_recorder_def(def);
      const v = this.view();
      v.setUint32(def + 4, sim.id, true);
      v.setUint32(def + 8, namePtr, true);
      v.setUint32(def + 12, name.length, true);
      v.setUint32(def + 16, datePtr, true);
      v.setUint32(def + 20, when.length, true);
      return new Recorder(this, this.outU32((out) => this.x.pogo_recorder_create(def, out)));
    } finally {
      this.dealloc(def);
      this.dealloc(namePtr);
      this.dealloc(datePtr);
    }
  }

  verifier({ tuning, levels = [], builtinLevels = true, ticksMax, hashIntervalSMax, playerTicksMax } = {}) {
    const def = this.alloc(SIZES.verifierDef);
    const list = this.alloc(4 * levels.length);
    try {
      this.x.pogo_default_verifier_def(def);
      const v = this.view();
      levels.forEach((level, i) => v.setUint32(list + 4 * i, level.id, true));
      v.setUint32(def + 4, tuning.id, true);
      v.setUint32(def + 8, levels.length ? list : 0, true);
      v.setUint32(def + 12, levels.length, true);
      v.setUint32(def + 16, builtinLevels ? 1 : 0, true);
      if (ticksMax !== undefined) v.setUint32(def + 20, ticksMax, true);
      if (hashIntervalSMax !== undefined) v.setUint32(def + 24, hashIntervalSMax, true);
      if (playerTicksMax !== undefined) v.setBigUint64(def + 32, BigInt(playerTicksMax), true);
      return new Verifier(this, this.outU32((out) => this.x.pogo_verifier_create(def, out)));
    } finally {
      this.dealloc(def);
      this.dealloc(list);
    }
  }

  bot() {
    return new Bot(this, this.outU32((out) => this.x.pogo_bot_create(out)));
  }

  /** Inputs kept in the module's memory, for Simulation.stepMany: `bytes` (an Int8Array or
   * Uint8Array) are PogoInputs, 3 bytes each (steerX, steerZ, buttons), tick-major (tick t's
   * input of player p at 3 · (t · players + p)), as Replay.inputs gives one player's and
   * Replay.interleave several players'. Copied once; free() it when done. */
  inputs(bytes) {
    return new Inputs(this, bytes);
  }

  /** Decodes replay bytes (a Uint8Array): the header, the claimed outcome and every player's
   * inputs, to re-simulate the run. Bad bytes throw a PogoError (PARSE, or LIMIT for a
   * replay longer than a default verifier accepts) with the decoder's reason. Decoding
   * checks the bytes, not the play: verify them first to trust what they claim. */
  replay(bytes) {
    const id = this.withBytes(bytes, (p, l) => this.outU32((out) => this.x.pogo_replay_decode(p, l, out)));
    return new Replay(this, id);
  }

  /** Checks level JSON `text` as a player-made track, by the server's own gate (size, the
   * level format, the core's validation, a track's limits) under `tuning` (default: the
   * default tuning): `{ok: true, levelName, geometryHash (16 hex), objects, extentM, tickCost,
   * tickCostMax}` or `{ok: false, field, why, tickCostMax}` (`field`: the JSON path at fault,
   * `''` for the whole file; `tickCost`: the worst tick the track allows, in the core's cost
   * units, and `tickCostMax` the most a track may have). */
  checkTrack(text, tuning) {
    const own = tuning ?? this.tuning();
    const out = this.alloc(SIZES.trackCheck);
    try {
      const words = this.withText(text, (p, l) => this.readVariable(
        (b, c, len) => this.x.pogo_track_check(own.id, p, l, out, b, c, len)));
      const v = this.view();
      if (v.getUint32(out + 8, true) === 1) {
        return { ok: true, levelName: this.decoder.decode(words), geometryHash: hex(v.getBigUint64(out, true)),
          objects: v.getUint32(out + 12, true), extentM: v.getInt32(out + 16, true),
          tickCost: v.getUint32(out + 24, true), tickCostMax: v.getUint32(out + 28, true) };
      }
      const fieldLen = Math.min(v.getUint32(out + 20, true), words.length);
      return { ok: false, field: this.decoder.decode(words.subarray(0, fieldLen)), why: this.decoder.decode(words.subarray(fieldLen)),
        tickCostMax: v.getUint32(out + 28, true) };
    } finally {
      this.dealloc(out);
      if (tuning === undefined) own.free();
    }
  }

  // -- structs --------------------------------------------------------------------------

  writeInput(ptr, input) {
    // A Uint8Array element stores its value modulo 2⁸, as DataView's setInt8 and setUint8 do:
    // the same bytes (−127 is 0x81 either way), without a DataView call per byte.
    const b = this.bytes();
    b[ptr] = input.steerX ?? 0;
    b[ptr + 1] = input.steerZ ?? 0;
    b[ptr + 2] = input.buttons ?? 0;
  }

  readInput(ptr) {
    const v = this.view();
    return { steerX: v.getInt8(ptr), steerZ: v.getInt8(ptr + 1), buttons: v.getUint8(ptr + 2) };
  }

  readPlayerState(ptr) {
    const v = this.view();
    const i64s = (at, n) => Array.from({ length: n }, (_, i) => v.getBigInt64(ptr + at + 8 * i, true));
    const f64s = (at, n) => Array.from({ length: n }, (_, i) => v.getFloat64(ptr + at + 8 * i, true));
    const u32 = (at) => v.getUint32(ptr + at, true);
    const state = u32(144);
    return {
      positionRaw: i64s(0, 3), velocityRaw: i64s(24, 3), leanRaw: i64s(48, 2), apexRaw: v.getBigInt64(ptr + 64, true),
      position: f64s(72, 3), velocity: f64s(96, 3), lean: f64s(120, 2), apex: v.getFloat64(ptr + 136, true),
      state, stateName: STATE_NAMES[state], combo: u32(148), bounces: u32(152), events: u32(156),
      finished: u32(160) === 1, finishTick: u32(164), checkpoint: u32(168) === 1 ? u32(172) : null,
      stunTicksLeft: u32(176), trickTicksLeft: u32(180) === 1 ? u32(184) : null,
    };
  }

  readReplayInfo(ptr) {
    const v = this.view();
    const u32 = (at) => v.getUint32(ptr + at, true);
    const players = u32(32), mask = u32(44);
    return {
      rulesVersion: u32(24), tickRate: u32(28), players, ticks: u32(36),
      levelHash: v.getBigUint64(ptr, true), tuningHash: v.getBigUint64(ptr + 8, true),
      claimedFinalHash: v.getBigUint64(ptr + 16, true), hashInterval: u32(40),
      finishTicks: Array.from({ length: players }, (_, i) => ((mask >>> i) & 1 ? u32(48 + 4 * i) : null)),
    };
  }

  readVerdict(ptr) {
    const v = this.view();
    const u32 = (at) => v.getUint32(ptr + at, true);
    const u64 = (at) => v.getBigUint64(ptr + at, true);
    const kind = u32(40);
    const kindPtr = this.x.pogo_verdict_kind_name(kind) >>> 0;
    const kindBytes = this.bytesAt(kindPtr, 64);
    const mask = u32(64);
    const finishTicks = Array.from({ length: 16 }, (_, i) => ((mask >>> i) & 1 ? u32(72 + 4 * i) : null));
    return {
      verified: kind === 0, kind, kindName: this.decoder.decode(kindBytes.subarray(0, kindBytes.indexOf(0))),
      reason: this.readText(ptr + 136, u32(68)),
      finalHash: u64(0), levelHash: u64(8), tuningHash: u64(16), expected: u64(24), found: u64(32),
      ticks: u32(44), players: u32(48), rulesVersion: u32(52), desyncTick: u32(56), player: u32(60),
      finishTicks: finishTicks.slice(0, u32(48)),
    };
  }
}

/** Base of every object: its handle id and free(). */
class Handle {
  constructor(pogo, id, freeFn) {
    this.pogo = pogo;
    this.id = id;
    this._free = freeFn;
  }

  /** The last error on this object. */
  lastError() { return this.pogo.handleError(this.id); }

  free() {
    this.pogo.check(this.pogo.x[this._free](this.id));
  }
}

export class Level extends Handle {
  constructor(pogo, id) { super(pogo, id, 'pogo_level_free'); }
  get hash() { return this.pogo.outU64((out) => this.pogo.x.pogo_level_hash(this.id, out)); }
  get name() {
    return this.pogo.decoder.decode(this.pogo.readVariable((b, c, l) => this.pogo.x.pogo_level_name(this.id, b, c, l)));
  }
}

export class Tuning extends Handle {
  constructor(pogo, id) { super(pogo, id, 'pogo_tuning_free'); }
  get hash() { return this.pogo.outU64((out) => this.pogo.x.pogo_tuning_hash(this.id, out)); }
  get tickRate() { return this.pogo.outU32((out) => this.pogo.x.pogo_tuning_tick_rate(this.id, out)); }
}

export class Simulation extends Handle {
  constructor(pogo, id, players) {
    super(pogo, id, 'pogo_sim_free');
    this.players = players;
    this.inputs = pogo.alloc(SIZES.input * players);
    this.state = pogo.alloc(SIZES.playerState);
    /** Each player's Event bits over the ticks of the last stepMany, OR'd. */
    this.events = new Uint32Array(players);
    this._block = 0;
    this._blockLen = 0;
  }

  /** Runs one tick with one input ({steerX, steerZ, buttons}) per player. */
  step(inputs) {
    const p = this.pogo;
    if (inputs.length !== this.players) {
      throw new PogoError(Status.INVALID_ARGUMENT, 'invalid_argument',
        `${inputs.length} inputs for ${this.players} players: pass exactly one per player`);
    }
    for (let i = 0; i < this.players; i++) p.writeInput(this.inputs + 3 * i, inputs[i]);
    p.check(p.x.pogo_sim_step(this.id, this.inputs, this.players));
  }

  /**
   * Runs many ticks in one call into the module (pogo_sim_step_many): tick by tick the same
   * states as `step`, without a call, an input object and a copy per tick. `inputs`: an
   * `Inputs` block (`pogo.inputs(bytes)`: already in the module's memory, the fast way) or an
   * Int8Array / Uint8Array of the same bytes (copied in each call) — PogoInputs tick-major,
   * one per player per tick. Runs `ticks` ticks (default: all that follow) from the inputs'
   * tick `first` (default 0; the inputs' tick `first` runs as the simulation's next tick),
   * recording each with `recorder` if given, and stops after the first tick in which a
   * player's events share a bit with `stopEvents` (Event bits; 0: never). Returns the ticks
   * run; `this.events[p]` is then player p's Event bits of every tick run, OR'd. Bad inputs
   * (undefined button bits anywhere) throw a PogoError and run nothing.
   */
  stepMany(inputs, { first = 0, ticks, stopEvents = 0, recorder = null } = {}) {
    const p = this.pogo;
    const width = SIZES.input * this.players;
    const resident = inputs instanceof Inputs;
    if (resident && inputs.pogo !== p) throw new TypeError('stepMany: inputs of another module instance');
    if (resident && inputs.ptr === 0) throw new TypeError('stepMany: the inputs were freed');
    if (inputs.length % width !== 0) {
      throw new PogoError(Status.INVALID_ARGUMENT, 'invalid_argument',
        `${inputs.length} bytes of inputs are not whole ticks of ${this.players} players`);
    }
    const available = inputs.length / width - first;
    const total = ticks ?? available;
    if (!Number.isInteger(first) || first < 0 || available < 0 || !Number.isInteger(total) || total < 0 || total > available) {
      throw new PogoError(Status.INVALID_ARGUMENT, 'invalid_argument',
        `ticks ${first}…${first}+${ticks} of inputs holding ${inputs.length / width} ticks`);
    }
    const events = this.events;
    events.fill(0);
    const out = p.scratch;
    let ran = 0;
    do {
      const n = Math.min(total - ran, STEP_TICKS_MAX);
      const from = (first + ran) * width;
      let ptr;
      if (resident) {
        ptr = inputs.ptr + from;
      } else {
        ptr = this.block(n * width);
        p.bytes().set(inputs.subarray(from, from + n * width), ptr);
      }
      p.check(p.x.pogo_sim_step_many(this.id, recorder ? recorder.id : 0, ptr, n, stopEvents, out, out + 4));
      const view = p.view();
      const got = view.getUint32(out, true);
      for (let i = 0; i < this.players; i++) events[i] |= view.getUint32(out + 4 + 4 * i, true);
      ran += got;
      if (got < n) break;
    } while (ran < total);
    return ran;
  }

  /** This simulation's block for `stepMany`'s copied inputs, of at least `len` bytes. */
  block(len) {
    if (this._blockLen < len) {
      if (this._block) this.pogo.dealloc(this._block);
      this._block = 0;
      this._block = this.pogo.alloc(len);
      this._blockLen = len;
    }
    return this._block;
  }

  get tick() { return this.pogo.outU32((out) => this.pogo.x.pogo_sim_tick(this.id, out)); }
  stateHash() { return this.pogo.outU64((out) => this.pogo.x.pogo_sim_state_hash(this.id, out)); }

  /** Player `i`'s pogo after the last tick. */
  player(i) {
    this.pogo.check(this.pogo.x.pogo_sim_player_state(this.id, i, this.state));
    return this.pogo.readPlayerState(this.state);
  }

  /** Player `i`'s pogo before the last tick (to interpolate from). */
  previousPlayer(i) {
    this.pogo.check(this.pogo.x.pogo_sim_previous_player_state(this.id, i, this.state));
    return this.pogo.readPlayerState(this.state);
  }

  /** Moving platform `i`'s `min` corner at the start of `tick` (m, [x, y, z]; the core's
   * rule, for drawing: interpolate two ticks' for a frame in between). */
  platformPosition(i, tick) {
    const p = this.pogo;
    p.check(p.x.pogo_sim_platform_position(this.id, i, tick, p.scratch));
    const view = p.view();
    return [0, 1, 2].map((k) => Number(view.getBigInt64(p.scratch + 8 * k, true)) / 2 ** 32);
  }

  /** The highest surface under (x, y, z) (m) at the start of `tick`, no higher than
   * y + `reach` (m): its height (m), or null if there is none (the core's ground, for
   * shadows). Coordinates go in as fixed point, rounded to 2⁻³² m. */
  groundBelow(x, y, z, tick, reach = 0.1) {
    const p = this.pogo;
    const raw = (m) => BigInt(Math.round(m * 2 ** 32));
    p.check(p.x.pogo_sim_ground_below(this.id, raw(x), raw(y), raw(z), raw(reach), tick, p.scratch, p.scratch + 8));
    const view = p.view();
    return view.getUint32(p.scratch + 8, true) ? Number(view.getBigInt64(p.scratch, true)) / 2 ** 32 : null;
  }

  snapshot() {
    return this.pogo.readVariable((b, c, l) => this.pogo.x.pogo_sim_snapshot(this.id, b, c, l));
  }

  restore(bytes) {
    this.pogo.withBytes(bytes, (p, l) => this.pogo.check(this.pogo.x.pogo_sim_restore(this.id, p, l)));
  }

  free() {
    super.free();
    this.pogo.dealloc(this.inputs);
    this.pogo.dealloc(this.state);
    if (this._block) this.pogo.dealloc(this._block);
    this._block = 0;
    this._blockLen = 0;
  }
}

/** PogoInputs kept in the module's memory (`pogo.inputs(bytes)`), for Simulation.stepMany:
 * `length` bytes at `ptr`. Not a library handle: a block from pogo_alloc, freed by free(). */
export class Inputs {
  constructor(pogo, bytes) {
    this.pogo = pogo;
    this.length = bytes.length;
    this.ptr = pogo.alloc(bytes.length);
    pogo.bytes().set(bytes, this.ptr); // after alloc: growing the memory remakes the view
  }

  free() {
    if (this.ptr !== 0) this.pogo.dealloc(this.ptr);
    this.ptr = 0;
  }
}

export class Driver extends Handle {
  constructor(pogo, id, players) {
    super(pogo, id, 'pogo_driver_free');
    this.players = players;
    this.block = pogo.alloc(SIZES.frameInfo + 8);
  }

  /** Queues `input` as player `player`'s input from `atNs` (BigInt or integer ns) on;
   * returns the time it was filed at (BigInt). */
  pushEvent(atNs, player, input) {
    const p = this.pogo;
    p.writeInput(this.block, input);
    p.check(p.x.pogo_driver_push_event(this.id, BigInt(atNs), player, this.block, this.block + 8));
    return p.view().getBigUint64(this.block + 8, true);
  }

  /** When tick `tick` ends (BigInt ns): advancing to it runs every tick up to `tick`. The
   * driver keeps the schedule; a page asks it, never computes it. */
  tickEndNs(tick) {
    return this.pogo.outU64((out) => this.pogo.x.pogo_driver_tick_end_ns(this.id, tick, out));
  }

  /** Advances to `nowNs`, stepping `sim` (and recording with `recorder`, if given). */
  advance(sim, recorder, nowNs) {
    const p = this.pogo;
    p.check(p.x.pogo_driver_advance(this.id, sim.id, recorder ? recorder.id : 0, BigInt(nowNs), this.block));
    const v = p.view();
    return {
      alphaRaw: v.getBigInt64(this.block, true), alpha: v.getFloat64(this.block + 8, true),
      ticksRun: v.getUint32(this.block + 16, true), totalTicks: v.getUint32(this.block + 20, true),
      ticksPending: v.getUint32(this.block + 24, true),
    };
  }

  free() {
    super.free();
    this.pogo.dealloc(this.block);
  }
}

export class Recorder extends Handle {
  constructor(pogo, id) { super(pogo, id, 'pogo_recorder_free'); }
  /** Records the tick its simulation just ran. */
  record() { this.pogo.check(this.pogo.x.pogo_recorder_record(this.id)); }
  finish() { this.pogo.check(this.pogo.x.pogo_recorder_finish(this.id)); }
  get ticks() { return this.pogo.outU32((out) => this.pogo.x.pogo_recorder_ticks(this.id, out)); }
  /** The finished replay. */
  bytes() { return this.pogo.readVariable((b, c, l) => this.pogo.x.pogo_recorder_bytes(this.id, b, c, l)); }
}

export class Verifier extends Handle {
  constructor(pogo, id) { super(pogo, id, 'pogo_verifier_free'); }

  /** Verifies replay bytes: { verified, kindName, reason, ticks, finishTicks, finalHash, … }. */
  verify(bytes) {
    const p = this.pogo;
    const out = p.alloc(SIZES.verdict);
    try {
      p.withBytes(bytes, (ptr, len) => p.check(p.x.pogo_verifier_verify(this.id, ptr, len, out)));
      return p.readVerdict(out);
    } finally {
      p.dealloc(out);
    }
  }
}

export class Bot extends Handle {
  constructor(pogo, id) { super(pogo, id, 'pogo_bot_free'); }

  /** The bot's input for player `player` of `sim`'s next tick. */
  input(sim, player) {
    const p = this.pogo;
    p.check(p.x.pogo_bot_input(this.id, sim.id, player, p.scratch));
    return p.readInput(p.scratch);
  }
}

/** A decoded replay: what its header and trailer say, and every player's per-tick inputs. */
export class Replay extends Handle {
  constructor(pogo, id) { super(pogo, id, 'pogo_replay_free'); }

  /** { rulesVersion, tickRate, players, ticks, levelHash, tuningHash (BigInts),
   * hashInterval, claimedFinalHash (BigInt), finishTicks (per player, a tick or null) }:
   * the replay's claims, checked only by a verifier or a re-simulation. */
  get info() {
    const p = this.pogo;
    const out = p.alloc(SIZES.replayInfo);
    try {
      p.check(p.x.pogo_replay_info(this.id, out));
      return p.readReplayInfo(out);
    } finally {
      p.dealloc(out);
    }
  }

  /** The name of the level it was recorded on. */
  get levelName() {
    return this.pogo.decoder.decode(this.pogo.readVariable((b, c, l) => this.pogo.x.pogo_replay_level_name(this.id, b, c, l)));
  }

  /** The player name stored in it, '' if none. */
  get playerName() {
    return this.pogo.decoder.decode(this.pogo.readVariable((b, c, l) => this.pogo.x.pogo_replay_player_name(this.id, b, c, l)));
  }

  /** The date stored in its header (the recorder's `date`, ISO 8601 text), '' if none. */
  get date() {
    return this.pogo.decoder.decode(this.pogo.readVariable((b, c, l) => this.pogo.x.pogo_replay_date(this.id, b, c, l)));
  }

  /** Player `player`'s input for every tick, in one Int8Array of 3 × ticks: tick t is
   * [3t] steerX, [3t + 1] steerZ, [3t + 2] buttons (Button bits; & 0xff for a byte) — the
   * bytes of PogoInput, copied in batches. `Replay.inputAt(inputs, t)` reads one tick. */
  inputs(player) {
    const p = this.pogo;
    const { ticks } = this.info;
    const inputs = new Int8Array(3 * ticks);
    const block = p.alloc(SIZES.input * REPLAY_INPUT_BATCH);
    try {
      let first = 0;
      do { // at least one call, so a bad player is refused even by a replay of no ticks
        p.check(p.x.pogo_replay_inputs(this.id, player, first, block, REPLAY_INPUT_BATCH, p.scratch));
        const written = p.view().getUint32(p.scratch, true);
        if (written === 0 && first < ticks) throw new Error(`pogo_replay_inputs: no input at tick ${first} of ${ticks}`);
        inputs.set(new Int8Array(p.memory.buffer, block, 3 * written), 3 * first);
        first += written;
      } while (first < ticks);
    } finally {
      p.dealloc(block);
    }
    return inputs;
  }

  /** Every player's `inputs(player)` arrays as one tick-major Int8Array (tick t's input of
   * player p at 3 · (t · players + p)): what `pogo.inputs` and Simulation.stepMany take. One
   * player's array is already that, and is returned as it is. */
  static interleave(rows) {
    if (rows.length === 1) return rows[0];
    const players = rows.length;
    const ticks = rows[0].length / 3;
    const out = new Int8Array(3 * players * ticks);
    for (let p = 0; p < players; p++) {
      const row = rows[p];
      if (row.length !== 3 * ticks) throw new Error(`interleave: player ${p} has ${row.length / 3} ticks, player 0 ${ticks}`);
      for (let t = 0; t < ticks; t++) {
        const at = 3 * (t * players + p);
        out[at] = row[3 * t];
        out[at + 1] = row[3 * t + 1];
        out[at + 2] = row[3 * t + 2];
      }
    }
    return out;
  }

  /** Tick `tick` of an `inputs(player)` array as { steerX, steerZ, buttons }, what
   * Simulation.step takes. */
  static inputAt(inputs, tick) {
    return { steerX: inputs[3 * tick], steerZ: inputs[3 * tick + 1], buttons: inputs[3 * tick + 2] & 0xff };
  }
}
