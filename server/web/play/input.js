// The racer's controls: keyboard, gamepad and a touch layout, merged into the core's `Input`
// ({steerX, steerZ, buttons}: stick −127…127 per axis, x east, z south; buttons TRICK|DIVE)
// and handed on as *changes*, each stamped with the moment it happened:
//
// - keyboard and touch changes carry their DOM event's own `timeStamp` (ms on the page's
//   performance clock), never the next frame's time;
// - the gamepad, which the browser only lets a page poll, is read once per frame (`poll`)
//   and each change is stamped with that frame's time;
// - steering is relative to the camera: "up" means "away from the camera". The camera's
//   heading is quantised to HEADING_STEPS directions, so a held key changes the world input
//   only when the camera has turned a whole step (and that change is stamped like a
//   gamepad's, with the frame's time).
//
// The play view turns each stamped change into a driver event (integer ns since the run
// started). The same quantisation as the core's: an axis is an integer in −127…127, rounded
// toward zero; the core itself scales a diagonal back onto the unit circle.

import { Button } from '../pogo.mjs';

/** Camera headings steering can be relative to: 64 steps of 5.625°. */
export const HEADING_STEPS = 64;
/** Gamepad stick dead zone (fraction of full deflection): below it the axis reads 0. */
export const GAMEPAD_DEAD_ZONE = 0.15;
/** Touch stick radius (CSS px) at which the deflection is full. */
const TOUCH_STICK_RADIUS_PX = 56;

const KEYS = {
  left: ['ArrowLeft', 'KeyA'],
  right: ['ArrowRight', 'KeyD'],
  forward: ['ArrowUp', 'KeyW'],
  back: ['ArrowDown', 'KeyS'],
  trick: ['Space', 'KeyJ'],
  dive: ['ShiftLeft', 'ShiftRight', 'KeyK'],
  restart: ['KeyR'],
};
const TRACKED = new Set(Object.values(KEYS).flat());

/** A float in −1…1 as an axis of the core's Input: toward zero, within −127…127. */
export function quantiseAxis(value) {
  if (!Number.isFinite(value)) return 0;
  return Math.max(-127, Math.min(127, Math.trunc(value * 127)));
}

/** A gamepad axis with the dead zone applied, rescaled so the edge of the zone reads 0. */
export function deadZone(value) {
  const magnitude = Math.abs(value);
  if (!(magnitude > GAMEPAD_DEAD_ZONE)) return 0;
  return Math.sign(value) * Math.min(1, (magnitude - GAMEPAD_DEAD_ZONE) / (1 - GAMEPAD_DEAD_ZONE));
}

/**
 * A camera-relative stick (`right`, `forward` in −1…1) as world steering for a camera whose
 * heading step is `step` (0 … HEADING_STEPS−1; step 0 looks east, +x; steps turn toward +z).
 */
export function worldSteer(right, forward, step) {
  const angle = (2 * Math.PI * step) / HEADING_STEPS;
  const [fx, fz] = [Math.cos(angle), Math.sin(angle)]; // forward on the ground
  const [rx, rz] = [-fz, fx]; // right of forward (x east, z south, y up)
  return {
    steerX: quantiseAxis(forward * fx + right * rx),
    steerZ: quantiseAxis(forward * fz + right * rz),
  };
}

/** The heading step nearest a heading angle (radians, atan2(z, x)). */
export function headingStep(angle) {
  const turns = angle / (2 * Math.PI);
  return ((Math.round(turns * HEADING_STEPS) % HEADING_STEPS) + HEADING_STEPS) % HEADING_STEPS;
}

const same = (a, b) => a.steerX === b.steerX && a.steerZ === b.steerZ && a.buttons === b.buttons;

export class Controls {
  /**
   * `onChange(input, atMs)`: the merged input changed at `atMs` (performance clock ms).
   * `onAction(name)`: 'restart'. `touchLayer`: the element the touch controls are drawn in.
   */
  constructor({ onChange, onAction, touchLayer }) {
    this.onChange = onChange;
    this.onAction = onAction;
    this.keys = new Set();
    this.pad = { right: 0, forward: 0, buttons: 0 };
    this.touch = { right: 0, forward: 0, buttons: 0 };
    this.step = 0;
    this.last = { steerX: 0, steerZ: 0, buttons: 0 };
    this.enabled = true;
    /** Which devices have been used (the HUD names them; tests read them). */
    this.used = new Set();
    this.listeners = [];
    this.listen(window, 'keydown', (e) => this.key(e, true));
    this.listen(window, 'keyup', (e) => this.key(e, false));
    // A page that loses focus never hears the key-ups: release everything at that moment.
    this.listen(window, 'blur', (e) => this.releaseAll(e.timeStamp));
    this.listen(document, 'visibilitychange', (e) => {
      if (document.visibilityState === 'hidden') this.releaseAll(e.timeStamp);
    });
    this.touchControls = touchLayer ? new TouchControls(touchLayer, this) : null;
  }

  listen(target, type, handler, options) {
    target.addEventListener(type, handler, options);
    this.listeners.push(() => target.removeEventListener(type, handler, options));
  }

  /** The merged input now: the sum of the devices' sticks (clamped), their buttons or'ed. */
  current() {
    const held = (names) => names.some((code) => this.keys.has(code));
    const keyRight = (held(KEYS.right) ? 1 : 0) - (held(KEYS.left) ? 1 : 0);
    const keyForward = (held(KEYS.forward) ? 1 : 0) - (held(KEYS.back) ? 1 : 0);
    const clamp = (v) => Math.max(-1, Math.min(1, v));
    const right = clamp(keyRight + this.pad.right + this.touch.right);
    const forward = clamp(keyForward + this.pad.forward + this.touch.forward);
    const keyButtons = (held(KEYS.trick) ? Button.TRICK : 0) | (held(KEYS.dive) ? Button.DIVE : 0);
    return { ...worldSteer(right, forward, this.step), buttons: keyButtons | this.pad.buttons | this.touch.buttons };
  }

  /** Re-reads the merged input and reports it if it changed. */
  update(atMs) {
    if (!this.enabled) return;
    const input = this.current();
    if (same(input, this.last)) return;
    this.last = input;
    this.onChange(input, atMs);
  }

  key(event, down) {
    if (event.code === 'KeyR' && down && !event.repeat) {
      this.onAction('restart');
      event.preventDefault();
      return;
    }
    if (!TRACKED.has(event.code) || event.ctrlKey || event.metaKey || event.altKey) return;
    // Typing in a form field (the register form on the finish panel) is not steering.
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
    event.preventDefault();
    if (down) this.keys.add(event.code);
    else this.keys.delete(event.code);
    this.used.add('keyboard');
    this.update(event.timeStamp);
  }

  /** Once per frame, with the frame's time: the camera's heading and the gamepads. */
  poll(frameMs, cameraHeading) {
    if (cameraHeading !== undefined) this.step = headingStep(cameraHeading);
    this.pollGamepad();
    this.update(frameMs);
  }

  pollGamepad() {
    const pads = navigator.getGamepads ? navigator.getGamepads() : [];
    const pad = [...(pads ?? [])].find((p) => p && p.connected !== false);
    if (!pad) {
      this.pad = { right: 0, forward: 0, buttons: 0 };
      return;
    }
    const axis = (i) => deadZone(Number(pad.axes?.[i] ?? 0));
    const pressed = (i) => Boolean(pad.buttons?.[i]?.pressed);
    // Standard mapping: left stick axes 0 (right +) and 1 (down +); A/cross (0) tricks,
    // B/circle (1) or the right trigger (7) dives, Start (9) restarts.
    const next = {
      right: axis(0),
      forward: -axis(1),
      buttons: (pressed(0) ? Button.TRICK : 0) | (pressed(1) || pressed(7) ? Button.DIVE : 0),
    };
    if (next.right || next.forward || next.buttons) this.used.add('gamepad');
    const restart = pressed(9);
    if (restart && !this.padRestart) this.onAction('restart');
    this.padRestart = restart;
    this.pad = next;
  }

  /** Lets go of every key and the touch stick (focus lost, page hidden, run over). */
  releaseAll(atMs) {
    this.keys.clear();
    this.touch = { right: 0, forward: 0, buttons: 0 };
    this.touchControls?.reset();
    this.update(atMs);
  }

  /** Stops listening (the view closed). */
  dispose() {
    for (const remove of this.listeners) remove();
    this.touchControls?.dispose();
  }
}

/**
 * A virtual stick (left thumb) and two buttons (right thumb), drawn over the view on touch
 * screens. The stick is where the finger first lands in the left half; its deflection is the
 * finger's offset over TOUCH_STICK_RADIUS_PX.
 */
class TouchControls {
  constructor(layer, controls) {
    this.controls = controls;
    this.layer = layer;
    this.stickId = null;
    const knob = document.createElement('div');
    knob.className = 'touch-knob';
    const base = document.createElement('div');
    base.className = 'touch-stick';
    base.append(knob);
    const button = (label, bit, name) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = `touch-button touch-${name}`;
      b.textContent = label;
      b.dataset.bit = String(bit);
      return b;
    };
    this.trick = button('Trick', Button.TRICK, 'trick');
    this.dive = button('Dive', Button.DIVE, 'dive');
    this.base = base;
    this.knob = knob;
    const pad = document.createElement('div');
    pad.className = 'touch-pad';
    pad.append(base);
    const buttons = document.createElement('div');
    buttons.className = 'touch-buttons';
    buttons.append(this.dive, this.trick);
    layer.append(pad, buttons);
    this.pad = pad;
    const opts = { passive: false };
    controls.listen(pad, 'touchstart', (e) => this.stick(e), opts);
    controls.listen(pad, 'touchmove', (e) => this.stick(e), opts);
    controls.listen(pad, 'touchend', (e) => this.stickEnd(e), opts);
    controls.listen(pad, 'touchcancel', (e) => this.stickEnd(e), opts);
    for (const b of [this.trick, this.dive]) {
      controls.listen(b, 'touchstart', (e) => this.press(e, b, true), opts);
      controls.listen(b, 'touchend', (e) => this.press(e, b, false), opts);
      controls.listen(b, 'touchcancel', (e) => this.press(e, b, false), opts);
    }
  }

  stick(event) {
    event.preventDefault();
    this.layer.classList.add('touched');
    for (const t of event.changedTouches) {
      if (this.stickId === null && event.type === 'touchstart') {
        this.stickId = t.identifier;
        this.origin = [t.clientX, t.clientY];
        const box = this.pad.getBoundingClientRect();
        this.base.style.left = `${t.clientX - box.left}px`;
        this.base.style.top = `${t.clientY - box.top}px`;
        this.base.classList.add('active');
      }
      if (t.identifier !== this.stickId) continue;
      let dx = (t.clientX - this.origin[0]) / TOUCH_STICK_RADIUS_PX;
      let dy = (t.clientY - this.origin[1]) / TOUCH_STICK_RADIUS_PX;
      const length = Math.hypot(dx, dy);
      if (length > 1) [dx, dy] = [dx / length, dy / length];
      this.knob.style.transform = `translate(${dx * TOUCH_STICK_RADIUS_PX}px, ${dy * TOUCH_STICK_RADIUS_PX}px)`;
      this.controls.touch = { ...this.controls.touch, right: dx, forward: -dy };
      this.controls.used.add('touch');
      this.controls.update(event.timeStamp);
    }
  }

  stickEnd(event) {
    event.preventDefault();
    for (const t of event.changedTouches) {
      if (t.identifier !== this.stickId) continue;
      this.stickId = null;
      this.knob.style.transform = '';
      this.base.classList.remove('active');
      this.controls.touch = { ...this.controls.touch, right: 0, forward: 0 };
      this.controls.update(event.timeStamp);
    }
  }

  press(event, button, down) {
    event.preventDefault();
    const bit = Number(button.dataset.bit);
    const buttons = down ? this.controls.touch.buttons | bit : this.controls.touch.buttons & ~bit;
    button.classList.toggle('active', down);
    this.controls.touch = { ...this.controls.touch, buttons };
    this.controls.used.add('touch');
    this.controls.update(event.timeStamp);
  }

  reset() {
    this.stickId = null;
    this.knob.style.transform = '';
    this.base.classList.remove('active');
    this.trick.classList.remove('active');
    this.dive.classList.remove('active');
  }

  dispose() {
    this.pad.remove();
    this.trick.parentElement?.remove();
  }
}
