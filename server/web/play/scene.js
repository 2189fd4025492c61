// The play view's 3D stage: one three.js scene built once from a level's geometry JSON
// (`GET /api/levels/{level}`), the pogos added to it, drawn from a camera the caller moves.
//
// Conventions are the geometry JSON's: metres, x east, y up, z south; boxes {min, max}.
// What is drawn, and how:
// - solid boxes: opaque, blue-grey, lighter the higher their top (as race/draw.js shades them);
//   `no_bounce` solids (walls, ledges: the tip never bounces on them) wine red. One shared
//   unit box scaled per instance, in InstancedMeshes of CHUNK_M × CHUNK_M ground cells so that
//   the renderer culls what is behind the camera or beyond the fog (sprawl has 102 401 boxes);
// - every lit surface carries a faint world-space grid (GRID_CELL_M): motion stays readable on
//   a plain floor;
// - ramps: the quad through their `corners` with sides down to their bounds' floor (a ramp
//   without corners, unbounded or vertical, is not drawn);
// - moving platforms: orange, moved by `setTick` where the core puts them (`core.platformPosition`), interpolated
//   between ticks; a faint dashed line shows their travel;
// - zones: translucent boxes coloured by kind, with streaks drifting through them — wind
//   (|wind| > 0, gravity unchanged): cyan, streaks along the wind; low gravity
//   (gravity_scale < 1): violet, motes rising; heavy (gravity_scale > 1): magenta, motes
//   falling. A zone with both shows its gravity's colour and its wind's streaks;
// - checkpoints: translucent green gates with edges and a "CPn" label (as the HUD names them);
//   the next one bright and pulsing (`setNextCheckpoint`), its label readable from afar,
//   passed ones dim and unlabelled;
// - the finish: a gold translucent volume under a chequered band and a "FINISH" label (bright
//   and pulsing once no checkpoint is left);
// - kill volumes: faint red; one lying under the whole level is drawn as its top face only (a
//   danger floor), clipped to KILL_MARGIN_M around the level's bounds;
// - volumes (zones, checkpoints, the finish, kill volumes) show their outer faces only: a
//   camera inside one sees its edges and streaks, not a tint over everything;
// - a sky gradient and fog into the page's dark theme; a blob shadow under each pogo.

import * as THREE from '../vendor/three.module.min.js';
import { checkpointLabel } from '../shared/format.js';
import { PogoRig, makeLabel } from './rig.js';

/** Side of the ground cells solids are grouped by for culling (m). */
export const CHUNK_M = 160;
/** Spacing of the surfaces' world grid (m). */
export const GRID_CELL_M = 2;
/** A shadow falls on ground at most this far above the pogo's tip (m): a tip resting on a
 * surface sits a hair into it. */
const GROUND_REACH_M = 0.1;
/** Fog: clear up to FOG_NEAR_M, the background colour at FOG_FAR_M; nothing is drawn beyond
 * (the camera's far plane), which bounds the work on a large level. */
export const FOG_NEAR_M = 50;
export const FOG_FAR_M = 270;
/** The camera's vertical field of view (degrees) on a wide screen; on a narrow (portrait)
 * one it widens, up to FOV_MAX_DEG, to keep at least H_FOV_MIN_DEG across. Near plane (m). */
export const FOV_DEG = 62;
export const FOV_MAX_DEG = 84;
export const H_FOV_MIN_DEG = 52;
const NEAR_M = 0.1;
/** Kill volumes further than this outside the level's bounds are not drawn (m). */
const KILL_MARGIN_M = 30;
/** Streaks per zone: one per this many m³, within [min, max]. */
const STREAK_VOLUME_M3 = 60;
const STREAKS_MIN = 12;
const STREAKS_MAX = 90;
/** Device pixels per CSS pixel are capped here (a phone at 3× would draw 2.25× the pixels). */
export const PIXEL_RATIO_MAX = 2;

/** Colours (CSS), chosen for the page's dark theme (#101820 in race/draw.js, #0c1218 the page). */
export const COLOURS = Object.freeze({
  skyTop: '#0a1219',
  horizon: '#1a2734', // the fog's colour too
  solidLow: '#344555',
  solidHigh: '#8ea3b8',
  noBounce: '#9a3f55',
  ramp: '#7d9bb8',
  platform: '#e0953a',
  checkpoint: '#50dc8c',
  finish: '#ffd740',
  kill: '#ff3b3b',
  wind: '#5ad1e6',
  lowGravity: '#b48cff',
  heavy: '#ff5fa2',
  hemisphereSky: '#d6e6ff',
  hemisphereGround: '#3a3026',
  sun: '#fff1dc',
});

/** Tints mixed a little into solids (at most 30 %, by a hash of the solid's index). */
const TINTS = ['#5d7fa3', '#7f8a6e', '#98806c', '#6e7396'].map((c) => new THREE.Color(c));

/** A zone's kind, as the file's head says. */
export function zoneKind(zone) {
  const windy = Math.hypot(...zone.wind) > 1e-6;
  if (zone.gravity_scale < 1 - 1e-6) return { kind: 'low-gravity', colour: COLOURS.lowGravity, windy };
  if (zone.gravity_scale > 1 + 1e-6) return { kind: 'heavy', colour: COLOURS.heavy, windy };
  return { kind: 'wind', colour: COLOURS.wind, windy };
}

export class Stage {
  /**
   * Builds the scene for `geometry` (the level geometry JSON) drawing into `canvas`; `core` a
   * pogo.mjs Simulation of the level (never stepped: the stage asks it where the platforms
   * are and what ground lies under a pogo, so the page keeps no copy of the core's rules).
   * Throws an Error whose message a page can show when the browser has no WebGL 2. `options`:
   * `antialias` (default true: multisampling, which a software renderer such as CI's
   * SwiftShader pays for in time), `pixelRatioMax` (default PIXEL_RATIO_MAX).
   */
  constructor(canvas, geometry, core, { antialias = true, pixelRatioMax = PIXEL_RATIO_MAX } = {}) {
    this.core = core;
    this.pixelRatioMax = pixelRatioMax;
    this.owned = new Set(); // geometries, materials and textures to dispose
    this.rigs = new Set();
    let reason = '';
    const noted = (event) => { reason = event.statusMessage || reason; };
    canvas.addEventListener('webglcontextcreationerror', noted);
    try {
      this.renderer = new THREE.WebGLRenderer({ canvas, antialias, powerPreference: 'high-performance' });
    } catch (e) {
      const why = (reason || String(e?.message ?? e)).replace(/^(THREE\.WebGLRenderer: )+/, '').trim();
      throw new Error(`WebGL 2 is unavailable in this browser (${why || 'no reason given'}): `
        + 'turn on hardware acceleration or try another browser');
    } finally {
      canvas.removeEventListener('webglcontextcreationerror', noted);
    }
    try {
      this.build(geometry);
    } catch (e) {
      this.dispose(); // the WebGL context too: a browser allows only a few at once
      throw e;
    }
  }

  /** The scene from `geometry`, once (from the constructor). */
  build(geometry) {
    this.geometry = geometry;
    this.tickRate = geometry.tick_rate || 60;
    this.scene = new THREE.Scene();
    this.scene.fog = new THREE.Fog(COLOURS.horizon, FOG_NEAR_M, FOG_FAR_M);
    this.scene.background = this.own(skyTexture());
    /** The camera the stage sizes; a ChaseCamera can take it (`new ChaseCamera(stage.camera)`). */
    this.camera = new THREE.PerspectiveCamera(FOV_DEG, 16 / 9, NEAR_M, FOG_FAR_M + 10);
    this.aspect = 16 / 9;
    this.unitBox = this.own(new THREE.BoxGeometry(1, 1, 1));
    this.unitEdges = this.own(new THREE.EdgesGeometry(this.unitBox));
    this.addLights();
    this.addSolids(geometry.solids ?? []);
    this.addRamps(geometry.ramps ?? []);
    this.addPlatforms(geometry.platforms ?? []);
    this.addZones(geometry.zones ?? []);
    this.addKills(geometry.kills ?? [], geometry.bounds);
    this.addCheckpoints(geometry.checkpoints ?? []);
    this.addFinishes(geometry.finishes ?? []);
    /** The heading (radians, atan2(z, x)) from the spawn toward the first checkpoint or the
     * finish: where a chase camera should look at the start (0, east, if neither exists). */
    this.startHeading = startHeading(geometry);
    this.setNextCheckpoint(this.checkpoints.length ? 0 : null);
    this.setTick(0);
  }

  own(resource) {
    this.owned.add(resource);
    return resource;
  }

  addLights() {
    this.scene.add(new THREE.HemisphereLight(COLOURS.hemisphereSky, COLOURS.hemisphereGround, 1.9));
    const sun = new THREE.DirectionalLight(COLOURS.sun, 1.7);
    // From the west-north-west, high: faces looking back along +x (the risers a racer going
    // east meets) get light, tops most, and no two face directions shade alike.
    sun.position.set(-0.55, 1, -0.3);
    this.scene.add(sun);
  }

  /** Solids in InstancedMeshes per ground cell; no_bounce ones by colour. */
  addSolids(solids) {
    if (!solids.length) return;
    const material = this.own(new THREE.MeshLambertMaterial({ color: '#ffffff' }));
    withWorldGrid(material, 0.2);
    let yLo = Infinity;
    let yHi = -Infinity;
    for (const s of solids) {
      yLo = Math.min(yLo, s.max[1]);
      yHi = Math.max(yHi, s.max[1]);
    }
    const lo = new THREE.Color(COLOURS.solidLow);
    const hi = new THREE.Color(COLOURS.solidHigh);
    const noBounce = new THREE.Color(COLOURS.noBounce);
    const chunks = new Map();
    solids.forEach((s, i) => {
      const big = s.max[0] - s.min[0] > CHUNK_M || s.max[2] - s.min[2] > CHUNK_M;
      const cell = (axis) => Math.floor((s.min[axis] + s.max[axis]) / 2 / CHUNK_M);
      const key = big ? 'big' : `${cell(0)},${cell(2)}`;
      let list = chunks.get(key);
      if (!list) chunks.set(key, (list = []));
      list.push(i);
    });
    const matrix = new THREE.Matrix4();
    const colour = new THREE.Color();
    this.solidMeshes = [];
    for (const list of chunks.values()) {
      const mesh = new THREE.InstancedMesh(this.unitBox, material, list.length);
      list.forEach((index, j) => {
        const s = solids[index];
        matrix.makeScale(s.max[0] - s.min[0], s.max[1] - s.min[1], s.max[2] - s.min[2]);
        matrix.setPosition((s.min[0] + s.max[0]) / 2, (s.min[1] + s.max[1]) / 2, (s.min[2] + s.max[2]) / 2);
        mesh.setMatrixAt(j, matrix);
        if (s.no_bounce) {
          colour.copy(noBounce);
        } else {
          const t = yHi > yLo ? (s.max[1] - yLo) / (yHi - yLo) : 0.25;
          colour.copy(lo).lerp(hi, t);
        }
        // A little tint and brightness per box (hashes of its index) so that neighbours of
        // one height stay apart, as buildings of a city do.
        const tint = TINTS[Math.floor(hash01(index ^ 0x3c6ef372) * TINTS.length)];
        colour.lerp(tint, 0.3 * hash01(index ^ 0x1b873593)).multiplyScalar(0.92 + 0.12 * hash01(index));
        mesh.setColorAt(j, colour);
      });
      mesh.instanceMatrix.needsUpdate = true;
      mesh.computeBoundingSphere();
      mesh.computeBoundingBox();
      this.scene.add(mesh);
      this.solidMeshes.push(mesh);
    }
  }

  /** Each ramp with corners: its surface and its sides down to the bounds' floor. */
  addRamps(ramps) {
    const material = this.own(new THREE.MeshLambertMaterial({ color: COLOURS.ramp, side: THREE.DoubleSide }));
    withWorldGrid(material, 0.2);
    const noBounce = this.own(new THREE.MeshLambertMaterial({ color: COLOURS.noBounce, side: THREE.DoubleSide }));
    withWorldGrid(noBounce, 0.2);
    for (const ramp of ramps) {
      const c = ramp.corners;
      if (!Array.isArray(c) || c.length !== 4 || !ramp.bounds) continue;
      const floor = ramp.bounds.min[1];
      const positions = [];
      const quad = (a, b, d, e) => positions.push(...a, ...b, ...d, ...a, ...d, ...e);
      quad(c[0], c[3], c[2], c[1]); // the surface, wound to face up
      for (let i = 0; i < 4; i++) {
        const a = c[i];
        const b = c[(i + 1) % 4];
        if (Math.max(a[1], b[1]) <= floor + 1e-3) continue;
        quad(a, b, [b[0], floor, b[2]], [a[0], floor, a[2]]);
      }
      const shape = this.own(new THREE.BufferGeometry());
      shape.setAttribute('position', new THREE.Float32BufferAttribute(positions, 3));
      shape.computeVertexNormals();
      this.scene.add(new THREE.Mesh(shape, ramp.no_bounce ? noBounce : material));
    }
  }

  addPlatforms(platforms) {
    this.platforms = [];
    if (!platforms.length) return;
    const solid = this.own(new THREE.MeshLambertMaterial({
      color: COLOURS.platform, emissive: COLOURS.platform, emissiveIntensity: 0.15,
    }));
    const noBounce = this.own(new THREE.MeshLambertMaterial({ color: COLOURS.noBounce }));
    const edge = this.own(new THREE.LineBasicMaterial({ color: '#ffd6a0', transparent: true, opacity: 0.7 }));
    const path = this.own(new THREE.LineDashedMaterial({
      color: COLOURS.platform, dashSize: 0.6, gapSize: 0.4, transparent: true, opacity: 0.45,
    }));
    for (const platform of platforms) {
      const mesh = new THREE.Mesh(this.unitBox, platform.no_bounce ? noBounce : solid);
      mesh.scale.set(...platform.size);
      mesh.add(new THREE.LineSegments(this.unitEdges, edge));
      this.scene.add(mesh);
      const centre = (corner) => corner.map((v, i) => v + platform.size[i] / 2);
      const line = this.own(new THREE.BufferGeometry().setFromPoints([
        new THREE.Vector3(...centre(platform.from)), new THREE.Vector3(...centre(platform.to)),
      ]));
      const travel = new THREE.Line(line, path);
      travel.computeLineDistances();
      this.scene.add(travel);
      this.platforms.push({ platform, mesh });
    }
  }

  addZones(zones) {
    this.zones = [];
    zones.forEach((zone, index) => {
      const { colour, kind, windy } = zoneKind(zone);
      const fill = this.own(translucent(colour, 0.07));
      const edge = this.own(new THREE.LineBasicMaterial({ color: colour, transparent: true, opacity: 0.35 }));
      const box = boxMesh(this.unitBox, zone, fill);
      box.add(new THREE.LineSegments(this.unitEdges, edge));
      this.scene.add(box);
      const streaks = this.zoneStreaks(zone, index, kind, windy, colour);
      this.scene.add(streaks.lines);
      this.zones.push(streaks);
    });
  }

  /** Streaks drifting through a zone (positions recomputed from the time in `setTick`). */
  zoneStreaks(zone, index, kind, windy, colour) {
    const size = zone.max.map((v, i) => v - zone.min[i]);
    const volume = size[0] * size[1] * size[2];
    const count = Math.round(Math.min(STREAKS_MAX, Math.max(STREAKS_MIN, volume / STREAK_VOLUME_M3)));
    const random = mulberry32(0x9e3779b9 ^ index);
    const bases = Float32Array.from({ length: 3 * count }, (_, i) => zone.min[i % 3] + random() * size[i % 3]);
    const windSpeed = Math.hypot(...zone.wind);
    const direction = windy ? zone.wind.map((w) => w / windSpeed) : [0, kind === 'heavy' ? -1 : 1, 0];
    const speed = windy ? Math.min(12, Math.max(2, 1.5 * windSpeed)) : 1.4; // m/s
    const length = windy ? 1.4 : 0.35; // m
    const positions = new THREE.Float32BufferAttribute(new Float32Array(6 * count), 3);
    positions.setUsage(THREE.DynamicDrawUsage);
    const lineGeometry = this.own(new THREE.BufferGeometry());
    lineGeometry.setAttribute('position', positions);
    lineGeometry.boundingSphere = new THREE.Sphere(
      new THREE.Vector3(...zone.min.map((v, i) => v + size[i] / 2)), Math.hypot(...size) / 2 + length);
    const material = this.own(new THREE.LineBasicMaterial({ color: colour, transparent: true, opacity: 0.6, depthWrite: false }));
    const lines = new THREE.LineSegments(lineGeometry, material);
    return { lines, zone, size, bases, direction, speed, length, count, positions };
  }

  addKills(kills, bounds) {
    if (!kills.length || !bounds) return;
    const fill = this.own(translucent(COLOURS.kill, 0.2));
    withWorldGrid(fill, 0.5, 4);
    const edge = this.own(new THREE.LineBasicMaterial({ color: COLOURS.kill, transparent: true, opacity: 0.3 }));
    const floor = this.own(new THREE.PlaneGeometry(1, 1).rotateX(-Math.PI / 2));
    for (const kill of kills) {
      const min = [0, 1, 2].map((i) => Math.max(kill.min[i], bounds.min[i] - KILL_MARGIN_M));
      const max = [0, 1, 2].map((i) => Math.min(kill.max[i], bounds.max[i] + KILL_MARGIN_M));
      if (min.some((v, i) => v >= max[i])) continue;
      if (kill.max[1] <= bounds.min[1] + 1e-3) {
        // Under the whole level: its top face only, a danger floor.
        const plane = new THREE.Mesh(floor, fill);
        plane.position.set((min[0] + max[0]) / 2, kill.max[1], (min[2] + max[2]) / 2);
        plane.scale.set(max[0] - min[0], 1, max[2] - min[2]);
        this.scene.add(plane);
      } else {
        const box = boxMesh(this.unitBox, { min, max }, fill);
        box.add(new THREE.LineSegments(this.unitEdges, edge));
        this.scene.add(box);
      }
    }
  }

  addCheckpoints(checkpoints) {
    const colour = COLOURS.checkpoint;
    const mat = (opacity) => this.own(translucent(colour, opacity));
    const line = (opacity) => this.own(new THREE.LineBasicMaterial({ color: colour, transparent: true, opacity }));
    this.gateLooks = {
      next: { fill: mat(0.16), edge: line(1), opacity: 0.16 },
      ahead: { fill: mat(0.06), edge: line(0.5), opacity: 0.06 },
      passed: { fill: mat(0.025), edge: line(0.18), opacity: 0.025 },
    };
    this.checkpoints = [...checkpoints].sort((a, b) => a.index - b.index).map((cp) => {
      const box = boxMesh(this.unitBox, cp, this.gateLooks.ahead.fill);
      const edges = new THREE.LineSegments(this.unitEdges, this.gateLooks.ahead.edge);
      box.add(edges);
      this.scene.add(box);
      const label = this.addLabel(checkpointLabel(cp.index), colour, cp);
      return { index: cp.index, box, edges, label };
    });
  }

  addFinishes(finishes) {
    const colour = COLOURS.finish;
    this.finishLook = {
      fill: this.own(translucent(colour, 0.1)),
      edge: this.own(new THREE.LineBasicMaterial({ color: colour, transparent: true, opacity: 0.9 })),
    };
    const chequer = this.own(chequerTexture());
    this.finishes = finishes.map((finish) => {
      const box = boxMesh(this.unitBox, finish, this.finishLook.fill);
      box.add(new THREE.LineSegments(this.unitEdges, this.finishLook.edge));
      this.scene.add(box);
      // A chequered band around the volume's top, its squares BAND_M wide on every side.
      const size = finish.max.map((v, i) => v - finish.min[i]);
      const BAND_M = 0.8;
      const band = this.own(new THREE.BoxGeometry(size[0], BAND_M, size[2]));
      const uv = band.getAttribute('uv');
      // BoxGeometry's faces, 4 vertices each: +x, −x (across z), +y, −y, +z, −z (across x).
      const across = [size[2], size[2], size[0], size[0], size[0], size[0]];
      for (let v = 0; v < uv.count; v++) {
        uv.setX(v, uv.getX(v) * Math.max(1, Math.round(across[Math.floor(v / 4)] / BAND_M)));
      }
      const material = this.own(new THREE.MeshBasicMaterial({ map: chequer, transparent: true, opacity: 0.85, side: THREE.DoubleSide }));
      const bandMesh = new THREE.Mesh(band, material);
      bandMesh.position.set((finish.min[0] + finish.max[0]) / 2, finish.max[1] - BAND_M / 2,
        (finish.min[2] + finish.max[2]) / 2);
      this.scene.add(bandMesh);
      const label = this.addLabel('FINISH', colour, finish);
      return { box, label };
    });
  }

  /** A label over the top centre of a volume; `grow` it with distance for the next target. */
  addLabel(text, colour, volume) {
    const sprite = makeLabel(text, colour, 1.1);
    this.own(sprite.material.map);
    this.own(sprite.material);
    sprite.position.set((volume.min[0] + volume.max[0]) / 2, volume.max[1] + 0.4, (volume.min[2] + volume.max[2]) / 2);
    sprite.userData.baseScale = sprite.scale.clone();
    this.scene.add(sprite);
    return sprite;
  }

  /**
   * The highest surface top at (x, z) no higher than `y` + 0.1 m (m), or null if none, as the
   * core has it at the tick drawn: a solid's top, a platform's, a ramp's. For the shadows.
   */
  groundBelow(x, y, z) {
    return this.core.groundBelow(x, y, z, this.coreTick, GROUND_REACH_M);
  }

  /**
   * The level as it is at `tick` (a float: race tick, with the fraction between two ticks for
   * interpolation): platforms, zone streaks.
   */
  setTick(tick) {
    const t = Math.max(0, tick);
    const whole = Math.floor(t);
    const f = t - whole;
    // After race tick `whole` the simulation has run whole + 1 ticks: the platforms stand
    // where the core puts them at the start of the next.
    this.coreTick = whole + 1;
    this.platforms.forEach(({ platform, mesh }, i) => {
      const a = this.core.platformPosition(i, whole + 1);
      const b = this.core.platformPosition(i, whole + 2);
      mesh.position.set(
        a[0] + (b[0] - a[0]) * f + platform.size[0] / 2,
        a[1] + (b[1] - a[1]) * f + platform.size[1] / 2,
        a[2] + (b[2] - a[2]) * f + platform.size[2] / 2,
      );
    });
    const seconds = t / this.tickRate;
    for (const s of this.zones) moveStreaks(s, seconds);
  }

  /** Highlights checkpoint `index` as the next one (those before it passed); null: all passed
   * (or none), the finish is next. */
  setNextCheckpoint(index) {
    this.nextCheckpoint = index;
    for (const cp of this.checkpoints) {
      const look = index === null || cp.index < index ? this.gateLooks.passed
        : cp.index === index ? this.gateLooks.next : this.gateLooks.ahead;
      cp.box.material = look.fill;
      cp.edges.material = look.edge;
      cp.label.visible = look !== this.gateLooks.passed; // the label is drawn over everything
    }
  }

  /** A pogo rig in the scene (see rig.js): `colour` CSS, `label` a ghost's name. */
  addPogo({ colour, label = '', ghost = false, named = false }) {
    const rig = new PogoRig({ colour, label, ghost, named });
    this.scene.add(rig.object);
    this.rigs.add(rig);
    return rig;
  }

  removePogo(rig) {
    if (!this.rigs.delete(rig)) return;
    rig.dispose();
  }

  /** Draws the scene from `camera` (a THREE.PerspectiveCamera, e.g. ChaseCamera's). */
  render(camera) {
    if (camera.aspect !== this.aspect) this.fit(camera);
    for (const rig of this.rigs) {
      const p = rig.object.position;
      rig.setGround(this.groundBelow(p.x, p.y, p.z));
      rig.beforeRender(camera);
    }
    // The next target pulses and its label stays readable from afar.
    const pulse = 0.5 + 0.5 * Math.sin((performance.now() / 1000) * 2 * Math.PI * 1.1);
    this.gateLooks.next.fill.opacity = this.gateLooks.next.opacity * (0.7 + 0.6 * pulse);
    const nextGate = this.nextCheckpoint === null ? null : this.checkpoints.find((cp) => cp.index === this.nextCheckpoint);
    const finishNext = this.nextCheckpoint === null;
    this.finishLook.fill.opacity = finishNext ? 0.1 + 0.08 * pulse : 0.06;
    for (const cp of this.checkpoints) growLabel(cp.label, camera, cp === nextGate);
    for (const finish of this.finishes) growLabel(finish.label, camera, finishNext);
    this.renderer.render(this.scene, camera);
  }

  /** The canvas is `width` × `height` CSS pixels (its CSS size is the page's). */
  resize(width, height) {
    const w = Math.max(1, Math.round(width));
    const h = Math.max(1, Math.round(height));
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, this.pixelRatioMax));
    this.renderer.setSize(w, h, false);
    this.aspect = w / h;
    this.fit(this.camera);
  }

  /** Sets `camera`'s aspect to the canvas's and its field of view as FOV_DEG says. */
  fit(camera) {
    const halfWidest = Math.tan((H_FOV_MIN_DEG * Math.PI) / 360) / this.aspect;
    const fov = Math.max(FOV_DEG, (360 / Math.PI) * Math.atan(halfWidest));
    camera.aspect = this.aspect;
    camera.fov = Math.min(FOV_MAX_DEG, fov);
    camera.updateProjectionMatrix();
  }

  /** Frees every geometry, material and texture, the rigs and the WebGL context. */
  dispose() {
    for (const rig of this.rigs) rig.dispose();
    this.rigs.clear();
    for (const mesh of this.solidMeshes ?? []) mesh.dispose();
    for (const resource of this.owned) resource.dispose();
    this.owned.clear();
    this.scene?.clear();
    this.renderer.dispose();
    this.renderer.forceContextLoss();
  }
}

// -- helpers ----------------------------------------------------------------------------------

/** An unlit see-through material for volumes: it never hides what is behind it. */
function translucent(colour, opacity) {
  return new THREE.MeshBasicMaterial({ color: colour, transparent: true, opacity, depthWrite: false });
}

/** A unit-box mesh stretched over `{min, max}`. */
function boxMesh(unitBox, { min, max }, material) {
  const mesh = new THREE.Mesh(unitBox, material);
  mesh.position.set((min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2);
  mesh.scale.set(Math.max(max[0] - min[0], 1e-3), Math.max(max[1] - min[1], 1e-3), Math.max(max[2] - min[2], 1e-3));
  return mesh;
}

/** A target's label keeps its on-screen size beyond 30 m; the others keep their world size. */
function growLabel(sprite, camera, grow) {
  const base = sprite.userData.baseScale;
  const k = grow ? Math.min(8, Math.max(1, camera.position.distanceTo(sprite.position) / 30)) : 1;
  sprite.scale.set(base.x * k, base.y * k, 1);
}

/**
 * Darkens `material`'s lit colour along a world-space grid of `cellM` metres (by `strength`,
 * 0 … 1): lines where a world coordinate crosses a multiple of `cellM`, about 1.5 px wide,
 * fading out where cells shrink under a few pixels. An axis constant across a face (a top's y)
 * draws no line.
 */
function withWorldGrid(material, strength, cellM = GRID_CELL_M) {
  material.onBeforeCompile = (shader) => {
    shader.uniforms.gridCell = { value: cellM };
    shader.uniforms.gridStrength = { value: strength };
    shader.vertexShader = `varying vec3 vGridWorld;\n${shader.vertexShader.replace('#include <project_vertex>', `
      #include <project_vertex>
      vec4 gridWorld = vec4(transformed, 1.0);
      #ifdef USE_INSTANCING
        gridWorld = instanceMatrix * gridWorld;
      #endif
      vGridWorld = (modelMatrix * gridWorld).xyz;`)}`;
    const head = 'varying vec3 vGridWorld;\nuniform float gridCell;\nuniform float gridStrength;\n';
    shader.fragmentShader = `${head}${shader.fragmentShader.replace('#include <color_fragment>', `
      #include <color_fragment>
      {
        vec3 p = vGridWorld / gridCell;
        vec3 w = fwidth(p);
        vec3 d = abs(fract(p - 0.5) - 0.5) / max(w * 1.5, vec3(1e-5));
        d = mix(vec3(1e3), d, step(vec3(1e-3), w));
        float line = 1.0 - min(min(d.x, d.y), min(d.z, 1.0));
        float fade = 1.0 - smoothstep(0.18, 0.4, max(max(w.x, w.y), w.z));
        diffuseColor.rgb *= 1.0 - gridStrength * line * fade;
      }`)}`;
  };
  material.customProgramCacheKey = () => `world-grid-${cellM}-${strength}`;
}

/** Streak positions at `seconds`: each drifts along the zone's direction, wrapping inside it. */
function moveStreaks(s, seconds) {
  const { zone, size, bases, direction, speed, length, count, positions } = s;
  const array = positions.array;
  const travel = speed * seconds;
  for (let i = 0; i < count; i++) {
    for (let a = 0; a < 3; a++) {
      const head = zone.min[a] + mod(bases[3 * i + a] - zone.min[a] + direction[a] * travel, size[a]);
      const tail = Math.min(zone.max[a], Math.max(zone.min[a], head - direction[a] * length));
      array[6 * i + a] = head;
      array[6 * i + 3 + a] = tail;
    }
  }
  positions.needsUpdate = true;
}

const mod = (a, n) => (n > 0 ? ((a % n) + n) % n : 0);

/** A number in [0, 1) from an integer, the same every time. */
function hash01(i) {
  let h = Math.imul(i ^ 0x5bd1e995, 0x27d4eb2d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return (h >>> 0) / 4294967296;
}

/** A small seeded generator (mulberry32) for the streaks' starting points. */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The heading from the spawn to the first checkpoint (or the finish), 0 without either. */
function startHeading(geometry) {
  const first = [...(geometry.checkpoints ?? [])].sort((a, b) => a.index - b.index)[0] ?? geometry.finishes?.[0];
  if (!first || !geometry.spawn) return 0;
  const dx = (first.min[0] + first.max[0]) / 2 - geometry.spawn[0];
  const dz = (first.min[2] + first.max[2]) / 2 - geometry.spawn[2];
  return Math.hypot(dx, dz) > 1e-6 ? Math.atan2(dz, dx) : 0;
}

/** The sky: a vertical gradient behind everything, into the fog's colour at the horizon. */
function skyTexture() {
  const canvas = document.createElement('canvas');
  canvas.width = 2;
  canvas.height = 256;
  const ctx = canvas.getContext('2d');
  const g = ctx.createLinearGradient(0, 0, 0, 256);
  g.addColorStop(0, COLOURS.skyTop);
  g.addColorStop(0.5, COLOURS.horizon);
  g.addColorStop(1, COLOURS.horizon);
  ctx.fillStyle = g;
  ctx.fillRect(0, 0, 2, 256);
  const texture = new THREE.CanvasTexture(canvas);
  texture.colorSpace = THREE.SRGBColorSpace;
  return texture;
}

/** A black-and-white chequer of 2 × 1 squares (the finish band repeats it along its faces). */
function chequerTexture() {
  const canvas = document.createElement('canvas');
  canvas.width = 32;
  canvas.height = 32;
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#f4f4f4';
  ctx.fillRect(0, 0, 32, 32);
  ctx.fillStyle = '#141414';
  ctx.fillRect(0, 0, 16, 16);
  ctx.fillRect(16, 16, 16, 16);
  const texture = new THREE.CanvasTexture(canvas);
  texture.colorSpace = THREE.SRGBColorSpace;
  texture.wrapS = THREE.RepeatWrapping;
  texture.anisotropy = 4;
  return texture;
}
