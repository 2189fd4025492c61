// The finish panel: draws one run's upload (shared/submission.js, the state machine) — the
// steps uploaded → queued → verifying → verified with the rank and the change to the
// player's best, or the verifier's reason; the final hash the browser computed beside the
// server's; real-time ✓ or why the race is open. Registering a name happens here when the
// browser has no token (identity.js keeps it); a token the server does not accept gets a
// message and a way to fix it in place. Used by the play view (a run just finished) and by
// the list of kept runs (shared/pending-list.js).
//
// For tests: `window.__pogo.submit` = { state, history, runId, rank, serverHash, browserHash,
// … } of the latest panel; the panel's `data-state` (one of submission.js's states).

import { el, replace } from './dom.js';
import { tickClock } from './format.js';
import { forget, getIdentity, register, setIdentity } from './identity.js';
import { autoUpload, setAutoUpload } from './pending.js';
import { Submission, nextLinks } from './submission.js';

/** The steps a run goes through, as the panel shows them. */
const STEPS = ['uploading', 'queued', 'verifying', 'verified'];

/**
 * The finish panel of `run` = {level, bytes: Uint8Array (the recorder's replay), browserHash
 * (16 hex), finishTick, tickRate, playerName (the replay header's, '' without identity),
 * ticket, openWhy} in `container`; `view` = {signal, cleanup}. The run is kept in the browser
 * at once, and uploaded at once if the racer chose "upload automatically"; `watch(submission)`
 * is called before that. The Submission.
 */
export function renderFinish(container, run, view, watch = null) {
  const submission = mountPanel(container, run, view, { start: autoUpload(), watch });
  // The panel is below the race; a racer who has just crossed the line should see it (on a
  // phone the stage fills the screen). Not focused: a key still held from the race (Space is
  // the trick) must not press its buttons.
  container.querySelector('section.finish-panel')?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
  return submission;
}

/** The panel of `run` in `container`; `start`: upload at once (with an identity), after
 * `watch(submission)`. */
export function mountPanel(container, run, view, { start = false, watch = null } = {}) {
  const panel = new FinishPanel(run);
  const submission = new Submission(run, view.signal, panel);
  panel.attach(submission);
  window.__pogo = { ...window.__pogo, submit: submission.hook };
  const onIdentity = () => { if (!submission.busy) panel.who(); };
  window.addEventListener('pogo-identity', onIdentity);
  view.cleanup?.(() => window.removeEventListener('pogo-identity', onIdentity));
  replace(container, panel.root);
  panel.who();
  panel.show('ready', getIdentity() ? 'Upload it to be verified and ranked.' : '');
  panel.compare();
  panel.realtime(null);
  watch?.(submission);
  if (start && getIdentity()) submission.upload();
  return submission;
}

/** The panel's elements and how each is drawn from the submission. */
class FinishPanel {
  constructor(run) {
    this.run = run;
    this.rate = run.tickRate;
    this.who_ = el('div', { class: 'finish-who' });
    this.uploadButton = el('button', { type: 'button', class: 'primary finish-upload' }, 'Upload');
    this.autoBox = el('input', { type: 'checkbox', class: 'finish-auto-box', checked: autoUpload() });
    this.retryButton = el('button', { type: 'button', class: 'primary finish-retry', hidden: true }, 'Retry now');
    this.saveButton = el('button', { type: 'button', class: 'quiet finish-save' }, 'Save the replay file');
    this.steps = el('ol', { class: 'steps finish-steps', 'aria-label': 'Progress' });
    this.status = el('div', { class: 'finish-status', role: 'status', 'aria-live': 'polite' });
    this.fix = el('div', { class: 'finish-fix', hidden: true });
    this.compareList = el('dl', { class: 'finish-compare' });
    this.nextLine = el('p', { class: 'finish-next' });
    this.realtimeLine = el('p', { class: 'finish-realtime' });
    this.foot = el('span', { class: 'finish-kept' });
    this.root = el('section', { class: 'finish-panel', 'aria-label': 'Your run', dataset: { state: 'ready', key: `${run.level}:${run.browserHash}`, browserHash: run.browserHash } },
      el('div', { class: 'finish-head' },
        el('span', { class: 'finish-label' }, 'Finished'),
        el('span', { class: 'finish-time clock' }, tickClock(run.finishTick, this.rate)),
        el('span', { class: 'muted small' }, `${run.level} · finish tick ${run.finishTick}`)),
      this.who_,
      el('div', { class: 'finish-actions' }, this.uploadButton, this.retryButton,
        el('label', { class: 'finish-auto' }, this.autoBox, ' upload automatically')),
      this.steps, this.status, this.realtimeLine, this.fix, this.compareList, this.nextLine,
      el('p', { class: 'finish-foot small muted' }, this.foot, this.saveButton));
  }

  /** Binds the buttons to `submission`. */
  attach(submission) {
    this.submission = submission;
    this.hook = submission.hook;
    this.uploadButton.addEventListener('click', () => submission.upload());
    this.retryButton.addEventListener('click', () => submission.upload());
    this.saveButton.addEventListener('click', () => this.download());
    this.autoBox.addEventListener('change', () => {
      setAutoUpload(this.autoBox.checked);
      if (this.autoBox.checked && submission.state === 'ready' && getIdentity()) submission.upload();
    });
  }

  /** The state `state` with its status line (the tests' hook follows). */
  show(state, ...message) {
    const hook = this.hook;
    hook.state = state;
    if (hook.history.at(-1) !== state) hook.history.push(state);
    Object.assign(this.root.dataset, { state });
    if (hook.runId !== null) this.root.dataset.run = String(hook.runId);
    if (hook.rank !== null) this.root.dataset.rank = String(hook.rank);
    if (state === 'refused') this.root.dataset.dropped = 'true';
    replace(this.status, ...message);
    hook.message = this.status.textContent;
    this.drawSteps(state);
    this.buttons();
    this.foot.textContent = hook.kept ? 'Kept in this browser until the server has it.'
      : this.submission.settled ? (hook.runId ? 'The server has it.' : 'No longer kept in this browser.')
        : 'This browser could not keep the run: upload it now, or save the file.';
  }

  drawSteps(state) {
    const reached = STEPS.indexOf(state === 'rejected' ? 'verified' : state);
    replace(this.steps, STEPS.map((step, i) => {
      const label = step === 'verified' && state === 'rejected' ? 'rejected' : step;
      let cls = null;
      if (state === 'rejected' && step === 'verified') cls = 'bad';
      else if (state === 'refused' && step === 'uploading') cls = 'bad';
      else if (i < reached || (i === reached && state === 'verified')) cls = 'done';
      else if (i === reached) cls = 'now';
      else if (state === 'retrying' && step === 'uploading') cls = 'now';
      return el('li', { class: cls }, label);
    }));
  }

  /** Upload while ready (with an identity); "Retry now" after a failure waiting can fix. */
  buttons() {
    const identity = getIdentity();
    const { state, settled, busy, retryOffered } = this.submission;
    this.uploadButton.hidden = !identity || settled || state !== 'ready';
    this.uploadButton.disabled = busy;
    if (identity) this.uploadButton.textContent = `Upload as ${identity.name}`;
    this.retryButton.hidden = !retryOffered || settled || state !== 'error';
  }

  /** The browser's final hash and finish tick beside the server's, each marked. */
  compare() {
    const { serverHash, serverFinishTick: serverFinish, runId } = this.hook;
    const state = this.submission.state;
    const decided = state === 'verified' || state === 'rejected';
    const mark = (a, b) => (b === null || b === undefined
      ? el('span', { class: 'muted' }, decided ? 'not reported by this server' : runId ? 'waiting for the verdict' : 'after the upload')
      : a === b ? el('span', { class: 'match' }, '✓ match') : el('span', { class: 'mismatch' }, '✗ MISMATCH'));
    if (runId === null) {
      replace(this.compareList,
        el('dt', {}, 'final hash'), el('dd', {}, el('code', { class: 'browser-hash' }, this.run.browserHash),
          el('span', { class: 'muted' }, ' (this browser’s; the server’s shows after the upload)')));
      return;
    }
    const pair = (browser, server, matched) => el('dd', { class: 'pair' },
      el('span', {}, el('span', { class: 'muted' }, 'browser '), browser),
      el('span', {}, el('span', { class: 'muted' }, 'server '), server), matched);
    replace(this.compareList,
      el('dt', {}, 'final hash'),
      pair(el('code', { class: 'browser-hash' }, this.run.browserHash), el('code', { class: 'server-hash' }, serverHash ?? '—'),
        mark(this.run.browserHash, decided ? serverHash : null)),
      el('dt', {}, 'finish tick'),
      pair(String(this.run.finishTick), serverFinish === null ? '—' : String(serverFinish),
        mark(this.run.finishTick, state === 'verified' ? serverFinish : null)));
    this.root.dataset.serverHash = serverHash ?? '';
    if (decided && serverHash) this.root.dataset.hashMatch = String(serverHash === this.run.browserHash);
  }

  /** Real-time ✓, the server's reason it is not, or why the race is open (`s`: the status). */
  realtime(s) {
    const line = this.realtimeLine;
    const ticket = this.submission.entry.ticket;
    if (s && s.status === 'verified' && s.realtime) {
      line.dataset.realtime = 'true';
      replace(line, el('strong', { class: 'match' }, 'real-time ✓'),
        s.realtime_rank ? [' · ', el('strong', { class: 'rank' }, `rank ${s.realtime_rank}`), ' on the real-time board'] : ' · on the real-time board');
    } else if (s && s.status === 'verified' && ticket) {
      line.dataset.realtime = 'false';
      replace(line, el('strong', { class: 'mismatch' }, 'not real-time: '), el('span', { class: 'realtime-note' }, s.realtime_note ?? 'no reason given'),
        el('span', { class: 'muted' }, ' — ranked on the open board only.'));
    } else if (!ticket) {
      line.dataset.realtime = 'open';
      replace(line, el('strong', {}, 'Open: '), el('span', { class: 'realtime-note' }, this.submission.openWhy),
        el('span', { class: 'muted' }, '. Ranked on the open board, never on the real-time one.'));
    } else {
      line.dataset.realtime = 'pending';
      const problem = this.run.ticket?.problem;
      replace(line, el('span', { class: 'muted' }, 'Raced under a run ticket: real-time is judged when the run is verified.'),
        problem ? el('span', { class: 'realtime-note' }, ` Note: ${problem}.`) : null);
    }
  }

  /** The links after a verdict. */
  next(s, identity) {
    replace(this.nextLine, ...nextLinks(s, identity));
  }

  /** Who uploads: the name kept in this browser (and a way to change it), or the forms. */
  who() {
    const identity = getIdentity();
    if (identity) {
      const change = el('button', { type: 'button', class: 'linkish', onclick: () => this.fixToken(null) }, 'use another name');
      if (this.submission.settled && this.hook.runId !== null) replace(this.who_, 'Uploaded as ', el('strong', { class: 'who-name' }, identity.name));
      else replace(this.who_, 'Uploading as ', el('strong', { class: 'who-name' }, identity.name), ' · ', change);
    } else {
      replace(this.who_, el('p', { class: 'finish-anon' }, 'To be ranked, register a name: it goes in the replay and on the board. Your token stays in this browser.'),
        this.identityForms());
    }
    this.buttons();
  }

  /** Register a name, or paste a name and its token; then upload. */
  identityForms() {
    const message = el('p', { class: 'form-message', role: 'alert' });
    const then = () => {
      this.closeFix();
      this.who();
      this.submission.upload();
    };
    return el('div', { class: 'identity-forms' }, this.registerForm(message, then),
      el('details', { class: 'finish-have-token' }, el('summary', {}, 'I already have a token'), this.pasteForm(message, then)), message);
  }

  registerForm(message, then) {
    const name = el('input', { type: 'text', name: 'name', autocomplete: 'nickname', maxlength: 32, required: true, placeholder: 'Your name', 'aria-label': 'Name to register', spellcheck: 'false' });
    const button = el('button', { type: 'submit', class: 'primary' }, 'Register and upload');
    const form = el('form', { class: 'finish-register' }, name, button);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      button.disabled = true;
      replace(message);
      try {
        await register(name.value, this.submission.signal);
        then();
      } catch (err) {
        if (err.name === 'AbortError') return;
        replace(message, err.message);
      } finally {
        button.disabled = false;
      }
    });
    return form;
  }

  pasteForm(message, then) {
    const name = el('input', { type: 'text', name: 'name', autocomplete: 'username', maxlength: 32, placeholder: 'Name', 'aria-label': 'Registered name', spellcheck: 'false' });
    const token = el('input', { type: 'password', name: 'token', autocomplete: 'off', placeholder: 'pogo_…', 'aria-label': 'Token', spellcheck: 'false' });
    const form = el('form', { class: 'finish-paste' }, name, token, el('button', { type: 'submit' }, 'Use this token'));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      replace(message);
      try {
        setIdentity({ name: name.value, token: token.value });
      } catch (err) {
        replace(message, err.message);
        return;
      }
      then();
    });
    return form;
  }

  /** The forms again, in place (a token refused, or "use another name"). */
  fixToken(why) {
    const forgetButton = el('button', {
      type: 'button', class: 'linkish', onclick: () => { forget(); this.closeFix(); this.who(); },
    }, 'Forget the name and token kept in this browser');
    replace(this.fix, why ? el('p', { class: 'fix-why' }, why) : null, this.identityForms(),
      getIdentity() ? el('p', { class: 'small' }, forgetButton) : null);
    this.fix.hidden = false;
    this.fix.querySelector('input')?.focus();
  }

  closeFix() {
    this.fix.hidden = true;
    replace(this.fix);
  }

  /** The replay file, as it would be uploaded now (under the name, once re-recorded). */
  download() {
    const bytes = this.submission.entry.bytes;
    const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
    const a = el('a', { href: url, download: `${this.run.level}-tick-${this.run.finishTick}.pogo` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
