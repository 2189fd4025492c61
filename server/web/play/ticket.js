// A run ticket for one race (the server's `api::tickets`; what it proves: the README's
// "Real-time runs"). It is the fallback path's: a race the server's live rooms cannot take
// (play/live-race.js) asks for a ticket in its countdown's last second (play/race.js). The
// server sets the ticket's GO when it issues it (`go_in_ms` after its answer, 1 s: a game
// begun at the issue banks that, so it is no longer than a page needs); the page's countdown
// ends at the answer's arrival plus `go_in_ms` (`goAtMs`, on the performance clock), so its
// GO is never before the server's. At GO it commits the start (tick 0, the state hash before the first
// tick), then each checkpoint reached for the first time and the finish (the split's tick,
// the state hash after it), each the moment it happens. The server stamps every commitment
// with its clock on first arrival; the upload names the ticket (`POST /api/runs?ticket=ID`)
// and the verdict says whether the run was real-time.
//
// Nothing here blocks a frame: a commitment is a `fetch(…, {keepalive: true})` started and
// left to finish, retried (network failures, 429, 5xx) until the server acknowledges it —
// the server answers a copy of one it holds 200 `repeated`, its first arrival standing, so a
// retry never moves it. A refusal no retry can fix (409 `commit_conflict`, another 4xx) is
// noted and shown on the finish panel; the upload waits for every commitment to settle.
// Without a token, or when the ticket cannot be had (rate limited, offline), the race is
// open: it still verifies and ranks on the open board.

import { ApiError, request, segment } from '../shared/api.js';

/** How long the upload waits for commitments still on their way, retries included (ms). */
const SETTLE_WAIT_MAX_MS = 8000;
/** Tries of one commitment before it is given up (a late one is worth nothing anyway). */
export const COMMIT_TRIES_MAX = 8;
/** The first wait between tries (ms), doubled each try up to COMMIT_RETRY_MAX_MS. */
const COMMIT_RETRY_FIRST_MS = 100;
const COMMIT_RETRY_MAX_MS = 2000;

/** A failed try that a later one may fix: the network, 429, 5xx. */
const retryable = (status) => status === 0 || status === 429 || status >= 500;

/** One race's ticket: `id`, the commitments sent, and what went wrong, if anything. */
export class RunTicket {
  /** `issued`: the server's answer; `arrivedMs`: when it arrived (performance clock). */
  constructor(issued, token, arrivedMs) {
    this.id = issued.id;
    this.issued = issued;
    this.token = token;
    /** GO on the performance clock: the answer's arrival plus the server's `go_in_ms`. */
    this.goAtMs = arrivedMs + Math.max(0, Number(issued.go_in_ms) || 0);
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
      return { ticket: new RunTicket(body, identity.token, performance.now()) };
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

  /** Sends one commitment and retries it until the server acknowledges or refuses it. */
  post(kind, tick, hash) {
    const record = { kind, tick, hash, ok: null, error: null, tries: 0, repeated: false };
    this.sent.push(record);
    const sent = this.deliver(record).finally(() => {
      this.inFlight.delete(sent);
      if (record.ok === false && !this.problem) this.problem = `the ${kind} commitment did not reach the server: ${record.error}`;
    });
    this.inFlight.add(sent);
  }

  /** Tries `record` until acknowledged (200 or 201), refused (another 4xx) or out of tries. */
  async deliver(record) {
    const body = JSON.stringify({ kind: record.kind, tick: record.tick, hash: record.hash });
    for (let wait = COMMIT_RETRY_FIRST_MS; ; wait = Math.min(2 * wait, COMMIT_RETRY_MAX_MS)) {
      record.tries += 1;
      const { status, answer, error } = await this.once(body);
      if (status === 200 || status === 201) {
        record.ok = true;
        record.repeated = Boolean(answer?.repeated);
        return;
      }
      record.error = error;
      if (!retryable(status) || record.tries >= COMMIT_TRIES_MAX) {
        record.ok = false;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /** One try: `{status (0: no answer), answer, error}`. */
  async once(body) {
    try {
      const response = await fetch(this.issued.commits_url, {
        method: 'POST',
        keepalive: true,
        headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json', accept: 'application/json' },
        body,
      });
      const answer = await response.json().catch(() => null);
      const error = response.ok ? null : `${answer?.message ?? response.statusText} (${response.status} ${answer?.error ?? ''})`.trim();
      return { status: response.status, answer, error };
    } catch (e) {
      return { status: 0, answer: null, error: `cannot reach the server: ${e.message}` };
    }
  }

  /** Resolves when every commitment sent has been answered (at most SETTLE_WAIT_MAX_MS). */
  async settled() {
    const deadline = new Promise((resolve) => setTimeout(resolve, SETTLE_WAIT_MAX_MS));
    await Promise.race([Promise.allSettled([...this.inFlight]), deadline]);
  }

  /** What the finish panel keeps: the id, and what the page knows went wrong. */
  summary() {
    return {
      id: this.id, problem: this.problem, goAtMs: this.goAtMs,
      sent: this.sent.map(({ kind, tick, ok, tries, repeated }) => ({ kind, tick, ok, tries, repeated })),
    };
  }
}
