// The upload form (`#/upload`): a player's token and a `.pogo` file → `POST /api/runs`,
// then the run's status live (queued → verifying → verified with its rank, or rejected with
// the verifier's reason), polled from its status URL. Also: registering a name for a token.
// The token field starts with the token this browser keeps (identity.js); a name registered
// here is kept as the browser's identity.

import { runHref } from '../routes.js';
import { ApiError, getJson, request, sleep } from '../shared/api.js';
import { el, link, replace } from '../shared/dom.js';
import { getIdentity, setIdentity } from '../shared/identity.js';
import { serverLimits } from '../shared/limits.js';

/** Time between two status polls (ms): 4 requests a second stays well under the API's rate. */
const POLL_INTERVAL_MS = 250;
/** Longest wait for a verdict before the page stops polling (the run stays queued). */
const POLL_DURATION_MAX_MS = 120_000;

const STEPS = ['uploaded', 'queued', 'verifying'];

export function renderUpload(main, params, view) {
  const token = el('input', { type: 'password', name: 'token', id: 'token', autocomplete: 'off', required: true, spellcheck: 'false', placeholder: 'pogo_…', value: getIdentity()?.token });
  const file = el('input', { type: 'file', name: 'file', id: 'file', accept: '.pogo,application/octet-stream', required: true });
  const submit = el('button', { type: 'submit' }, 'Upload');
  const form = el('form', { class: 'upload-form' },
    el('label', { for: 'token' }, 'Token'), token,
    el('label', { for: 'file' }, 'Replay (.pogo)'), file,
    submit);
  const steps = el('ol', { class: 'steps', 'aria-label': 'Progress' });
  const status = el('div', { class: 'status', id: 'upload-status', role: 'status', 'aria-live': 'polite' });
  const history = [];
  window.__pogo = { ...window.__pogo, upload: { history } };

  const show = (state, ...message) => {
    history.push(state);
    status.dataset.state = state;
    replace(status, ...message);
    replace(steps, [...STEPS, state === 'rejected' ? 'rejected' : 'verified'].map((step) => {
      const done = history.includes(step);
      return el('li', { class: done ? (step === 'rejected' ? 'bad' : 'done') : null }, step);
    }));
  };

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const chosen = file.files[0];
    if (!chosen) return;
    history.length = 0;
    submit.disabled = true;
    try {
      // The server's limit, asked (a larger file would be refused with 413 after sending it).
      const { replay_bytes_max: bytesMax } = await serverLimits();
      if (chosen.size > bytesMax) {
        show('error', `That file is ${chosen.size} bytes; the largest replay the server takes is ${bytesMax} bytes.`);
        return;
      }
      show('uploading', `Uploading ${chosen.name} (${chosen.size} bytes)…`);
      const { status: code, body } = await request('/api/runs', {
        method: 'POST',
        headers: { authorization: `Bearer ${token.value.trim()}`, 'content-type': 'application/octet-stream' },
        body: chosen,
        retry: false,
        signal: view.signal,
      });
      show('uploaded', code === 200 ? `These bytes were uploaded before: run ${body.id}.` : `Stored as run ${body.id}.`);
      await follow(body.id, body.status_url);
    } catch (err) {
      if (err.name === 'AbortError') return;
      const message = err instanceof ApiError ? `${err.message}` : String(err);
      show('error', el('strong', {}, 'Not accepted: '), message, err.code ? el('span', { class: 'muted' }, ` (${err.status} ${err.code})`) : null);
    } finally {
      submit.disabled = false;
    }
  });

  const follow = async (id, statusUrl) => {
    const started = performance.now();
    let seen = null;
    for (;;) {
      const run = await getJson(statusUrl, { signal: view.signal });
      if (run.status !== seen) {
        seen = run.status;
        if (run.status === 'verified') {
          show('verified', el('strong', {}, 'Verified. '),
            run.finish_tick === null ? 'The run does not finish, so it is not ranked. '
              : `${run.time} (finish tick ${run.finish_tick})${run.rank ? `, rank ${run.rank} on ${run.level}` : `: not your best on ${run.level}, so not ranked`}. `,
            link(runHref(id), 'See the run'));
        } else if (run.status === 'rejected') {
          show('rejected', el('strong', {}, 'Rejected: '), el('span', { class: 'reason' }, run.reason ?? 'no reason given'),
            run.reason_kind ? el('span', { class: 'muted' }, ` (${run.reason_kind})`) : null, ' ', link(runHref(id), 'See the run'));
        } else {
          show(run.status, `Run ${id} is ${run.status}…`);
        }
        status.dataset.run = String(id);
        if (run.status === 'verified' || run.status === 'rejected') {
          if (run.rank) status.dataset.rank = String(run.rank);
          return;
        }
      }
      if (performance.now() - started > POLL_DURATION_MAX_MS) {
        show('waiting', `Still ${run.status} after ${POLL_DURATION_MAX_MS / 1000} s; `, link(runHref(id), 'check the run later'));
        return;
      }
      await sleep(POLL_INTERVAL_MS, view.signal);
    }
  };

  // Registering: the token is shown once, here.
  const name = el('input', { type: 'text', name: 'name', id: 'reg-name', autocomplete: 'nickname', maxlength: 32, required: true });
  const registered = el('div', { class: 'registered', role: 'status' });
  const register = el('form', { class: 'register-form' },
    el('label', { for: 'reg-name' }, 'Name'), name, el('button', { type: 'submit' }, 'Register'));
  register.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const { body } = await request('/api/players', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: name.value }),
        retry: false,
        signal: view.signal,
      });
      token.value = body.token;
      setIdentity({ name: body.name, token: body.token });
      replace(registered, `Registered ${body.name}. Your token (shown once — keep it): `, el('code', {}, body.token),
        '. The replay’s player name must be exactly your name. This browser keeps it for the play view.');
    } catch (err) {
      if (err.name === 'AbortError') return;
      replace(registered, el('strong', {}, 'Not registered: '), err.message);
    }
  });

  replace(main, el('section', { class: 'upload' },
    el('h2', {}, 'Upload a run'),
    el('p', { class: 'muted' }, 'The server re-simulates your replay and ranks it only on what the re-simulation shows.'),
    form, steps, status,
    el('details', { class: 'register' }, el('summary', {}, 'No token yet? Register a name'), register, registered)));
}
