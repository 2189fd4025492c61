// The web example: the pogo stepped in the browser from the keyboard, rendered with
// interpolation, recorded, and offered for download.
//
// How a game uses the ABI, in the order of a frame:
//   1. input: key events become driver events stamped with their own time (ns since the run
//      started) — never sampled per frame, so the tick inputs do not depend on the frame rate;
//   2. advance: the frame driver runs every tick that became due on the simulation and records
//      each one;
//   3. render: draw previous + (current − previous) · alpha, except across a teleport.
// Floats appear only in step 3 and in turning the browser's clock into integer nanoseconds.

import { Button, Event, formatFixed, hex, load } from '../../js/pogo.mjs';

const pogo = await load(fetch('/pogo_ffi.wasm'));
const tuning = pogo.tuning();
const canvas = document.getElementById('view');
const ctx = canvas.getContext('2d');
const status = document.getElementById('status');

const keys = new Set();
let run = null;

/** The stick and buttons the held keys mean. */
function currentInput() {
  const axis = (minus, plus) => (keys.has(plus) ? 127 : 0) - (keys.has(minus) ? 127 : 0);
  return {
    steerX: axis('ArrowLeft', 'ArrowRight'),
    steerZ: axis('ArrowUp', 'ArrowDown'),
    buttons: (keys.has(' ') ? Button.TRICK : 0) | (keys.has('Shift') ? Button.DIVE : 0),
  };
}

/** The level's boxes (side view: x and y extents), from its level file if the server has
 * one; only for drawing — the simulation uses the built-in level. */
async function outline(levelName) {
  const response = await fetch(`/levels/${levelName}.json`);
  if (!response.ok) return [{ min: [-200, -1, 0], max: [200, 0, 0] }]; // flat: one slab
  const desc = await response.json();
  return [...desc.solids, ...(desc.finishes ?? []).map((f) => ({ ...f, finish: true }))];
}

async function start(levelName) {
  if (run) stop(false);
  const boxes = await outline(levelName);
  const level = pogo.level(levelName);
  const sim = pogo.simulation({ level, tuning, players: 1 });
  const driver = pogo.driver({ tickRate: tuning.tickRate });
  const recorder = pogo.recorder({ sim, playerName: 'browser' });
  run = { level, sim, driver, recorder, boxes, t0: performance.now(), lastNs: 0n, trail: [], finished: false };
  run.driver.pushEvent(0n, 0, currentInput());
}

/** Milliseconds of the page clock → integer ns since the run started (never backwards). */
function ns(ms) {
  const t = BigInt(Math.max(0, Math.round((ms - run.t0) * 1e6)));
  return t > run.lastNs ? t : run.lastNs;
}

function onKey(event, down) {
  const tracked = ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', ' ', 'Shift'];
  if (!tracked.includes(event.key) || !run || run.finished) return;
  event.preventDefault();
  const before = JSON.stringify(currentInput());
  if (down) keys.add(event.key); else keys.delete(event.key);
  if (JSON.stringify(currentInput()) === before) return;
  // Stamped with the event's own time, as late as the frame that follows at the latest.
  const at = ns(Math.min(event.timeStamp, performance.now()));
  run.driver.pushEvent(at, 0, currentInput());
  run.lastNs = at;
}

function stop(offer = true) {
  if (!run) return;
  const { level, sim, driver, recorder } = run;
  if (!run.finished) {
    recorder.finish();
    run.finished = true;
  }
  const bytes = recorder.bytes();
  const summary = { ticks: sim.tick, hash: hex(sim.stateHash()), bytes: bytes.length };
  if (offer) {
    const link = document.getElementById('download');
    link.href = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
    link.hidden = false;
    link.textContent = `replay (${bytes.length} bytes, ${summary.ticks} ticks)`;
    link.click();
  }
  for (const object of [recorder, driver, sim, level]) object.free();
  run = null;
  window.pogoDemo.lastRun = summary;
  return summary;
}

function frame() {
  requestAnimationFrame(frame);
  if (!run) return;
  const now = ns(performance.now());
  run.lastNs = now;
  const info = run.driver.advance(run.sim, run.recorder, now);
  const current = run.sim.player(0);
  const previous = run.sim.previousPlayer(0);
  const teleported = (current.events & Event.TELEPORT) !== 0;
  const lerp = (a, b) => (teleported ? b : a + (b - a) * info.alpha);
  const x = lerp(previous.position[0], current.position[0]);
  const y = lerp(previous.position[1], current.position[1]);
  run.trail.push([x, y]);
  if (run.trail.length > 600) run.trail.shift();
  draw(x, y, current);
  status.textContent = [
    `tick ${info.totalTicks}   alpha ${info.alpha.toFixed(3)}   state ${current.stateName}`,
    `tip  x ${formatFixed(current.positionRaw[0], 3)}  y ${formatFixed(current.positionRaw[1], 3)}  z ${formatFixed(current.positionRaw[2], 3)} m`,
    `bounces ${current.bounces}   combo ${current.combo}   finish ${current.finished ? current.finishTick : '–'}`,
    `state hash ${hex(run.sim.stateHash())}`,
  ].join('\n');
}

/** A side view (x east → right, y up), 20 px per metre, following the pogo. */
function draw(x, y, state) {
  const scale = 20, ox = canvas.width / 3 - x * scale, oy = canvas.height * 0.7;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.strokeStyle = '#ddd';
  ctx.beginPath();
  for (let m = Math.floor(x - 20); m < x + 40; m += 5) {
    ctx.moveTo(ox + m * scale, 0);
    ctx.lineTo(ox + m * scale, canvas.height);
  }
  ctx.stroke();
  for (const box of run.boxes) {
    ctx.fillStyle = box.finish ? 'rgba(60, 170, 90, 0.35)' : box.no_bounce ? '#c9a' : '#bbb';
    const [x0, y0] = box.min, [x1, y1] = box.max;
    ctx.fillRect(ox + x0 * scale, oy - y1 * scale, (x1 - x0) * scale, (y1 - y0) * scale);
  }
  ctx.strokeStyle = '#8ab';
  ctx.beginPath();
  run.trail.forEach(([tx, ty], i) => (i ? ctx.lineTo : ctx.moveTo).call(ctx, ox + tx * scale, oy - ty * scale));
  ctx.stroke();
  const px = ox + x * scale, py = oy - y * scale;
  ctx.fillStyle = state.stateName === 'stunned' ? '#c33' : '#235';
  ctx.fillRect(px - 5, py - 1.6 * scale, 10, 1.6 * scale);
}

addEventListener('keydown', (e) => onKey(e, true));
addEventListener('keyup', (e) => onKey(e, false));
document.getElementById('restart').onclick = () => start(document.getElementById('level').value);
document.getElementById('stop').onclick = () => stop(true);

// For tests and the console: values read back from the running page.
window.pogoDemo = {
  ready: true,
  rulesVersion: pogo.rulesVersion,
  tuningHash: hex(tuning.hash),
  tick: () => run?.sim.tick ?? null,
  player: () => (run ? run.sim.player(0) : null),
  hash: () => (run ? hex(run.sim.stateHash()) : null),
  recordedTicks: () => run?.recorder.ticks ?? null,
  stop: () => stop(true),
  lastRun: null,
};

await start('course');
requestAnimationFrame(frame);
