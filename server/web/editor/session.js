// One editing session: the draft, its undo history, the selection, the tool, the grid, and
// every edit as one step (`commit`): the history grows, the draft is saved, the track is
// checked again, the views and panels are redrawn. The page's parts (editor.js) call into it;
// the mouse (tools.js) and the keys (keys.js) too.

import { saveDraft } from './drafts.js';
import {
  History, KIND_NAMES, addObjects, allKeys, copyObjects, deleteObjects, emptyTrack, footprint, geometryText, levelJson,
  mirrorObjects, moveObjects, objectAt, reorderCheckpoint, withObject,
} from './model.js';
import { newObject } from './tools.js';
import { checkTrackNow, keyOfField } from './validate.js';

/** Grid steps to choose from (m). */
export const GRID_STEPS = [0.25, 0.5, 1, 2, 4, 8];

export class Session {
  /** `parts` = {view (TopView), pogo (or null), rate, onChange(what)}; `draft` = {id, name,
   * level (a track), remixOf, description}. */
  constructor(parts, draft) {
    Object.assign(this, parts);
    this.draft = { ...draft };
    this.history = new History(draft.level ?? emptyTrack(draft.name));
    this.selection = new Set();
    this.tool = 'select';
    this.grid = 1;
    this.snap = true;
    /** A track shown while a drag is under way (not yet a step), or null. */
    this.shown = null;
    this.preview = null;
    this.marquee = null;
    this.clipboard = [];
    this.spaceHeld = false;
    /** The author's last finished test-play from the spawn: {bytes, finishTick, levelName,
     * levelText}; what publishing sends (valid while the geometry is the same). */
    this.authorRun = null;
    /** Problems the server's refusal named (until the next edit). */
    this.serverProblems = [];
    /** What the last publish got (publish.js), until the next edit. */
    this.publishResult = null;
    this.message = '';
    this.check();
  }

  /** The track on screen. */
  get track() { return this.shown ?? this.history.current; }

  /** Checks the track: the gate's answer and the problems. */
  check() {
    const { gate, problems } = checkTrackNow(this.pogo, this.history.current);
    this.gate = gate;
    this.problems = [...this.serverProblems, ...problems];
  }

  /** One edit: `track` becomes the current one, with `selection`; `what` for the status. */
  commit(track, selection = this.selection, what = 'edit') {
    this.shown = null;
    if (geometryText(track) === geometryText(this.history.current) && track.name === this.history.current.name) {
      this.selection = new Set(selection);
      this.onChange('selection');
      return;
    }
    this.history.push(track);
    this.selection = new Set([...selection].filter((k) => objectAt(track, k) !== undefined));
    this.serverProblems = [];
    this.publishResult = null;
    this.message = what;
    this.changed();
  }

  /** After the track changed (an edit, undo, redo): save, check, redraw. */
  changed() {
    this.saveNow();
    this.check();
    this.onChange('track');
  }

  saveNow() {
    const error = saveDraft({
      id: this.draft.id, name: this.history.current.name, level: levelJson(this.history.current),
      remixOf: this.draft.remixOf ?? null, description: this.draft.description ?? '', displayName: this.draft.displayName ?? null,
    });
    if (error) this.message = error;
  }

  /** Shows `track` without making it a step (a drag under way); null: the current one. */
  showTrack(track) {
    this.shown = track;
  }

  select(keys) {
    this.selection = new Set(keys);
    this.onChange('selection');
  }

  redraw() {
    this.onChange('view');
  }

  showCursor(world) {
    this.cursor = world;
    this.onChange('cursor');
  }

  snapValue(v) {
    return this.snap ? Math.round(v / this.grid) * this.grid : Math.round(v * 1000) / 1000;
  }

  /** The height new objects stand on: the top of the solid under the view's centre, else 0. */
  groundTop(rect) {
    const x = (rect.x0 + rect.x1) / 2;
    const z = (rect.z0 + rect.z1) / 2;
    const under = this.track.solids.filter((s) => x >= s.min[0] && x <= s.max[0] && z >= s.min[2] && z <= s.max[2]);
    return under.length ? Math.max(...under.map((s) => s.max[1])) : 0;
  }

  /** Places a new object of `list` over `rect`; selects it and goes back to the select tool. */
  place(list, rect) {
    const top = list === 'solids' ? 0 : this.groundTop(rect);
    const { track, keys } = addObjects(this.history.current, [{ list, value: newObject(list, rect, top) }]);
    this.tool = 'select';
    this.commit(track, keys, `placed a ${KIND_NAMES[list]}`);
  }

  placeSpawn([x, z]) {
    const rect = { x0: x, z0: z, x1: x, z1: z };
    this.tool = 'select';
    this.commit(withObject(this.history.current, 'spawn', [x, this.groundTop(rect), z]), ['spawn'], 'moved the spawn');
  }

  /** Keys of the objects whose footprint lies within `box`. */
  keysInside(box) {
    return allKeys(this.track).filter((k) => {
      const r = footprint(this.track, k);
      return r.x0 >= box.x0 && r.x1 <= box.x1 && r.z0 >= box.z0 && r.z1 <= box.z1;
    });
  }

  // -- the edits the keys and buttons make -------------------------------------------------

  undo() {
    if (!this.history.canUndo) return;
    this.history.undo();
    this.afterTimeTravel('undo');
  }

  redo() {
    if (!this.history.canRedo) return;
    this.history.redo();
    this.afterTimeTravel('redo');
  }

  afterTimeTravel(what) {
    this.shown = null;
    this.selection = new Set([...this.selection].filter((k) => objectAt(this.history.current, k) !== undefined));
    this.serverProblems = [];
    this.message = what;
    this.changed();
  }

  deleteSelection() {
    const keys = [...this.selection].filter((k) => k !== 'spawn');
    if (keys.length) this.commit(deleteObjects(this.history.current, keys), [], `deleted ${keys.length}`);
  }

  nudge(d) {
    if (this.selection.size) this.commit(moveObjects(this.history.current, [...this.selection], d), this.selection, 'moved');
  }

  copy() {
    this.clipboard = copyObjects(this.history.current, [...this.selection]);
    this.message = `copied ${this.clipboard.length}`;
    this.onChange('status');
  }

  /** Adds copies of `items`, one grid step south-east of the originals. */
  paste(items = this.clipboard) {
    if (!items.length) return;
    const { track, keys } = addObjects(this.history.current, items.map((i) => ({ ...i, value: structuredClone(i.value) })));
    const step = this.grid;
    this.commit(moveObjects(track, keys, [step, 0, step]), keys, `pasted ${keys.length}`);
  }

  duplicate() {
    this.paste(copyObjects(this.history.current, [...this.selection]));
  }

  mirror() {
    if (this.selection.size) this.commit(mirrorObjects(this.history.current, [...this.selection]), this.selection, 'mirrored');
  }

  reorder(index, step) {
    const out = reorderCheckpoint(this.history.current, index, step);
    this.commit(out.track, [`checkpoints:${out.index}`], 'reordered checkpoints');
  }

  rename(name) {
    this.commit({ ...this.history.current, name }, this.selection, 'renamed');
  }

  /** A refusal of the server's naming `field`: shown as a problem at its object. */
  flagServerField(field, message) {
    this.serverProblems = [{ key: keyOfField(field), field, message: `The server: ${message.replace(/^Refused: /, '')}`, source: 'server' }];
    this.check();
    this.onChange('track');
  }

  /** Every object's footprint together but kill volumes' (which often reach far around), for
   * framing. */
  extentRect() {
    const rects = allKeys(this.track).filter((k) => !k.startsWith('kills:')).map((k) => footprint(this.track, k));
    return {
      x0: Math.min(...rects.map((r) => r.x0)), z0: Math.min(...rects.map((r) => r.z0)),
      x1: Math.max(...rects.map((r) => r.x1)), z1: Math.max(...rects.map((r) => r.z1)),
    };
  }
}
