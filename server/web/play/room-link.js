// One member's connection to a live room (docs/live.md): the WebSocket, the `hello` and its
// `welcome`, the clock samples (`ping`/`pong`, play/clock.js), and for a racer the stream's
// outbox: every message numbered in order and kept until the server acknowledges it.
//
// A cut (the socket drops without the room closing it for a reason) is not the end: a racer
// comes back with the key of its `welcome` (`resume`), learns the last message the server
// holds (`acked`) and sends every later one again, so nothing acknowledged is lost and
// nothing is taken twice (the server ignores a copy). It tries for RESUME_FOR_MS, the room's
// grace, then the racer is cut for good. A spectator simply joins again; either way the
// backlog of every racer comes again, and the rivals (play/rivals.js) ignore what they have.
//
// The owner hears everything through `onEvent(type, detail)`: 'welcome', 'room', 'relay',
// 'backlog', 'desync', 'cut' (the socket dropped: trying to resume), 'resumed', 'closed'
// (for good: `{code, reason}`).

import { PINGS_AT_JOIN, PING_INTERVAL_MS, PING_SPACING_MS, ServerClock, localMs } from './clock.js';
import { decodeServer } from './wire.js';

/** How long a join may take before the room is called unreachable (ms). */
export const JOIN_WAIT_MS = 6000;
/** How long a cut racer keeps trying to come back (the server's grace is 15 s). */
export const RESUME_FOR_MS = 14_000;
/** The first wait before trying again after a cut (ms), doubled each try up to the last. */
const RESUME_WAIT_FIRST_MS = 200;
const RESUME_WAIT_MAX_MS = 2000;
/** Close codes after which trying again cannot help (docs/live.md, "Refusals"; 1000 is a
 * room that closed or a racer who left). 4009 (an unknown key) is handled apart. */
const FINAL_CODES = new Set([1000, 4000, 4001, 4002, 4004, 4005, 4006, 4008, 4010, 4404]);
/** The close code the page uses for a cut it makes itself (the test hook). */
const CUT_CODE = 4999;

/** The socket's address for room `id` (same host; wss under https). */
export function socketUrl(id) {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/api/rooms/${encodeURIComponent(id)}/socket`;
}

/** The room could not be joined: `code` and `reason` of the close, or why not. */
export class JoinError extends Error {
  constructor(message, code = 0) {
    super(message);
    this.code = code;
  }
}

export class RoomLink {
  /** `role`: 'racer' | 'spectator'; `token`: the player's (a racer), or null (a guest). */
  constructor({ roomId, role, token = null, onEvent }) {
    Object.assign(this, { roomId, role, token, onEvent });
    this.clock = new ServerClock();
    this.socket = null;
    /** The current socket has been welcomed: the stream may go on it (before, a message
     * would reach the room ahead of those the welcome says to send again). */
    this.joined = false;
    /** From the welcome: the seat, the key to resume with. */
    this.racer = null;
    this.key = null;
    /** The stream: the next seq, the messages not yet acknowledged ({seq, bytes}), whether
     * they may go (from the page's GO on), and the last seq the server holds. */
    this.nextSeq = 0;
    this.outbox = [];
    this.released = false;
    this.acked = -1;
    /** Every stream message sent, for the tests (`{seq, bytes}`), and the link's history. */
    this.sent = [];
    this.cuts = 0;
    this.resumes = 0;
    this.closed = null;
    this.pings = new Map();
    this.pingId = 0;
    this.pingTimer = null;
    this.cutAt = null;
    this.resumeWaitMs = RESUME_WAIT_FIRST_MS;
  }

  /** Joins: resolves with the welcome, or rejects with a JoinError (unreachable, refused). */
  open() {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => fail(new JoinError(`no answer from the room in ${JOIN_WAIT_MS / 1000} s`)), JOIN_WAIT_MS);
      const fail = (error) => {
        clearTimeout(timer);
        this.drop();
        reject(error);
      };
      this.connect({
        welcome: (welcome) => {
          clearTimeout(timer);
          resolve(welcome);
        },
        failed: fail,
      });
    });
  }

  /** A socket, its hello, and what happens to it; `first`: {welcome, failed} for the first
   * join (a resume reports through `onEvent`). */
  connect(first = null) {
    let socket;
    try {
      socket = new WebSocket(socketUrl(this.roomId));
    } catch (e) {
      first?.failed(new JoinError(`cannot open the room's socket: ${e.message}`));
      return;
    }
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    this.joined = false;
    let welcomed = false;
    socket.addEventListener('open', () => {
      const resume = this.role === 'racer' && this.key ? this.key : undefined;
      socket.send(JSON.stringify({ type: 'hello', role: this.role, token: this.token ?? undefined, resume }));
    });
    socket.addEventListener('message', (event) => {
      if (socket !== this.socket) return;
      if (typeof event.data === 'string') {
        const message = parseJson(event.data);
        if (message?.type === 'welcome' && !welcomed) {
          welcomed = true;
          this.welcomed(message, first);
        } else if (message) this.control(message);
      } else {
        this.binary(new Uint8Array(event.data));
      }
    });
    socket.addEventListener('close', (event) => {
      if (socket !== this.socket) return;
      this.socket = null;
      this.joined = false;
      this.stopPings();
      if (!welcomed && first) {
        first.failed(new JoinError(event.reason || `the room's socket closed (${event.code})`, event.code));
        return;
      }
      this.lost(event.code, event.reason);
    });
  }

  /** The welcome: the seat, the key, what the server holds of our stream; the clock. */
  welcomed(message, first) {
    this.racer = message.racer ?? null;
    this.key = message.key ?? this.key;
    this.joined = true;
    this.clock.sample(BigInt(message.server_ms) * 1000n, localMs(), localMs());
    this.pingBurst();
    if (first) {
      first.welcome(message);
      return;
    }
    // A resume: drop what the server holds, send the rest again.
    this.resumes += 1;
    this.cutAt = null;
    this.ack(message.acked ?? -1);
    this.flush();
    this.onEvent('resumed', message);
  }

  control(message) {
    switch (message.type) {
      case 'pong': {
        const sentMs = this.pings.get(message.id);
        if (sentMs === undefined) return;
        this.pings.delete(message.id);
        this.clock.sample(BigInt(message.server_us), sentMs, localMs());
        return;
      }
      case 'room':
        this.onEvent('room', message.room);
        return;
      case 'desync':
        this.onEvent('desync', message);
        return;
      default:
    }
  }

  binary(bytes) {
    const message = decodeServer(bytes);
    if (!message) return;
    if (message.kind === 'ack') this.ack(message.seq);
    else this.onEvent(message.kind, message);
  }

  // -- the clock ---------------------------------------------------------------------------

  /** A few pings now, then one every PING_INTERVAL_MS until the stream is released. */
  pingBurst() {
    this.stopPings();
    let n = 0;
    const next = () => {
      this.ping();
      n += 1;
      // A racer racing needs the clock no more (GO is behind it): the join's few only.
      if (n >= PINGS_AT_JOIN && this.released) return;
      this.pingTimer = setTimeout(next, n < PINGS_AT_JOIN ? PING_SPACING_MS : PING_INTERVAL_MS);
    };
    next();
  }

  ping() {
    if (this.socket?.readyState !== WebSocket.OPEN) return;
    const id = ++this.pingId;
    this.pings.set(id, localMs());
    // Unanswered pings are forgotten (a bounded map).
    if (this.pings.size > 16) this.pings.delete(this.pings.keys().next().value);
    this.socket.send(JSON.stringify({ type: 'ping', id }));
  }

  stopPings() {
    clearTimeout(this.pingTimer);
    this.pingTimer = null;
  }

  // -- control -----------------------------------------------------------------------------

  send(message) {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  ready(ready = true) {
    this.send({ type: 'ready', ready });
  }

  // -- the stream --------------------------------------------------------------------------

  /** Queues the stream message `encode(seq)` builds; sent at once once released. Its seq. */
  stream(encode) {
    const seq = this.nextSeq++;
    const entry = { seq, bytes: encode(seq) };
    this.outbox.push(entry);
    this.sent.push(entry);
    if (this.released) this.put(entry);
    return seq;
  }

  /** Before `open`: the seat this page had before a reload (`key`) and the stream it had
   * sent (`messages`, bytes, seq 0 on): the join resumes it, the stream goes on after it, and
   * every message waits in the outbox until `ack` says the server holds it. */
  restore(key, messages) {
    this.key = key;
    this.sent = messages.map((bytes, seq) => ({ seq, bytes }));
    this.outbox = [...this.sent];
    this.nextSeq = this.sent.length;
  }

  /** GO (the page's): the stream may go from now on; what waited goes now. */
  release() {
    this.released = true;
    this.flush();
  }

  flush() {
    if (!this.released) return;
    for (const entry of this.outbox) this.put(entry);
  }

  put(entry) {
    if (this.joined && this.socket?.readyState === WebSocket.OPEN) this.socket.send(entry.bytes);
  }

  /** The server holds everything up to `seq`: forgotten here. */
  ack(seq) {
    if (seq <= this.acked) return;
    this.acked = seq;
    let n = 0;
    while (n < this.outbox.length && this.outbox[n].seq <= seq) n++;
    if (n) this.outbox.splice(0, n);
  }

  // -- losing the socket -------------------------------------------------------------------

  /** The socket closed after the welcome: for good, or a cut to come back from. */
  lost(code, reason) {
    if (this.closed) return;
    if (FINAL_CODES.has(code) || this.role === 'racer' && code === 4009 && this.released) {
      this.closed = { code, reason };
      this.onEvent('closed', this.closed);
      return;
    }
    // An unknown key in the lobby: the seat went with the socket; join again as new.
    if (code === 4009) this.key = null;
    if (this.cutAt === null) {
      this.cuts += 1;
      this.cutAt = performance.now();
      this.resumeWaitMs = RESUME_WAIT_FIRST_MS;
      this.onEvent('cut', { code, reason });
    } else {
      this.resumeWaitMs = Math.min(2 * this.resumeWaitMs, RESUME_WAIT_MAX_MS);
    }
    this.retryTimer = setTimeout(() => this.resume(), this.resumeWaitMs);
  }

  /** One try to come back (each failed try closes its socket, and `lost` tries again). */
  resume() {
    if (this.closed || this.socket) return;
    if (performance.now() - this.cutAt > RESUME_FOR_MS) {
      this.closed = { code: 0, reason: `cut off: not back within ${RESUME_FOR_MS / 1000} s` };
      this.onEvent('closed', this.closed);
      return;
    }
    this.connect();
  }

  /** For tests: the socket drops as a cut cable would; the link comes back by itself. */
  cut() {
    this.socket?.close(CUT_CODE, 'cut by the page (test)');
  }

  /** Leaves the room (a racer racing: the run so far is kept, unranked) and closes. */
  leave() {
    this.send({ type: 'leave' });
    this.drop();
  }

  /** Closes without a word and stops every timer. */
  drop() {
    this.closed ??= { code: 1000, reason: 'closed by the page' };
    this.stopPings();
    clearTimeout(this.retryTimer);
    const socket = this.socket;
    this.socket = null;
    try {
      socket?.close(1000);
    } catch { /* closing a socket that never opened */ }
  }

  /** What the tests read. */
  describe() {
    return {
      racer: this.racer, open: this.socket?.readyState === WebSocket.OPEN, sent: this.nextSeq, unacked: this.outbox.length,
      acked: this.acked, released: this.released, cuts: this.cuts, resumes: this.resumes, closed: this.closed,
      offsetMs: this.clock.offsetMs, samples: this.clock.samples, bestRoundTripMs: this.clock.bestRoundTripMs,
    };
  }
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
