// What goes over a live room's WebSocket, as bytes (the server's `live/wire.rs`; the whole
// protocol is docs/live.md). A racer's stream is binary, little-endian, one message a frame,
// each with the racer's next sequence number:
//
//   0x01 input  seq u32, at_ns u64, steer_x i8, steer_z i8, buttons u8   16 bytes
//   0x02 ran    seq u32, tick u32                                        9 bytes
//   0x03 split  seq u32, tick u32, checkpoint u32 (FINISH), hash u64     21 bytes
//
// The server answers `ack` (0x90, seq u32), relays each racer's messages to the others as
// `relay` (0x81: racer u8, received_us u64 since GO, the message as sent) and gives a member
// who joins mid-race each racer's stream so far as one `backlog` (0x82: racer u8, then each
// relay frame preceded by its length, u8). Every length is checked before a byte is read:
// what the server sends is decoded like anything else from the network.

/** `split.checkpoint` for the finish. */
export const FINISH = 0xffffffff;
/** A `ran` heartbeat every this many ticks (100 ms at 60 Hz): the server's client's rule. */
export const HEARTBEAT_TICKS = 6;

const INPUT = 0x01;
const RAN = 0x02;
const SPLIT = 0x03;
const RELAY = 0x81;
const BACKLOG = 0x82;
const ACK = 0x90;
/** Each stream message's length, by type byte. */
const LENGTH = { [INPUT]: 16, [RAN]: 9, [SPLIT]: 21 };
/** A relay frame's head: type, racer, received_us. */
const RELAY_HEAD = 10;
/** The buttons the core knows (TRICK | DIVE). */
const BUTTONS_ALL = 0x03;

/** An input change: `seq`, `atNs` (BigInt, game time since GO as the driver filed it). */
export function encodeInput(seq, atNs, input) {
  const bytes = new Uint8Array(LENGTH[INPUT]);
  const v = new DataView(bytes.buffer);
  v.setUint8(0, INPUT);
  v.setUint32(1, seq, true);
  v.setBigUint64(5, BigInt(atNs), true);
  v.setInt8(13, input.steerX);
  v.setInt8(14, input.steerZ);
  v.setUint8(15, input.buttons);
  return bytes;
}

/** Every tick up to `tick` has run. */
export function encodeRan(seq, tick) {
  const bytes = new Uint8Array(LENGTH[RAN]);
  const v = new DataView(bytes.buffer);
  v.setUint8(0, RAN);
  v.setUint32(1, seq, true);
  v.setUint32(5, tick, true);
  return bytes;
}

/** Checkpoint `checkpoint` (null: the finish) reached on `tick`; `hash` (BigInt) after it. */
export function encodeSplit(seq, tick, checkpoint, hash) {
  const bytes = new Uint8Array(LENGTH[SPLIT]);
  const v = new DataView(bytes.buffer);
  v.setUint8(0, SPLIT);
  v.setUint32(1, seq, true);
  v.setUint32(5, tick, true);
  v.setUint32(9, checkpoint === null ? FINISH : checkpoint, true);
  v.setBigUint64(13, BigInt.asUintN(64, BigInt(hash)), true);
  return bytes;
}

/**
 * A stream message from `bytes` (a Uint8Array): `{kind: 'input', seq, atNs, input}`,
 * `{kind: 'ran', seq, tick}` or `{kind: 'split', seq, tick, checkpoint (null: the finish),
 * hash}`; null if it is not one (wrong type, wrong length, unknown buttons).
 */
export function decodeStream(bytes) {
  if (bytes.length === 0 || LENGTH[bytes[0]] !== bytes.length) return null;
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const seq = v.getUint32(1, true);
  switch (bytes[0]) {
    case INPUT: {
      const buttons = v.getUint8(15);
      if (buttons & ~BUTTONS_ALL) return null;
      return { kind: 'input', seq, atNs: v.getBigUint64(5, true), input: { steerX: v.getInt8(13), steerZ: v.getInt8(14), buttons } };
    }
    case RAN:
      return { kind: 'ran', seq, tick: v.getUint32(5, true) };
    default: {
      const checkpoint = v.getUint32(9, true);
      return { kind: 'split', seq, tick: v.getUint32(5, true), checkpoint: checkpoint === FINISH ? null : checkpoint, hash: v.getBigUint64(13, true) };
    }
  }
}

/** A relay frame: `{racer, receivedUs (BigInt), message}`, or null. */
function decodeRelay(bytes) {
  if (bytes.length <= RELAY_HEAD || bytes[0] !== RELAY) return null;
  const message = decodeStream(bytes.subarray(RELAY_HEAD));
  if (!message) return null;
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { racer: bytes[1], receivedUs: v.getBigUint64(2, true), message };
}

/**
 * A binary frame from the server: `{kind: 'ack', seq}`, `{kind: 'relay', racer, receivedUs,
 * message}` or `{kind: 'backlog', racer, messages: [{receivedUs, message}]}`; null if it is
 * none of these (every length checked).
 */
export function decodeServer(bytes) {
  if (bytes.length === 5 && bytes[0] === ACK) {
    return { kind: 'ack', seq: new DataView(bytes.buffer, bytes.byteOffset, 5).getUint32(1, true) };
  }
  if (bytes[0] === RELAY) {
    const relay = decodeRelay(bytes);
    return relay && { kind: 'relay', ...relay };
  }
  if (bytes.length >= 2 && bytes[0] === BACKLOG) {
    const racer = bytes[1];
    const messages = [];
    for (let at = 2; at < bytes.length;) {
      const length = bytes[at];
      if (at + 1 + length > bytes.length) return null;
      const relay = decodeRelay(bytes.subarray(at + 1, at + 1 + length));
      if (!relay || relay.racer !== racer) return null;
      messages.push({ receivedUs: relay.receivedUs, message: relay.message });
      at += 1 + length;
    }
    return { kind: 'backlog', racer, messages };
  }
  return null;
}
