// A run ticket for one race (the server's `api::tickets`; what it proves: the README's
// "Real-time runs"). With a token, the play view asks for a ticket when the countdown starts;
// at GO it commits the start (tick 0, the state hash before the first tick), then each
// checkpoint reached for the first time and the finish (the split's tick, the state hash
// after it), each the moment it happens. The server stamps every commitment with its clock;
// the upload names the ticket (`POST /api/runs?ticket=ID`) and the verdict says whether the
// run was real-time.
//
// Nothing here blocks a frame: a commitment is a `fetch(…, {keepalive: true})` started and
// left to finish; its failure is noted (shown on the finish panel), never retried — a late
// commitment is worth nothing anyway. Without a token, or when the ticket cannot be had (rate
// limited, offline), the race is open: it still verifies and ranks on the open board.

import { ApiError, request, segment } from '../shared/api.js';

/** How long the upload waits for commitments still on their way (ms). */
const SETTLE_WAIT_MAX_MS = 5000;

/** One race's ticket: `id`, the commitments sent, and what went wrong, if anything. */
export class RunTicket {
  constructor(issued, token) {
    this.id = issued.id;
    this.issued = issued;
    this.token = token;
    /** Commitments sent: {kind, tick, hash, ok: null (on its way) | true | false, error}. */
    this.sent = [];
    /** Checkpoint indices committed (each checkpoint counts once, as the verifier's splits). */
    this.checkpoints = new Set();
    this.inFlight = new Set();
    /** Why the run cannot be real-time, as far as the page knows (null: nothing known). */
    this.problem = null;
  }

  /** Asks the server for a ticket for `level`; `{ticket}` or `{error}` (a message). */
  static async mint(level, identity, signal) {
    try {
      const { body } = await request(`/api/levels/${segment(level)}/tickets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${identity.token}` },
        retry: false,
        signal,
      });
      return { ticket: new RunTicket(body, identity.token) };
    } catch (e) {
      if (e.name === 'AbortError') throw e;
      const why = e instanceof ApiError ? `${e.message} (${e.status} ${e.code})` : String(e.message ?? e);
      return { error: why };
    }
  }

  /** GO: the start, tick 0, the state hash before the first tick (16 hex digits). */
  start(hash) {
    this.post('start', 0, hash);
  }

  /** A checkpoint split (only its first time counts) or, with `checkpoint` null, the finish. */
  split(checkpoint, tick, hash) {
    if (checkpoint === null) {
      this.post('finish', tick, hash);
      return;
    }
    if (this.checkpoints.has(checkpoint)) return;
    this.checkpoints.add(checkpoint);
    this.post('checkpoint', tick, hash);
  }

  post(kind, tick, hash) {
    const record = { kind, tick, hash, ok: null, error: null };
    this.sent.push(record);
    const sent = fetch(this.issued.commits_url, {
      method: 'POST',
      keepalive: true,
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ kind, tick, hash }),
    }).then(async (response) => {
      record.ok = response.ok;
      if (!response.ok) {
        const body = await response.json().catch(() => null);
        record.error = `${body?.message ?? response.statusText} (${response.status} ${body?.error ?? ''})`.trim();
      }
    }, (e) => {
      record.ok = false;
      record.error = `cannot reach the server: ${e.message}`;
    }).finally(() => {
      this.inFlight.delete(sent);
      if (record.ok === false && !this.problem) this.problem = `the ${kind} commitment did not reach the server: ${record.error}`;
    });
    this.inFlight.add(sent);
  }

  /** Resolves when every commitment sent has been answered (at most SETTLE_WAIT_MAX_MS). */
  async settled() {
    const deadline = new Promise((resolve) => setTimeout(resolve, SETTLE_WAIT_MAX_MS));
    await Promise.race([Promise.allSettled([...this.inFlight]), deadline]);
  }

  /** What the finish panel keeps: the id, and what the page knows went wrong. */
  summary() {
    return { id: this.id, problem: this.problem, sent: this.sent.map(({ kind, tick, ok }) => ({ kind, tick, ok })) };
  }
}
