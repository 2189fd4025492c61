// The editor's primary view: the track from above on a canvas (x east to the right, z south
// downward, as the replay race's top view), with its grid, every object by kind, the
// selection with its resize handles, the box being dragged out and the objects a problem
// points at. Pan (right or middle drag, or Space and drag) and zoom (the wheel) are here;
// what a click means is tools.js's.

import { footprint, objectAt, parseKey } from './model.js';

/** How each kind is drawn: fill, outline. */
export const STYLE = {
  solids: { fill: '#4c5b6b', line: '#8fa1b3' },
  noBounce: { fill: '#7a4b3a', line: '#d0865f' },
  ramps: { fill: '#5d7390', line: '#a9c2e0' },
  platforms: { fill: '#a8702f', line: '#ffc27a' },
  zones: { fill: 'rgba(150, 110, 255, 0.16)', line: '#a98bff' },
  checkpoints: { fill: 'rgba(62, 193, 255, 0.18)', line: '#3ec1ff' },
  finishes: { fill: 'rgba(95, 214, 138, 0.22)', line: '#5fd68a' },
  kills: { fill: 'rgba(255, 107, 107, 0.07)', line: 'rgba(255, 107, 107, 0.55)' },
};

/** The order objects are drawn in (and hit in reverse): volumes over what they cover. */
const DRAW_ORDER = ['kills', 'solids', 'ramps', 'platforms', 'zones', 'checkpoints', 'finishes'];
/** Resize handles' half size (px) and the smallest zoom / largest (px per m). */
const HANDLE_PX = 5;
const SCALE_MIN = 0.5;
const SCALE_MAX = 120;
/** Framing shows at least this much ground (m) each way: room to build around a small track. */
const FRAME_MIN_M = 44;

export class TopView {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    /** World point at the canvas's centre (m) and pixels per metre. */
    this.cx = 0;
    this.cz = 0;
    this.scale = 16;
    this.width = 800;
    this.height = 560;
  }

  /** Fits the canvas to `w`×`h` CSS pixels. */
  resize(w, h) {
    const ratio = window.devicePixelRatio || 1;
    this.width = Math.max(100, Math.floor(w));
    this.height = Math.max(100, Math.floor(h));
    this.canvas.width = Math.round(this.width * ratio);
    this.canvas.height = Math.round(this.height * ratio);
    this.ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  }

  /** World (x, z) → canvas pixels. */
  toScreen(x, z) {
    return [(x - this.cx) * this.scale + this.width / 2, (z - this.cz) * this.scale + this.height / 2];
  }

  /** Canvas pixels → world (x, z). */
  toWorld(px, py) {
    return [(px - this.width / 2) / this.scale + this.cx, (py - this.height / 2) / this.scale + this.cz];
  }

  /** Zooms by `factor` keeping the world point under (px, py) where it is. */
  zoomAt(px, py, factor) {
    const [wx, wz] = this.toWorld(px, py);
    this.scale = Math.min(SCALE_MAX, Math.max(SCALE_MIN, this.scale * factor));
    const [nx, nz] = this.toWorld(px, py);
    this.cx += wx - nx;
    this.cz += wz - nz;
  }

  panBy(dxPx, dyPx) {
    this.cx -= dxPx / this.scale;
    this.cz -= dyPx / this.scale;
  }

  /** Shows the whole of `rect` ({x0, z0, x1, z1}) with a margin. */
  frame(rect) {
    this.cx = (rect.x0 + rect.x1) / 2;
    this.cz = (rect.z0 + rect.z1) / 2;
    const w = Math.max(rect.x1 - rect.x0, FRAME_MIN_M);
    const h = Math.max(rect.z1 - rect.z0, FRAME_MIN_M);
    this.scale = Math.min(SCALE_MAX, Math.max(SCALE_MIN, 0.85 * Math.min(this.width / w, this.height / h)));
  }

  /** The camera (kept across a test-play). */
  get camera() { return { cx: this.cx, cz: this.cz, scale: this.scale }; }
  set camera(c) { Object.assign(this, c); }

  /** The topmost object under canvas point (px, py), or null. */
  hit(track, px, py) {
    const [x, z] = this.toWorld(px, py);
    const slop = 4 / this.scale;
    const spawn = track.spawn;
    if (Math.hypot(spawn[0] - x, spawn[2] - z) < 0.5 + slop) return 'spawn';
    for (const list of [...DRAW_ORDER].reverse()) {
      for (let i = track[list].length - 1; i >= 0; i--) {
        const r = footprint(track, `${list}:${i}`);
        if (x >= r.x0 - slop && x <= r.x1 + slop && z >= r.z0 - slop && z <= r.z1 + slop) return `${list}:${i}`;
      }
    }
    return null;
  }

  /** The resize handle of `key`'s footprint under (px, py): {sx, sz} (−1 min side, 1 max
   * side, 0 neither, per axis) or null. */
  handleAt(track, key, px, py) {
    if (!key || key === 'spawn') return null;
    for (const h of this.handles(footprint(track, key))) {
      if (Math.abs(h.px - px) <= HANDLE_PX + 2 && Math.abs(h.py - py) <= HANDLE_PX + 2) return h;
    }
    return null;
  }

  handles(r) {
    const out = [];
    for (const sx of [-1, 0, 1]) {
      for (const sz of [-1, 0, 1]) {
        if (!sx && !sz) continue;
        const x = sx < 0 ? r.x0 : sx > 0 ? r.x1 : (r.x0 + r.x1) / 2;
        const z = sz < 0 ? r.z0 : sz > 0 ? r.z1 : (r.z0 + r.z1) / 2;
        const [px, py] = this.toScreen(x, z);
        out.push({ sx, sz, px, py });
      }
    }
    return out;
  }

  /** Draws `track`; `state` = {selection (Set of keys), flagged (Set), marquee (rect in
   * world or null), preview ({list, rect} being created, or null), grid (m), snap}. */
  draw(track, state) {
    const { ctx } = this;
    ctx.fillStyle = '#0a1016';
    ctx.fillRect(0, 0, this.width, this.height);
    this.drawGrid(state.grid);
    for (const list of DRAW_ORDER) track[list].forEach((o, i) => this.drawObject(track, `${list}:${i}`, state));
    this.drawSpawn(track.spawn, state.selection.has('spawn'), state.flagged.has('spawn'));
    if (state.preview) this.drawRect(state.preview.rect, STYLE[state.preview.list] ?? STYLE.solids, true);
    if (state.marquee) {
      ctx.setLineDash([4, 3]);
      this.drawRect(state.marquee, { fill: 'rgba(62, 193, 255, 0.08)', line: '#3ec1ff' });
      ctx.setLineDash([]);
    }
    const single = state.selection.size === 1 ? [...state.selection][0] : null;
    if (single && single !== 'spawn' && objectAt(track, single)) {
      ctx.fillStyle = '#e6ecf0';
      for (const h of this.handles(footprint(track, single))) {
        ctx.fillRect(h.px - HANDLE_PX, h.py - HANDLE_PX, 2 * HANDLE_PX, 2 * HANDLE_PX);
      }
    }
  }

  drawGrid(step) {
    const { ctx } = this;
    const [x0, z0] = this.toWorld(0, 0);
    const [x1, z1] = this.toWorld(this.width, this.height);
    let s = step;
    while (s * this.scale < 8) s *= 2;
    ctx.lineWidth = 1;
    for (const [major, colour] of [[false, '#131c25'], [true, '#1d2a37']]) {
      const every = major ? s * 5 : s;
      ctx.strokeStyle = colour;
      ctx.beginPath();
      for (let x = Math.ceil(x0 / every) * every; x <= x1; x += every) {
        const [px] = this.toScreen(x, 0);
        ctx.moveTo(Math.round(px) + 0.5, 0);
        ctx.lineTo(Math.round(px) + 0.5, this.height);
      }
      for (let z = Math.ceil(z0 / every) * every; z <= z1; z += every) {
        const [, py] = this.toScreen(0, z);
        ctx.moveTo(0, Math.round(py) + 0.5);
        ctx.lineTo(this.width, Math.round(py) + 0.5);
      }
      ctx.stroke();
    }
    // The axes through the origin.
    const [ox, oz] = this.toScreen(0, 0);
    ctx.strokeStyle = '#2b3d50';
    ctx.beginPath();
    ctx.moveTo(ox + 0.5, 0);
    ctx.lineTo(ox + 0.5, this.height);
    ctx.moveTo(0, oz + 0.5);
    ctx.lineTo(this.width, oz + 0.5);
    ctx.stroke();
  }

  drawRect(r, style, dashed = false) {
    const { ctx } = this;
    const [ax, ay] = this.toScreen(r.x0, r.z0);
    const [bx, by] = this.toScreen(r.x1, r.z1);
    ctx.fillStyle = style.fill;
    ctx.fillRect(ax, ay, Math.max(bx - ax, 1), Math.max(by - ay, 1));
    ctx.strokeStyle = style.line;
    ctx.lineWidth = 1;
    if (dashed) ctx.setLineDash([5, 4]);
    ctx.strokeRect(ax + 0.5, ay + 0.5, Math.max(bx - ax - 1, 1), Math.max(by - ay - 1, 1));
    ctx.setLineDash([]);
    return [ax, ay, bx, by];
  }

  drawObject(track, key, state) {
    const { ctx } = this;
    const [list, index] = parseKey(key);
    const o = objectAt(track, key);
    const r = footprint(track, key);
    const style = o.no_bounce ? STYLE.noBounce : STYLE[list];
    if (list === 'platforms') this.drawPath(o);
    const [ax, ay, bx, by] = this.drawRect(r, style);
    if (list === 'ramps') this.drawSlope(o, ax, ay, bx, by);
    if (list === 'checkpoints' || list === 'finishes') this.drawLabel(list === 'checkpoints' ? String(index + 1) : '⚑', ax, ay, bx, by, style.line);
    if (list === 'checkpoints') this.drawCross(o.spawn, style.line);
    if (state.flagged.has(key)) this.outline(ax, ay, bx, by, '#ff6b6b', [6, 3]);
    if (state.selection.has(key)) this.outline(ax, ay, bx, by, '#3ec1ff', []);
  }

  outline(ax, ay, bx, by, colour, dash) {
    const { ctx } = this;
    ctx.strokeStyle = colour;
    ctx.lineWidth = 2;
    ctx.setLineDash(dash);
    ctx.strokeRect(ax - 2, ay - 2, bx - ax + 4, by - ay + 4);
    ctx.setLineDash([]);
    ctx.lineWidth = 1;
  }

  /** A platform's travel: its footprint at `to`, dashed, and the line between. */
  drawPath(p) {
    const { ctx } = this;
    const { from, to } = p.path.ping_pong;
    const end = { x0: to[0], z0: to[2], x1: to[0] + p.size[0], z1: to[2] + p.size[2] };
    ctx.globalAlpha = 0.45;
    this.drawRect(end, STYLE.platforms, true);
    ctx.globalAlpha = 1;
    const [ax, ay] = this.toScreen(from[0] + p.size[0] / 2, from[2] + p.size[2] / 2);
    const [bx, by] = this.toScreen(to[0] + p.size[0] / 2, to[2] + p.size[2] / 2);
    ctx.strokeStyle = STYLE.platforms.line;
    ctx.setLineDash([4, 4]);
    ctx.beginPath();
    ctx.moveTo(ax, ay);
    ctx.lineTo(bx, by);
    ctx.stroke();
    ctx.setLineDash([]);
  }

  /** A ramp's uphill direction: an arrow along its normal's horizontal part, reversed. */
  drawSlope(ramp, ax, ay, bx, by) {
    const [nx, , nz] = ramp.normal;
    const len = Math.hypot(nx, nz);
    if (len < 1e-9) return;
    const { ctx } = this;
    const cx = (ax + bx) / 2;
    const cy = (ay + by) / 2;
    const r = Math.min(bx - ax, by - ay) / 3;
    const ux = -nx / len;
    const uy = -nz / len;
    ctx.strokeStyle = '#dbe8f5';
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(cx - ux * r, cy - uy * r);
    ctx.lineTo(cx + ux * r, cy + uy * r);
    ctx.lineTo(cx + ux * r * 0.5 - uy * r * 0.4, cy + uy * r * 0.5 + ux * r * 0.4);
    ctx.moveTo(cx + ux * r, cy + uy * r);
    ctx.lineTo(cx + ux * r * 0.5 + uy * r * 0.4, cy + uy * r * 0.5 - ux * r * 0.4);
    ctx.stroke();
    ctx.lineWidth = 1;
  }

  drawLabel(text, ax, ay, bx, by, colour) {
    const { ctx } = this;
    const size = Math.max(10, Math.min(22, (by - ay) * 0.5));
    ctx.font = `600 ${size}px system-ui, sans-serif`;
    ctx.fillStyle = colour;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText(text, (ax + bx) / 2, (ay + by) / 2);
  }

  drawCross(p, colour) {
    const { ctx } = this;
    const [px, py] = this.toScreen(p[0], p[2]);
    ctx.strokeStyle = colour;
    ctx.beginPath();
    ctx.moveTo(px - 4, py - 4);
    ctx.lineTo(px + 4, py + 4);
    ctx.moveTo(px + 4, py - 4);
    ctx.lineTo(px - 4, py + 4);
    ctx.stroke();
  }

  drawSpawn(p, selected, flagged) {
    const { ctx } = this;
    const [px, py] = this.toScreen(p[0], p[2]);
    const r = Math.max(8, 0.4 * this.scale);
    ctx.fillStyle = '#e8fbff';
    ctx.beginPath();
    ctx.arc(px, py, r, 0, 2 * Math.PI);
    ctx.fill();
    ctx.fillStyle = '#0c1218';
    ctx.font = `700 ${Math.round(r * 1.1)}px system-ui, sans-serif`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText('S', px, py + 1);
    if (flagged || selected) {
      ctx.strokeStyle = selected ? '#3ec1ff' : '#ff6b6b';
      ctx.lineWidth = 2;
      ctx.setLineDash(selected ? [] : [6, 3]);
      ctx.beginPath();
      ctx.arc(px, py, r + 4, 0, 2 * Math.PI);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.lineWidth = 1;
    }
  }
}
