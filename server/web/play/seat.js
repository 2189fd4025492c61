// A racer's seat in a live room, kept in this tab (`sessionStorage`) so that a reload mid-race
// takes the seat back and finishes the run (docs/live.md, "Resuming after a cut"): the room's
// key for the seat and every stream message the page sent, as sent.
//
// The stream is the run: its input messages are the driver's events as filed (the page
// re-simulates them to where it was), its splits and heartbeats say what the server was
// already told (never sent twice), its length is the next sequence number, and what the
// server did not acknowledge is sent again after the welcome's `acked`. The seat is written
// when the page is hidden or goes away (`pagehide`: a reload, a close), not on every message
// (a ten-minute run is thousands), and forgotten once the run is over or the room gone.
//
// A tab's sessionStorage survives its reloads and nothing else: another tab opening the room
// is a spectator, as before, and never takes a seat from the tab racing in it.

import { decodeStream } from './wire.js';

const PREFIX = 'pogo.seat.';
/** The solo room raced last on a level (`#/play/LEVEL` has no room in its address). */
const SOLO_PREFIX = 'pogo.seat.solo.';

/**
 * A seat as kept: `{roomId, level, mode ('solo' | 'room'), key, messages: [bytes…]}`; what
 * the page needs to go on: `{inputs: [{atNs, input}], splits: Set (checkpoint | 'finish'),
 * lastRan (-1: none), finished}` (the next message's seq is the count of messages).
 */
export function seatState(seat) {
  const inputs = [];
  const splits = new Set();
  let lastRan = -1;
  for (const bytes of seat.messages) {
    const message = decodeStream(bytes);
    if (!message) continue;
    if (message.kind === 'input') inputs.push({ atNs: message.atNs, input: message.input });
    if (message.kind === 'ran') lastRan = Math.max(lastRan, message.tick);
    if (message.kind === 'split') {
      splits.add(message.checkpoint === null ? 'finish' : message.checkpoint);
      lastRan = Math.max(lastRan, message.tick);
    }
  }
  return { inputs, splits, lastRan, finished: splits.has('finish') };
}

/** Keeps the seat of `live` (play/live-race.js, a racer who has a key) in this tab. */
export function saveSeat(live, level, mode) {
  const { roomId, link } = live;
  if (live.role !== 'racer' || !link.key) return;
  const seat = { roomId, level, mode, key: link.key, messages: link.sent.map(({ bytes }) => toBase64(bytes)) };
  try {
    sessionStorage.setItem(PREFIX + roomId, JSON.stringify(seat));
    if (mode === 'solo') sessionStorage.setItem(SOLO_PREFIX + level, roomId);
  } catch { /* storage full or refused: a reload then starts afresh */ }
}

/** The seat kept for room `roomId` (with its messages as bytes), or null. */
export function loadSeat(roomId) {
  try {
    const seat = JSON.parse(sessionStorage.getItem(PREFIX + roomId) ?? 'null');
    if (!seat || seat.roomId !== roomId || typeof seat.key !== 'string' || !Array.isArray(seat.messages)) return null;
    return { ...seat, messages: seat.messages.map(fromBase64) };
  } catch {
    return null;
  }
}

/** The room of the solo run raced last on `level` in this tab, or null. */
export function soloRoom(level) {
  try {
    return sessionStorage.getItem(SOLO_PREFIX + level);
  } catch {
    return null;
  }
}

/** Forgets room `roomId`'s seat (and the level's solo room, if it is that one). */
export function forgetSeat(roomId, level = null) {
  try {
    sessionStorage.removeItem(PREFIX + roomId);
    if (level !== null && sessionStorage.getItem(SOLO_PREFIX + level) === roomId) sessionStorage.removeItem(SOLO_PREFIX + level);
  } catch { /* nothing kept */ }
}

function toBase64(bytes) {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text);
}

function fromBase64(text) {
  const raw = atob(text);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}
