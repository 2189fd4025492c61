// The track editor (`#/editor`, and `#/editor/ID` to remix published track ID): a player's
// track made with the mouse and keys on a top view (view2d.js, tools.js, keys.js), checked as
// it is edited by the server's own gate in WebAssembly (validate.js), with a 3D preview
// (preview3d.js), an inspector for exact values (inspector.js), drafts kept in this browser
// (drafts.js), files and codes to move tracks around (codes.js), test-play in the play view
// (testplay.js) and publishing (publish.js). One session (session.js) holds the draft, its
// undo history and the selection.
//
// For tests: `window.__pogo.editor` reads the session back (the track, the selection, the
// problems) and maps world points to the page, so a test can aim the mouse; it changes
// nothing. Built for a desktop: below 760 px wide the editor asks for a bigger screen.

import { ApiError } from '../shared/api.js';
import { el, replace } from '../shared/dom.js';
import { CoreMissing, loadCore } from '../shared/wasm.js';
import { CODE_PREFIX, FILE_BYTES_MAX, decodeCode, download, encodeCode, fileName, parseImport } from './codes.js';
import { deleteDraft, loadDrafts, newDraftId } from './drafts.js';
import { helpOverlay } from './help.js';
import { renderInspector } from './inspector.js';
import { emptyTrack, footprint, levelJson, trackFromLevel } from './model.js';
import { renderPublish } from './publish.js';
import { Session } from './session.js';
import { startTestPlay } from './testplay.js';
import { attachKeys } from './keys.js';
import { attachMouse } from './tools.js';
import { draftBar, toolBar } from './toolbar.js';
import { renderMeter, renderProblems } from './validate.js';
import { TopView } from './view2d.js';

/** The page's parts. */
function layout(main) {
  const page = {
    canvas: el('canvas', { class: 'editor-canvas', tabindex: '0', 'aria-label': 'The track from above' }),
    canvas3d: el('canvas', { class: 'editor-canvas3d', hidden: true, 'aria-label': 'The track in 3D' }),
    status: el('div', { class: 'editor-status small', role: 'status' }),
    message: el('div', { class: 'editor-message', role: 'alert' }),
    code: el('div', { class: 'editor-code', hidden: true }),
    inspector: el('div', { class: 'editor-panel editor-inspector' }),
    problems: el('div', { class: 'editor-panel editor-problems-panel' }),
    meter: el('div', { class: 'editor-panel editor-meter' }),
    publish: el('div', { class: 'editor-panel editor-publish' }),
  };
  page.stage = el('div', { class: 'editor-stage' }, page.canvas, page.canvas3d);
  page.body = el('div', { class: 'editor-body' });
  page.section = el('section', { class: 'editor' },
    el('p', { class: 'editor-too-small' }, 'The track editor wants a bigger screen: open this page on a computer (at least 760 px wide). The leaderboards and races work here.'),
    page.body);
  replace(main, page.section);
  return page;
}

/** The draft to open: a remix of `remixOf` (fetched), else the current one kept here, else a
 * new one. `{draft, notice}`. */
async function firstDraft(remixOf, signal) {
  if (remixOf !== null) {
    const response = await fetch(`/api/tracks/${encodeURIComponent(remixOf)}/level.json`, { signal }).catch((e) => {
      if (e.name === 'AbortError') throw e;
      return null;
    });
    let unreadable = null;
    if (response?.ok) {
      try {
        const track = trackFromLevel(JSON.parse(await response.text()));
        track.name = `remix of ${track.name}`.slice(0, 64);
        return { draft: { id: newDraftId(), name: track.name, level: track, remixOf }, notice: `A remix of track ${remixOf}: a new draft.` };
      } catch (e) {
        unreadable = `Track ${remixOf} is not a level this editor can read (${e.message}).`;
      }
    }
    const why = unreadable ?? response?.status === 404 ? `No published track ${remixOf} on this server (or this server does not publish tracks yet).`
      : `Track ${remixOf} could not be read${response ? ` (${response.status})` : ''}.`;
    return { ...storedDraft(), notice: why, noticeIsError: true };
  }
  return storedDraft();
}

function storedDraft() {
  const { current, drafts } = loadDrafts();
  const stored = drafts.find((d) => d.id === current) ?? drafts[0];
  if (stored) {
    try {
      return { draft: { ...stored, level: trackFromLevel(JSON.parse(stored.level)) } };
    } catch { /* a draft that no longer reads: start a new one */ }
  }
  return { draft: { id: newDraftId(), name: 'my track', level: emptyTrack('my track'), remixOf: null } };
}

export async function renderEditor(main, remixOf, params, view, { testPlay }) {
  const page = layout(main);
  let core = null;
  let coreProblem = null;
  try {
    core = await loadCore(view.signal);
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    coreProblem = e instanceof CoreMissing ? `The simulation module is not built, so the server's checks and test-play are off: ${e.message}`
      : `The simulation core did not load: ${e instanceof ApiError ? `${e.message} (${e.status} ${e.code})` : e.message}`;
  }
  const { draft, notice, noticeIsError } = await firstDraft(remixOf, view.signal);
  const ui = new EditorUi({ page, core, params, view, testPlay });
  ui.open(draft);
  if (notice || coreProblem) ui.say(coreProblem ?? notice, !!(coreProblem || noticeIsError));
}

/** The editor's page around its session. */
class EditorUi {
  constructor({ page, core, params, view, testPlay }) {
    Object.assign(this, { page, core, params, view, testPlay });
    this.view2d = new TopView(page.canvas);
    this.preview = null;
    this.showing3d = false;
    this.playing = null;
    this.help = helpOverlay(() => this.toggleHelp());
    this.drafts = draftBar({
      rename: (name) => this.session.rename(name), open: (id) => this.openStored(id), create: () => this.open(newDraft()),
      remove: () => this.removeDraft(), exportFile: () => this.exportFile(), importFile: (f) => this.importFile(f),
      copyCode: () => this.copyCode(), pasteCode: () => this.showCodeBox(''), help: () => this.toggleHelp(),
    });
    this.tools = toolBar({
      tool: (id) => { this.session.tool = id; this.refresh('tool'); }, grid: (s) => { this.session.grid = s; this.refresh('tool'); },
      snap: (on) => { this.session.snap = on; this.refresh('tool'); }, undo: () => this.session.undo(), redo: () => this.session.redo(),
      toggle3d: () => this.toggle3d(), testPlay: (c) => this.startPlay(c),
    });
    page.body.append(this.drafts.node, page.code, this.tools.node,
      el('div', { class: 'editor-main' }, page.stage,
        el('aside', { class: 'editor-side' }, page.inspector, page.problems, page.meter, page.publish)),
      page.status, page.message, this.help);
    this.wire();
  }

  wire() {
    const { page, view } = this;
    attachMouse(() => this.session, page.canvas);
    const stopKeys = attachKeys(() => this.session, {
      toggleHelp: () => this.toggleHelp(), helpOpen: () => !this.help.hidden, toggle3d: () => this.toggle3d(),
      testPlay: (c) => this.startPlay(c), frameAll: () => { this.view2d.frame(this.session.extentRect()); this.draw(); },
    }, () => !this.playing);
    view.cleanup(stopKeys);
    const resize = () => this.resize();
    window.addEventListener('resize', resize);
    view.cleanup(() => window.removeEventListener('resize', resize));
    view.cleanup(() => { this.playing?.close(); this.preview?.dispose(); });
    page.section.addEventListener('dragover', (e) => e.preventDefault());
    page.section.addEventListener('drop', (e) => {
      e.preventDefault();
      const file = e.dataTransfer?.files?.[0];
      if (file) this.importFile(file);
    });
    window.__pogo = { ...window.__pogo, editor: editorHook(this) };
  }

  /** Opens `draft` ({id, name, level (a track), remixOf}) in a new session. */
  open(draft) {
    const view = this.view2d;
    this.session = new Session({ view, pogo: this.core?.pogo ?? null, rate: this.core?.tuning.tickRate ?? 60, onChange: (w) => this.refresh(w) }, draft);
    this.session.saveNow();
    this.resize();
    view.frame(this.session.extentRect());
    this.refresh('track');
  }

  openStored(id) {
    const stored = loadDrafts().drafts.find((d) => d.id === id);
    if (!stored) return;
    try {
      this.open({ ...stored, level: trackFromLevel(JSON.parse(stored.level)) });
    } catch (e) {
      this.say(`That draft does not read any more: ${e.message}`, true);
    }
  }

  removeDraft() {
    if (!window.confirm(`Delete the draft “${this.session.history.current.name}” from this browser?`)) return;
    deleteDraft(this.session.draft.id);
    const { current } = loadDrafts();
    if (current) this.openStored(current);
    else this.open(newDraft());
  }

  resize() {
    const box = this.page.stage;
    const w = box.clientWidth || 800;
    const h = box.clientHeight || 560;
    this.view2d.resize(w, h);
    this.preview?.resize(w, h);
    if (this.session) this.draw();
  }

  draw() {
    const s = this.session;
    const flagged = new Set(s.problems.map((p) => p.key).filter(Boolean));
    this.view2d.draw(s.track, { selection: s.selection, flagged, marquee: s.marquee, preview: s.preview, grid: s.grid });
  }

  /** Redraws what `what` changed: 'view', 'cursor', 'selection', 'tool', 'status', 'publish',
   * 'track'. */
  refresh(what) {
    const s = this.session;
    if (what === 'cursor') return this.status();
    this.draw();
    if (what === 'view') return undefined;
    if (what === 'publish') return renderPublish(this.page.publish, s);
    this.tools.update(s, this.showing3d);
    if (what === 'track' || what === 'selection') renderInspector(this.page.inspector, s);
    if (what === 'track') {
      this.drafts.update(s);
      renderProblems(this.page.problems, s.problems, (key) => this.pick(key), s.gate !== null);
      renderMeter(this.page.meter, s.history.current, s.gate);
      renderPublish(this.page.publish, s);
      if (this.showing3d) this.preview.show(s.history.current, s.rate, true);
    }
    return this.status();
  }

  status() {
    const s = this.session;
    const c = s.cursor ? `x ${s.cursor[0].toFixed(2)}  z ${s.cursor[1].toFixed(2)}` : '';
    const sel = s.selection.size ? `${s.selection.size} selected` : 'nothing selected';
    replace(this.page.status, el('span', {}, `Tool: ${s.tool} · grid ${s.grid} m${s.snap ? '' : ' (snap off)'} · ${sel} · ${s.history.depth} undo steps`),
      el('span', { class: 'muted' }, s.message ? ` · ${s.message}` : ''), el('span', { class: 'editor-cursor' }, c));
  }

  /** A problem's object: selected, and brought into view when it is out of it. */
  pick(key) {
    const r = footprint(this.session.track, key);
    const [ax, ay] = this.view2d.toScreen(r.x0, r.z0);
    const [bx, by] = this.view2d.toScreen(r.x1, r.z1);
    if (ax < 0 || ay < 0 || bx > this.view2d.width || by > this.view2d.height) {
      this.view2d.cx = (r.x0 + r.x1) / 2;
      this.view2d.cz = (r.z0 + r.z1) / 2;
    }
    this.session.select([key]);
    this.page.canvas.focus();
  }

  say(text, isError = false) {
    replace(this.page.message, text ? el('p', { class: isError ? 'error' : 'editor-note' }, text) : null);
  }

  toggleHelp() {
    this.help.hidden = !this.help.hidden;
  }

  toggle3d() {
    this.showing3d = !this.showing3d;
    if (this.showing3d && !this.preview) {
      try {
        this.preview = new PreviewLazy(this.page.canvas3d);
      } catch (e) {
        this.showing3d = false;
        this.say(`No 3D preview: ${e.message}`, true);
        return;
      }
    }
    this.page.canvas.hidden = this.showing3d;
    this.page.canvas3d.hidden = !this.showing3d;
    this.resize();
    if (this.showing3d) this.preview.show(this.session.history.current, this.session.rate, false);
    this.refresh('tool');
  }

  startPlay(fromCheckpoint) {
    if (this.playing) return;
    const camera = this.view2d.camera;
    const started = startTestPlay({
      session: this.session, body: this.page.body, section: this.page.section, params: this.params, testPlay: this.testPlay,
      onBack: () => {
        this.playing = null;
        this.view2d.camera = camera;
        this.resize();
        this.refresh('track');
        this.page.canvas.focus();
      },
    }, fromCheckpoint);
    if (typeof started === 'string') this.say(started, true);
    else {
      this.say('');
      this.playing = started;
    }
  }

  // -- files and codes -------------------------------------------------------------------

  exportFile() {
    const track = this.session.history.current;
    download(fileName(track.name), `${levelJson(track)}\n`);
    this.say(`Exported ${fileName(track.name)}.`);
  }

  async importFile(file) {
    if (file.size > FILE_BYTES_MAX) {
      this.say(`Not imported: the file is ${file.size} bytes; a track is at most ${FILE_BYTES_MAX} (256 KiB).`, true);
      return;
    }
    this.importText(await file.text(), `the file ${file.name}`);
  }

  /** Imports level JSON `text` into a new draft, or says why not. */
  importText(text, what) {
    const check = (t) => (this.core ? this.core.pogo.checkTrack(t) : { ok: true });
    try {
      const track = trackFromLevel(parseImport(text, check));
      this.open({ id: newDraftId(), name: track.name, level: track, remixOf: null });
      this.say(`Imported ${what} into a new draft.`);
      return true;
    } catch (e) {
      this.say(`Not imported: ${e.message}.`, true);
      return false;
    }
  }

  async copyCode() {
    const code = await encodeCode(levelJson(this.session.history.current));
    this.showCodeBox(code);
    navigator.clipboard?.writeText(code).then(() => this.say(`The code (${code.length} characters) is on the clipboard.`), () => {});
  }

  /** The code box: `code` shown to copy, or '' for one to paste. */
  showCodeBox(code) {
    const box = this.page.code;
    const input = el('textarea', { class: 'editor-code-text', rows: '2', 'aria-label': code ? 'The track code' : 'A track code to import', placeholder: `${CODE_PREFIX}…`, spellcheck: 'false' });
    input.value = code;
    const close = () => { box.hidden = true; replace(box); this.page.canvas.focus(); };
    const importIt = async () => {
      try {
        if (this.importText(await decodeCode(input.value), 'the code')) close();
      } catch (e) {
        this.say(`Not imported: ${e.message}.`, true);
      }
    };
    replace(box, el('span', { class: 'small' }, code ? 'The track as a code: paste it into a chat; Paste code imports one.' : 'Paste a track code:'), input,
      code ? null : el('button', { type: 'button', onclick: importIt, dataset: { action: 'import-code' } }, 'Import'),
      el('button', { type: 'button', class: 'quiet', onclick: close }, 'Close'));
    box.hidden = false;
    input.focus();
    if (code) input.select();
  }
}

/** The 3D preview, imported on first use (three.js is big). */
class PreviewLazy {
  constructor(canvas) {
    this.canvas = canvas;
    this.real = null;
    this.pending = null;
    this.loading = import('./preview3d.js').then(({ Preview }) => {
      this.real = new Preview(canvas);
      if (this.size) this.real.resize(...this.size);
      if (this.pending) this.real.show(...this.pending);
    });
  }

  resize(w, h) { this.size = [w, h]; this.real?.resize(w, h); }
  show(track, rate, keep) { this.pending = [track, rate, keep]; this.real?.show(track, rate, keep); }
  dispose() { this.real?.dispose(); }
}

function newDraft() {
  return { id: newDraftId(), name: 'my track', level: emptyTrack('my track'), remixOf: null };
}

/** `window.__pogo.editor`: reads for tests. */
function editorHook(ui) {
  return {
    track: () => structuredClone(ui.session.history.current),
    selection: () => [...ui.session.selection],
    problems: () => ui.session.problems.map((p) => ({ key: p.key, field: p.field, message: p.message, source: p.source })),
    gate: () => ui.session.gate,
    undoDepth: () => ui.session.history.depth,
    draftId: () => ui.session.draft.id,
    tool: () => ui.session.tool,
    camera: () => ui.view2d.camera,
    playing: () => !!ui.playing,
    authorRun: () => (ui.session.authorRun ? { finishTick: ui.session.authorRun.finishTick, levelName: ui.session.authorRun.levelName, bytes: ui.session.authorRun.bytes.length } : null),
    /** World (x, z) → page coordinates of the top view (for the mouse). */
    toPage: (x, z) => {
      const r = ui.page.canvas.getBoundingClientRect();
      const [px, py] = ui.view2d.toScreen(x, z);
      return [r.left + px, r.top + py];
    },
  };
}
