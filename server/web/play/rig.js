// The pogo's 3D rig: a rider on a stick, drawn at the simulation's state. Metres, seconds;
// world axes x east, y up, z south (the level's).
//
// The rig's origin is the stick's TIP, the point the simulation moves (`PlayerState.position`).
// Around it, with the default tuning (core/src/tuning.rs): the collision capsule is upright,
// `body_height` 1.6 m from the tip to its top, `body_radius` 0.25 m; the lowest `tip_height`
// 0.4 m of it is the stick (a touch there bounces); volumes are tested at the body centre
// 0.8 m above the tip. The drawing stays inside that capsule so what touches looks like it.
//
// Lean (core/src/lean.rs): `lean` [x, z] is the horizontal part of the pogo's unit up axis,
// the sine of the tilt toward east (+x) and toward south (+z), so the up axis is
// (x, √(1 − x² − z²), z) and the whole rig turns about the tip onto it. Facing (the visor,
// pegs and handlebar) is drawing only: the simulation's capsule has none; the rig turns to face
// its horizontal velocity.
//
// Ghosts are translucent and carry a name label (canvas text, never HTML); the player's own
// rig is opaque and unlabelled. Geometries shared by every rig are reference-counted and
// disposed with the last rig; materials and the label texture are per rig.

import * as THREE from '../vendor/three.module.min.js';
import { dampShare, wrapAngle } from './smoothing.js';

/** The visual rig's dimensions (m, from the tip up; inside the 1.6 × 0.25 m capsule; +x is
 * the way the rider faces). */
export const RIG = Object.freeze({
  stickRadius: 0.03,
  stickTop: 1.08, // the handlebar's height
  housingFrom: 0.18, // the spring housing (thicker part of the stick)
  housingTo: 0.62,
  pegHeight: 0.4, // foot pegs at tip_height
  hip: 0.8, // the legs run from the hips down to the pegs
  torsoRadius: 0.19,
  torsoFrom: 0.72, // the torso capsule's lowest point …
  torsoTo: 1.32, // … and highest
  torsoX: -0.07, // the rider stands just behind the stick
  shoulder: 1.2,
  headRadius: 0.16,
  headCentre: 1.44, // the head's top at 1.6 m = body_height
  labelHeight: 1.95, // the label's bottom edge
});

/** Ghost opacity (0 … 1). */
export const GHOST_OPACITY = 0.45;
/** A perfect landing's flash lasts this long (s, wall time). */
export const FLASH_S = 0.32;
/** Squash at full compression: height × (1 − SQUASH), width × (1 + SQUASH / 2). */
const SQUASH = 0.24;
/** The squash springs back with this time constant (s); a launch overshoots into a stretch. */
const SQUASH_TAU_S = 0.07;
const LAUNCH_STRETCH = -0.45;
/** Turning to face the horizontal velocity: time constant (s), and the speed below which the
 * facing holds (m/s). */
const FACING_TAU_S = 0.12;
const FACING_SPEED_MIN = 0.8;
/** Stun: wobble amplitude (rad) and frequency (Hz); stars orbit at this rate (turns/s). */
const STUN_WOBBLE_RAD = 0.2;
const STUN_WOBBLE_HZ = 5;
const STUN_STAR_TURNS_PER_S = 1.4;
const STUN_STARS = 3;
/** After a respawn the rig pops in over this long (s). */
const POP_S = 0.22;
/** The label keeps its on-screen size beyond this distance (m) by growing with it, up to
 * LABEL_GROW_MAX times. */
const LABEL_FULL_SIZE_M = 9;
const LABEL_GROW_MAX = 7;
/** Label text height (m at the full-size distance) and the longest name drawn (characters). */
const LABEL_HEIGHT_M = 0.34;
const LABEL_CHARS_MAX = 24;
/** The blob shadow: radius (m) on the ground; fades out this far above it (m). */
const SHADOW_RADIUS_M = 0.42;
const SHADOW_FADE_M = 14;

const METAL = '#9aa6b2';
const DARK = '#151b22';
const FLASH = '#ffd84a';
const STUN = '#ffd23f';

/** Event bits used here (pogo.mjs `Event`; repeated so the rig needs no wasm module). */
const EV_PERFECT = 1 << 1;
const EV_LAUNCH = 1 << 2;
const EV_STUN = 1 << 5;

// -- shared geometries and textures ---------------------------------------------------------

let shared = null;
let sharedUsers = 0;

function acquireShared() {
  if (!shared) {
    const stickLength = RIG.stickTop;
    const torsoCore = RIG.torsoTo - RIG.torsoFrom - 2 * RIG.torsoRadius;
    const housingLength = RIG.housingTo - RIG.housingFrom;
    const x = RIG.torsoX;
    shared = {
      stick: new THREE.CylinderGeometry(RIG.stickRadius, RIG.stickRadius, stickLength, 8).translate(0, stickLength / 2, 0),
      housing: new THREE.CylinderGeometry(0.055, 0.065, housingLength, 12)
        .translate(0, (RIG.housingFrom + RIG.housingTo) / 2, 0),
      tip: new THREE.SphereGeometry(0.05, 10, 6).translate(0, 0.05, 0),
      pegs: new THREE.BoxGeometry(0.1, 0.04, 0.42).translate(0, RIG.pegHeight, 0),
      handlebar: new THREE.CylinderGeometry(0.026, 0.026, 0.62, 8).rotateX(Math.PI / 2).translate(0, RIG.stickTop, 0),
      torso: new THREE.CapsuleGeometry(RIG.torsoRadius, torsoCore, 6, 14).translate(x, (RIG.torsoFrom + RIG.torsoTo) / 2, 0),
      legs: limbs([x + 0.02, RIG.hip, 0.1], [0, RIG.pegHeight + 0.03, 0.16], 0.07),
      arms: limbs([x, RIG.shoulder, 0.2], [0, RIG.stickTop, 0.25], 0.05),
      head: new THREE.SphereGeometry(RIG.headRadius, 18, 12).translate(x + 0.02, RIG.headCentre, 0),
      visor: new THREE.BoxGeometry(0.09, 0.07, 0.22).translate(x + 0.02 + RIG.headRadius - 0.02, RIG.headCentre + 0.02, 0),
      ring: new THREE.RingGeometry(0.78, 1, 48).rotateX(-Math.PI / 2),
      shadow: new THREE.CircleGeometry(SHADOW_RADIUS_M, 24).rotateX(-Math.PI / 2),
      shadowTexture: radialTexture(),
      starTexture: starTexture(),
    };
  }
  sharedUsers++;
  return shared;
}

function releaseShared() {
  sharedUsers--;
  if (sharedUsers > 0 || !shared) return;
  for (const value of Object.values(shared)) value.dispose();
  shared = null;
}

/** Two cylinders of radius `r` from `from` to `to` ([x, y, z] m), and from their mirror
 * images in z: a pair of arms or legs as one geometry. */
function limbs(from, to, r) {
  const one = (a, b) => {
    const start = new THREE.Vector3(...a);
    const d = new THREE.Vector3(...b).sub(start);
    const length = d.length();
    const geometry = new THREE.CylinderGeometry(r, r * 0.85, length, 8).toNonIndexed();
    geometry.applyQuaternion(new THREE.Quaternion().setFromUnitVectors(new THREE.Vector3(0, 1, 0), d.normalize()));
    geometry.translate(start.x + (b[0] - a[0]) / 2, start.y + (b[1] - a[1]) / 2, start.z + (b[2] - a[2]) / 2);
    return geometry;
  };
  const left = one(from, to);
  const right = one([from[0], from[1], -from[2]], [to[0], to[1], -to[2]]);
  const merged = new THREE.BufferGeometry();
  for (const name of ['position', 'normal', 'uv']) {
    const a = left.getAttribute(name);
    const b = right.getAttribute(name);
    const array = new Float32Array(a.array.length + b.array.length);
    array.set(a.array);
    array.set(b.array, a.array.length);
    merged.setAttribute(name, new THREE.BufferAttribute(array, a.itemSize));
  }
  left.dispose();
  right.dispose();
  return merged;
}

/** A soft round blob (an alpha map): opaque at the centre, clear at the rim. */
function radialTexture() {
  const size = 64;
  const canvas = document.createElement('canvas');
  canvas.width = size;
  canvas.height = size;
  const ctx = canvas.getContext('2d');
  // An alpha map is read from the green channel: white is opaque, black clear.
  const g = ctx.createRadialGradient(size / 2, size / 2, 0, size / 2, size / 2, size / 2);
  g.addColorStop(0, '#ffffff');
  g.addColorStop(0.55, '#999999');
  g.addColorStop(1, '#000000');
  ctx.fillStyle = g;
  ctx.fillRect(0, 0, size, size);
  return new THREE.CanvasTexture(canvas);
}

/** A five-pointed star, white (tinted by its material). */
function starTexture() {
  const size = 64;
  const canvas = document.createElement('canvas');
  canvas.width = size;
  canvas.height = size;
  const ctx = canvas.getContext('2d');
  ctx.beginPath();
  for (let i = 0; i < 10; i++) {
    const r = i % 2 === 0 ? size * 0.46 : size * 0.2;
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    ctx.lineTo(size / 2 + r * Math.cos(a), size / 2 + r * Math.sin(a));
  }
  ctx.closePath();
  ctx.fillStyle = '#ffffff';
  ctx.fill();
  const texture = new THREE.CanvasTexture(canvas);
  texture.colorSpace = THREE.SRGBColorSpace;
  return texture;
}

/**
 * A text label as a sprite: `text` drawn with canvas text calls (never parsed as HTML) in
 * `colour` on a dark pill, `heightM` tall in world units; its anchor is its bottom centre.
 * The caller disposes `sprite.material.map` and `sprite.material`.
 */
export function makeLabel(text, colour, heightM = LABEL_HEIGHT_M) {
  const shown = text.length > LABEL_CHARS_MAX ? `${text.slice(0, LABEL_CHARS_MAX - 1)}…` : text;
  const fontPx = 44;
  const pad = 14;
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d');
  const font = `600 ${fontPx}px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif`;
  ctx.font = font;
  const width = Math.ceil(ctx.measureText(shown).width) + 2 * pad;
  const height = fontPx + 2 * pad;
  canvas.width = width;
  canvas.height = height;
  ctx.font = font; // resizing the canvas reset it
  ctx.fillStyle = 'rgba(8, 14, 20, 0.62)';
  ctx.beginPath();
  if (ctx.roundRect) ctx.roundRect(0, 0, width, height, height / 2);
  else ctx.rect(0, 0, width, height);
  ctx.fill();
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.lineWidth = 6;
  ctx.strokeStyle = 'rgba(0, 0, 0, 0.7)';
  ctx.strokeText(shown, width / 2, height / 2 + 2);
  ctx.fillStyle = colour;
  ctx.fillText(shown, width / 2, height / 2 + 2);
  const texture = new THREE.CanvasTexture(canvas);
  texture.colorSpace = THREE.SRGBColorSpace;
  texture.anisotropy = 4;
  // Always drawn on top, unfogged: a racer wants to know where every ghost is.
  const material = new THREE.SpriteMaterial({
    map: texture, transparent: true, depthTest: false, depthWrite: false, fog: false,
  });
  const sprite = new THREE.Sprite(material);
  sprite.center.set(0.5, 0);
  sprite.scale.set((heightM * width) / height, heightM, 1);
  sprite.renderOrder = 10;
  return sprite;
}

const UP = new THREE.Vector3(0, 1, 0);
const STUN_COLOUR = new THREE.Color(STUN);
const FLASH_COLOUR = new THREE.Color(FLASH);

/**
 * One pogo. `object` is what the stage adds to its scene. `colour` is a CSS colour;
 * `label` the name shown over a ghost or a named rig; `ghost` makes it translucent and labelled;
 * `named` labels an opaque rig (a live rival).
 */
export class PogoRig {
  constructor({ colour, label = '', ghost = false, named = false }) {
    this.ghost = ghost;
    this.geometry = acquireShared();
    const g = this.geometry;
    const base = new THREE.Color(colour);
    const lit = (color, glow = 0) => new THREE.MeshLambertMaterial({
      color, emissive: base, emissiveIntensity: glow, ...(ghost ? { transparent: true, opacity: GHOST_OPACITY } : {}),
    });
    const metal = new THREE.Color(METAL);
    this.materials = {
      body: lit(base, ghost ? 0.35 : 0.18),
      limb: lit(base.clone().multiplyScalar(0.72), 0.08),
      head: lit(base.clone().lerp(new THREE.Color('#ffffff'), 0.35), 0.12),
      metal: lit(ghost ? base.clone().lerp(metal, 0.5) : metal),
      dark: lit(new THREE.Color(DARK)),
      ring: new THREE.MeshBasicMaterial({
        color: FLASH, transparent: true, opacity: 0, blending: THREE.AdditiveBlending, depthWrite: false, side: THREE.DoubleSide,
      }),
      shadow: new THREE.MeshBasicMaterial({
        color: '#000000', alphaMap: g.shadowTexture, transparent: true, opacity: 0.5, depthWrite: false,
      }),
      star: new THREE.SpriteMaterial({ map: g.starTexture, color: STUN, transparent: true, depthWrite: false }),
    };
    this.bodyColour = base;
    const m = this.materials;
    const mesh = (geometry, material) => new THREE.Mesh(geometry, material);

    // root (at the tip, world-aligned) → tilt (lean + stun wobble) → yaw (facing) → squash
    this.object = new THREE.Group();
    this.object.name = ghost ? `ghost ${label}` : named ? `rival ${label}` : 'player';
    this.tilt = new THREE.Group();
    this.yaw = new THREE.Group();
    this.squash = new THREE.Group();
    this.object.add(this.tilt);
    this.tilt.add(this.yaw);
    this.yaw.add(this.squash);
    this.squash.add(
      mesh(g.torso, m.body), mesh(g.head, m.head), mesh(g.visor, m.dark), mesh(g.legs, m.limb), mesh(g.arms, m.limb),
      mesh(g.stick, m.metal), mesh(g.housing, m.dark), mesh(g.tip, m.dark), mesh(g.pegs, m.metal), mesh(g.handlebar, m.dark),
    );
    // Ghost parts draw after the opaque level and among themselves torso first.
    if (ghost) this.squash.children.forEach((part) => { part.renderOrder = 2; });

    this.stars = [];
    for (let i = 0; i < STUN_STARS; i++) {
      const star = new THREE.Sprite(m.star);
      star.scale.setScalar(0.3);
      star.visible = false;
      this.yaw.add(star);
      this.stars.push(star);
    }
    this.ring = mesh(g.ring, m.ring);
    this.ring.visible = false;
    this.ring.renderOrder = 3;
    this.object.add(this.ring);
    this.shadow = mesh(g.shadow, m.shadow);
    this.shadow.visible = false;
    this.shadow.renderOrder = 1;
    this.object.add(this.shadow);
    this.label = (ghost || named) && label ? makeLabel(label, colour) : null;
    if (this.label) {
      this.label.position.y = RIG.labelHeight;
      this.object.add(this.label);
    }

    this.time = 0; // wall time since creation (s): drives wobble and stars
    this.flashLeft = 0;
    this.squashValue = 0; // 1 = fully squashed, < 0 = stretched
    this.facing = 0; // radians, atan2(z, x) of the direction the visor faces
    this.popLeft = 0;
    this.wasRespawn = false;
    this.lastEvents = 0;
    this.groundY = null;
    this.leanQuaternion = new THREE.Quaternion();
    this.wobbleQuaternion = new THREE.Quaternion();
    this.scratch = new THREE.Vector3();
    this.euler = new THREE.Euler();
  }

  /**
   * Draws the pogo as `view` says after `dtSeconds` of wall time since the last call:
   * `position` [x, y, z] the tip (m, interpolated), `lean` [x, z] (see the file's head),
   * `stateName` ('respawn', 'airborne', 'compression', 'stunned', 'finished'), `events` the
   * pogo.mjs `Event` bits since the last frame, `stunTicksLeft`, `compressionT` (0 … 1 through
   * the compression, null outside it), `velocity` [x, y, z] (m/s, optional: the facing).
   * Effects start on an event bit's rising edge, so a bit repeated on the next frame (the same
   * tick drawn twice) does not restart them.
   */
  update(view, dtSeconds = 1 / 60) {
    const dt = Math.min(Math.max(dtSeconds, 0), 0.1);
    this.time += dt;
    const events = view.events ?? 0;
    const rising = events & ~this.lastEvents;
    this.lastEvents = events;
    const [x, y, z] = view.position;
    this.object.position.set(x, y, z);

    // Respawn: hidden for its one tick, then the rig pops in.
    const respawn = view.stateName === 'respawn';
    this.tilt.visible = !respawn;
    if (this.wasRespawn && !respawn) this.popLeft = POP_S;
    this.wasRespawn = respawn;

    // Lean: the up axis (lx, √(1 − lx² − lz²), lz).
    const [lx, lz] = view.lean ?? [0, 0];
    const h2 = Math.min(lx * lx + lz * lz, 1);
    this.scratch.set(lx, Math.sqrt(1 - h2), lz).normalize();
    this.leanQuaternion.setFromUnitVectors(UP, this.scratch);

    // Stun: a wobble about the facing's axes, fading over the last 12 ticks; stars.
    const stunned = view.stateName === 'stunned' || (view.stunTicksLeft ?? 0) > 0;
    if (stunned) {
      const fade = Math.min(1, (view.stunTicksLeft ?? 12) / 12) || 1;
      const w = STUN_WOBBLE_RAD * fade * Math.sin(2 * Math.PI * STUN_WOBBLE_HZ * this.time);
      const w2 = 0.6 * STUN_WOBBLE_RAD * fade * Math.cos(2 * Math.PI * STUN_WOBBLE_HZ * 0.7 * this.time);
      this.wobbleQuaternion.setFromEuler(this.euler.set(w, 0, w2));
    } else {
      this.wobbleQuaternion.identity();
    }
    this.tilt.quaternion.copy(this.leanQuaternion).multiply(this.wobbleQuaternion);
    this.stars.forEach((star, i) => {
      star.visible = stunned;
      if (!stunned) return;
      const a = 2 * Math.PI * (STUN_STAR_TURNS_PER_S * this.time + i / STUN_STARS);
      star.position.set(RIG.torsoX + 0.38 * Math.cos(a), RIG.headCentre + 0.32 + 0.05 * Math.sin(3 * a), 0.38 * Math.sin(a));
    });
    const blink = stunned ? 0.5 + 0.5 * Math.sin(2 * Math.PI * 4 * this.time) : 0;
    this.materials.body.color.copy(this.bodyColour).lerp(STUN_COLOUR, stunned ? 0.35 + 0.3 * blink : 0);

    // Facing: toward the horizontal velocity, smoothed; held when slow.
    const v = view.velocity;
    if (v && Math.hypot(v[0], v[2]) > FACING_SPEED_MIN) {
      const target = Math.atan2(v[2], v[0]);
      this.facing = wrapAngle(this.facing + wrapAngle(target - this.facing) * dampShare(dt, FACING_TAU_S));
    }
    this.yaw.rotation.y = -this.facing; // a turn about +y by −a takes +x to (cos a, 0, sin a)

    // Squash: held during the compression, springing back (through a stretch after a launch).
    if (view.stateName === 'compression') {
      this.squashValue = Math.max(this.squashValue, 0.55 + 0.45 * (view.compressionT ?? 1));
    } else {
      if (rising & EV_LAUNCH) this.squashValue = Math.min(this.squashValue, LAUNCH_STRETCH);
      this.squashValue = THREE.MathUtils.damp(this.squashValue, 0, 1 / SQUASH_TAU_S, dt);
    }
    const pop = this.popLeft > 0 ? 1 - easeOutBack(1 - this.popLeft / POP_S) : 0;
    this.popLeft = Math.max(0, this.popLeft - dt);
    const sy = (1 - SQUASH * this.squashValue) * (1 - 0.7 * pop);
    const sxz = (1 + 0.5 * SQUASH * this.squashValue) * (1 - 0.7 * pop);
    this.squash.scale.set(sxz, sy, sxz);

    // Perfect landing: a flat ring bursting from the tip and a glow, fading over FLASH_S.
    if (rising & EV_PERFECT) this.flashLeft = FLASH_S;
    if (rising & EV_STUN) this.flashLeft = 0;
    const f = this.flashLeft > 0 ? this.flashLeft / FLASH_S : 0; // 1 → 0
    this.flashLeft = Math.max(0, this.flashLeft - dt);
    this.ring.visible = f > 0;
    if (f > 0) {
      const grow = 1 - f;
      this.ring.scale.setScalar(0.45 + 1.9 * (1 - (1 - grow) * (1 - grow)));
      this.ring.position.y = 0.05;
      this.materials.ring.opacity = f * (this.ghost ? 0.6 : 1);
    }
    const glow = this.ghost ? 0.35 : 0.18;
    this.materials.body.emissive.copy(this.bodyColour).lerp(FLASH_COLOUR, f);
    this.materials.body.emissiveIntensity = glow + 1.2 * f * f;
    this.materials.head.emissive.copy(this.bodyColour).lerp(FLASH_COLOUR, f);
    this.materials.head.emissiveIntensity = 0.12 + 1.0 * f * f;
    this.placeShadow();
  }

  /**
   * The top of the surface under the tip (m), or null if none (the stage finds it each frame):
   * the blob shadow lies there, fainter the higher the pogo is.
   */
  setGround(groundY) {
    this.groundY = groundY;
    this.placeShadow();
  }

  placeShadow() {
    const y = this.object.position.y;
    const height = this.groundY === null ? Infinity : y - this.groundY;
    const visible = this.tilt.visible && height > -0.3 && height < SHADOW_FADE_M;
    this.shadow.visible = visible;
    if (!visible) return;
    const near = 1 - Math.max(0, height) / SHADOW_FADE_M;
    this.shadow.position.y = -height + 0.03;
    this.shadow.scale.setScalar(0.75 + 0.45 * near);
    this.materials.shadow.opacity = (this.ghost ? 0.3 : 0.55) * near;
  }

  /** Per frame, before drawing from `camera`: labels keep a readable size far away. */
  beforeRender(camera) {
    if (!this.label) return;
    const d = camera.position.distanceTo(this.object.position);
    const grow = Math.min(LABEL_GROW_MAX, Math.max(1, d / LABEL_FULL_SIZE_M));
    const aspect = this.label.material.map.image.width / this.label.material.map.image.height;
    this.label.scale.set(LABEL_HEIGHT_M * grow * aspect, LABEL_HEIGHT_M * grow, 1);
  }

  setVisible(visible) {
    this.object.visible = visible;
  }

  /**
   * A see-through rig (`opacity` < 1) or a solid one again: a live rival close to the player
   * would hide the player's own pogo. The body's materials only (a ghost's are translucent
   * already); a change of transparency recompiles their shaders once, so it is done on a
   * change only.
   */
  fade(opacity) {
    if (this.ghost || this.fadedTo === opacity) return;
    this.fadedTo = opacity;
    const see = opacity < 1;
    for (const name of ['body', 'limb', 'head', 'metal', 'dark']) {
      const material = this.materials[name];
      if (material.transparent !== see) material.needsUpdate = true;
      material.transparent = see;
      material.opacity = opacity;
      material.depthWrite = !see;
    }
  }

  /** Frees the rig's materials and label (the shared geometries with the last rig). */
  dispose() {
    this.object.removeFromParent();
    for (const material of Object.values(this.materials)) material.dispose();
    if (this.label) {
      this.label.material.map.dispose();
      this.label.material.dispose();
    }
    if (this.geometry) releaseShared();
    this.geometry = null;
  }
}

/** 0 → 0, 1 → 1 with a small overshoot on the way (a pop). */
function easeOutBack(t) {
  const c = 1.6;
  const u = t - 1;
  return 1 + (c + 1) * u * u * u + c * u * u;
}
