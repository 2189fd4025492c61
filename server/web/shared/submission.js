// The upload of one finished run, as a state machine you can draw (the finish panel,
// shared/finish-panel.js, draws it; the play view's race follows it):
//
//   ready ─upload─▶ uploading ─accept─▶ queued ─progress─▶ verifying ─verified─▶ verified
//                    │    ▲                │  └──────────verified | rejected──▶ rejected
//                  wait  retry             └─fail─▶ error (the status cannot be read)
//                    ▼    │
//                   retrying
//   uploading | retrying ─fail─▶ error ─upload─▶ uploading   (a token to fix, "Retry now")
//   uploading | retrying ─refuse─▶ refused                    (no retry can fix it)
//
// `EVENTS` is the table: each state and the events it accepts, with the state each leads to.
// Each transition is one method, and `#take` — the only code that assigns the state — refuses
// an event the state does not accept.
//
// Nothing is lost: the run is kept in this browser (shared/pending.js) from the moment the
// panel shows it until the server has it (200/202), or until the server refuses it for good
// (400, 404 unknown level, 409, 413, 415: `refused`; the replay can still be downloaded). A
// refused token (401/403) keeps it: the token can be fixed. A network failure, 429, 5xx are
// retried with backoff honouring Retry-After, a bounded number of times, then "Retry now" is
// offered (`error`, `retryOffered`).
//
// The replay's header must carry the uploader's registered name: a run raced without one is
// re-recorded under it first (shared/rerecord.js). A run raced under a run ticket names it in
// the upload (`?ticket=ID`); a ticket the server no longer takes (used, expired, another
// player's after a change of name) is dropped and the run uploaded open: the run is never
// lost over its ticket.

import { boardHref, playHref, runHref } from '../routes.js';
import { ApiError, getJson, request, segment, sleep } from './api.js';
import { el, link } from './dom.js';
import { millis } from './format.js';
import { getIdentity } from './identity.js';
import { dropPending, isPending, keepPending, pendingKey } from './pending.js';
import { rerecord } from './rerecord.js';
import { loadCore } from './wasm.js';

/** Tries of one upload on a network failure, 429 or 5xx before "Retry now" is offered. */
export const UPLOAD_TRIES_MAX = 4;
/** The first wait between tries (s), doubled each time, at least what Retry-After says. */
const RETRY_FIRST_S = 1;
/** The longest wait between tries (s). */
const RETRY_WAIT_MAX_S = 30;
/** Status polls: interval, how long before the panel stops waiting, errors in a row allowed. */
const POLL_INTERVAL_MS = 250;
const POLL_DURATION_MAX_MS = 120_000;
const POLL_ERRORS_MAX = 20;

/** Refusals of the ticket an upload names: the run goes up without it (open). */
const TICKET_CODES = new Set(['unknown_ticket', 'not_your_ticket', 'ticket_used', 'ticket_expired', 'ticket_mismatch']);
/** Refusals no retry can fix: the run is dropped (after showing why). */
const FINAL_STATUSES = new Set([400, 409, 413, 415]);

/** The states, the events each accepts and where each leads. */
export const EVENTS = {
  ready: { upload: 'uploading' },
  uploading: { wait: 'retrying', accept: 'queued', fail: 'error', refuse: 'refused' },
  retrying: { retry: 'uploading', fail: 'error', refuse: 'refused' },
  queued: { progress: 'verifying', verified: 'verified', rejected: 'rejected', fail: 'error' },
  verifying: { verified: 'verified', rejected: 'rejected', fail: 'error' },
  error: { upload: 'uploading' },
  verified: {},
  rejected: {},
  refused: {},
};

/**
 * One run's upload. `run` = {level, bytes, browserHash, finishTick, tickRate, playerName,
 * ticket: {id, settled()} | null, openWhy}; `signal` ends it; `ui` = {show(state, ...message),
 * compare(), realtime(status), next(status, identity), who(), fixToken(why), closeFix()}: the
 * panel's drawing, called on each change. `hook` is what the tests read (`window.__pogo.submit`).
 */
export class Submission {
  #state = 'ready';

  constructor(run, signal, ui) {
    this.run = run;
    this.signal = signal;
    this.ui = ui;
    this.rate = run.tickRate;
    this.entry = {
      level: run.level, bytes: run.bytes, browserHash: run.browserHash, finishTick: run.finishTick,
      tickRate: run.tickRate, playerName: run.playerName ?? '', ticket: run.ticket?.id ?? null,
    };
    this.key = pendingKey(run.level, run.browserHash);
    /** Why the run is open (no ticket, or its ticket dropped), for the verdict line. */
    this.openWhy = this.entry.ticket ? null : (run.openWhy ?? 'an open race: uploaded without a run ticket');
    /** An upload is on its way (a second click does nothing). */
    this.busy = false;
    /** The last failure is one a later try may fix: "Retry now". */
    this.retryOffered = false;
    /** Listeners of every transition: `(state, submission)`. */
    this.listeners = [];
    this.hook = {
      state: 'ready', history: ['ready'], runId: null, rank: null, serverHash: null, browserHash: run.browserHash,
      browserFinishTick: run.finishTick, serverFinishTick: null, kept: keepPending(this.entry), message: '',
      ticket: this.entry.ticket, realtime: null, realtimeNote: null, realtimeRank: null,
    };
  }

  get state() {
    return this.#state;
  }

  /** The server has the run, or refused it for good. */
  get settled() {
    return this.hook.runId !== null || this.#state === 'refused';
  }

  /** Calls `f(state, submission)` after every transition. */
  onTransition(f) {
    this.listeners.push(f);
  }

  /** Takes `event` if the state accepts it (the only assignment of the state). */
  #take(event) {
    const to = EVENTS[this.#state][event];
    if (!to) return false;
    this.#state = to;
    for (const f of this.listeners) f(to, this);
    return true;
  }

  /** Shows `message` in the current state. */
  #say(...message) {
    this.ui.show(this.#state, ...message);
  }

  // -- transitions -------------------------------------------------------------------------

  /** ready | error → uploading: sends the run (re-recorded under the name if need be), then
   * follows it to its verdict. Without an identity, asks for one instead. */
  async upload() {
    if (this.busy || this.signal.aborted) return;
    const identity = getIdentity();
    if (!identity) {
      this.#say('Register a name (or paste a token) to upload.');
      this.ui.who();
      return;
    }
    if (!this.#take('upload')) return;
    this.busy = true;
    this.retryOffered = false;
    this.ui.closeFix();
    try {
      this.#say(`Uploading as ${identity.name}…`);
      await this.#renameFor(identity);
      const previous = await bestOf(this.entry.level, identity.name, this.signal);
      // The finish's commitment must reach the server before the upload uses the ticket.
      if (this.entry.ticket) await this.run.ticket?.settled?.();
      const answer = await this.#send(identity);
      this.#accept(answer);
      await this.#follow(answer.id, previous, identity);
    } catch (err) {
      if (err.name === 'AbortError') return;
      this.#failed(err);
    } finally {
      this.busy = false;
      this.ui.who();
    }
  }

  /** uploading → retrying: a failure waiting can fix; counts down `wait` seconds. */
  async #wait(err, attempt, waitS) {
    this.#take('wait');
    for (let left = waitS * 1000; left > 0; left -= 1000) {
      this.#say(why(err), ` Trying again in ${Math.ceil(left / 1000)} s (try ${attempt + 1} of ${UPLOAD_TRIES_MAX}). Your run is kept in this browser meanwhile.`);
      await sleep(Math.min(1000, left), this.signal);
    }
  }

  /** retrying → uploading: the next try. */
  #retry(identity, attempt) {
    this.#take('retry');
    this.#say(`Uploading as ${identity.name} (try ${attempt} of ${UPLOAD_TRIES_MAX})…`);
  }

  /** uploading → queued: the server has the run. */
  #accept(answer) {
    dropPending(this.key);
    this.hook.kept = false;
    this.hook.runId = answer.id;
    this.#take('accept');
    this.#say(answer.duplicate ? `Already uploaded: run ${answer.id}.` : `Uploaded: run ${answer.id}, waiting for the verifier…`);
    this.ui.compare();
  }

  /** queued → verifying: the verifier took the run. */
  #progress(id) {
    this.#take('progress');
    this.#say(`The server is re-simulating run ${id}…`);
  }

  /** queued | verifying → verified | rejected: the verdict, with the rank and the best. */
  async #verdict(s, previous, identity) {
    this.hook.serverHash = s.final_hash ?? null;
    this.hook.serverFinishTick = s.finish_tick ?? null;
    if (s.status === 'verified') {
      Object.assign(this.hook, { realtime: Boolean(s.realtime), realtimeNote: s.realtime_note ?? null, realtimeRank: s.realtime_rank ?? null, rank: s.rank ?? null });
      const message = await this.#verifiedMessage(s, previous, identity);
      this.#take('verified');
      this.ui.realtime(s);
      this.#say(...message);
    } else {
      this.#take('rejected');
      this.#say(el('strong', {}, 'Rejected: '), el('span', { class: 'reason' }, s.reason ?? 'no reason given'),
        s.reason_kind ? el('span', { class: 'muted' }, ` (${s.reason_kind})`) : null);
    }
    this.ui.compare();
    this.ui.next(s, identity);
  }

  /** → error or refused: what failed, and what can be done about it. */
  #failed(err) {
    const api = err instanceof ApiError ? err : null;
    if (api && (api.status === 401 || api.status === 403)) {
      const message = api.code === 'name_mismatch' || api.code === 'player_hidden'
        ? `${api.message}.`
        : 'Your token was not accepted: expired, wrong or revoked. Register again or paste a token.';
      this.#take('fail');
      this.#say(el('strong', {}, 'Not uploaded. '), message, el('span', { class: 'muted' }, ` (${api.status} ${api.code}) Your run is kept in this browser.`));
      this.ui.fixToken(null);
      return;
    }
    if (api && (FINAL_STATUSES.has(api.status) || (api.status === 404 && api.code === 'unknown_level'))) {
      dropPending(this.key);
      this.hook.kept = false;
      this.#take('refuse');
      this.#say(el('strong', {}, 'The server refused this run: '), el('span', { class: 'reason' }, api.message),
        el('span', { class: 'muted' }, ` (${api.status} ${api.code})`),
        '. No retry can change that, so it is no longer kept in this browser; save the replay file to keep it.');
      return;
    }
    this.retryOffered = true;
    this.#take('fail');
    this.#say(el('strong', {}, 'Not uploaded yet. '), api ? why(api) : String(err.message ?? err),
      ' Your run is kept in this browser: retry now, or later from the leaderboard.');
  }

  // -- what the transitions do -------------------------------------------------------------

  /** The replay under `identity`'s name (re-recorded when it carries another). */
  async #renameFor(identity) {
    if (this.entry.playerName === identity.name) return;
    const core = await loadCore(this.signal);
    const again = rerecord(core.pogo, core.tuning, this.entry.bytes, identity.name, { expectedHash: this.run.browserHash });
    this.entry.bytes = again.bytes;
    this.entry.playerName = identity.name;
    if (isPending(this.key)) keepPending(this.entry);
  }

  /** POST /api/runs, retrying what waiting can fix (bounded); resolves with the answer body. */
  async #send(identity) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#post(identity);
      } catch (err) {
        if (err instanceof ApiError && this.entry.ticket && TICKET_CODES.has(err.code)) {
          this.#dropTicket(err);
          attempt--;
          continue;
        }
        if (!(err instanceof ApiError) || !retryable(err) || attempt >= UPLOAD_TRIES_MAX) throw err;
        const said = Number(err.body?.retry_after_s);
        const wait = Math.min(RETRY_WAIT_MAX_S, Math.max(Number.isFinite(said) ? said : 0, RETRY_FIRST_S * 2 ** (attempt - 1)));
        await this.#wait(err, attempt, wait);
        this.#retry(identity, attempt + 1);
      }
    }
  }

  async #post(identity) {
    const query = this.entry.ticket ? `?ticket=${encodeURIComponent(this.entry.ticket)}` : '';
    const { body } = await request(`/api/runs${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${identity.token}`, 'content-type': 'application/octet-stream' },
      body: this.entry.bytes,
      retry: false,
      signal: this.signal,
    });
    return body;
  }

  /** The ticket is past use; the run is not: up it goes, open. */
  #dropTicket(err) {
    this.openWhy = `an open race: the server did not take its run ticket (${err.message})`;
    this.entry.ticket = null;
    this.hook.ticket = null;
    if (isPending(this.key)) keepPending(this.entry);
    this.ui.realtime(null);
  }

  /** Polls the run until its verdict (bounded in time and in errors in a row). */
  async #follow(id, previous, identity) {
    const started = performance.now();
    let errors = 0;
    for (;;) {
      let s;
      try {
        s = await getJson(`/api/runs/${id}`, { signal: this.signal });
        errors = 0;
      } catch (err) {
        if (err.name === 'AbortError') throw err;
        if (++errors > POLL_ERRORS_MAX) {
          this.#take('fail');
          this.#say(`Uploaded as run ${id}, but its status cannot be read: ${err.message}. `, link(runHref(id), 'See the run later'));
          return;
        }
        await sleep(1000, this.signal);
        continue;
      }
      this.hook.serverHash = s.final_hash ?? null;
      this.hook.serverFinishTick = s.finish_tick ?? null;
      if (s.status === 'verified' || s.status === 'rejected') return this.#verdict(s, previous, identity);
      if (s.status === 'verifying' && this.#state === 'queued') this.#progress(id);
      if (performance.now() - started > POLL_DURATION_MAX_MS) {
        this.#say(`Still ${s.status} after ${POLL_DURATION_MAX_MS / 1000} s: the server is busy. `, link(runHref(id), 'See the run later'));
        return;
      }
      await sleep(POLL_INTERVAL_MS, this.signal);
    }
  }

  /** What a verified run did to the player's standing, as the status line says it. */
  async #verifiedMessage(s, previous, identity) {
    if (s.finish_tick === null || s.finish_tick === undefined) return [el('strong', {}, 'Verified'), ', but the run does not finish, so it is not ranked.'];
    const time = el('span', { class: 'clock' }, s.time);
    const rank = el('strong', { class: 'rank' }, `rank ${s.rank}`);
    if (s.rank !== null && s.rank !== undefined) {
      if (!previous) return [el('strong', {}, 'Verified. '), 'Your first time on the board: ', time, ', ', rank, '.'];
      if (previous.run_id === s.id) return [el('strong', {}, 'Verified. '), 'This run already was your best: ', time, ', ', rank, '.'];
      return [el('strong', {}, 'Verified. '), 'New best: ', time, ` (−${seconds(previous.finish_tick - s.finish_tick, this.rate)}), `,
        rank, previous.rank === s.rank ? ' (unchanged).' : ` (was ${previous.rank}).`];
    }
    const best = previous ?? (await bestOf(s.level, identity.name, this.signal));
    if (!best) {
      return [el('strong', {}, 'Verified: '), time, s.current_season === false ? ', not ranked: the run is of a past season.'
        : ', not ranked: no run of yours is on this board (an admin may have hidden your runs).'];
    }
    const behind = s.finish_tick - best.finish_tick;
    return [el('strong', {}, 'Verified: '), time, ` — not your best (your best is ${best.time}, rank ${best.rank}`,
      behind > 0 ? `; this run is ${seconds(behind, this.rate)} slower)` : ', uploaded earlier)', '.'];
  }
}

/** The links after a verdict: the run, the board around the player, the run as a ghost. */
export function nextLinks(s, identity) {
  return [link(runHref(s.id), 'See the run'), ' · ',
    link(boardHref(s.level, { around: identity.name }), 'See the board'),
    s.status === 'verified' ? [' · ', link(playHref(s.level, [s.id]), 'Race this run as a ghost')] : null];
}

/** A run's retry-worthy failures: the network, 429, 5xx. */
function retryable(err) {
  return err.status === 0 || err.status === 429 || err.status >= 500;
}

/** A failure the panel retries, for a human. */
function why(err) {
  if (err.status === 0) return 'The server cannot be reached.';
  if (err.status === 429) return 'Too many uploads just now (429).';
  if (err.status === 503) return `The server is busy (503: ${err.message}).`;
  return `The server answered ${err.status} (${err.message}).`;
}

/** `ticks` as seconds, `1.250 s`. */
function seconds(ticks, rate) {
  const ms = millis(Math.abs(ticks), rate);
  return `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')} s`;
}

/** The player's entry on the level's board (`{rank, run_id, finish_tick, time, …}`), or null:
 * a player absent from the board is an ordinary answer (no entries). */
async function bestOf(level, name, signal) {
  try {
    const board = await getJson(`/api/levels/${segment(level)}/leaderboard?around=${encodeURIComponent(name)}&limit=1`, { signal });
    return board.entries.find((e) => e.player.toLowerCase() === name.toLowerCase()) ?? null;
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    return null; // an unknown player, or the board cannot be read: no comparison
  }
}
