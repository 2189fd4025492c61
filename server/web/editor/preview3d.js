// The 3D preview: the draft as a racer sees it — from behind the spawn, looking toward the
// first checkpoint (or the finish), in the play view's colours — and an orbit around the
// track (drag to turn, wheel to come closer). Rebuilt from the track's geometry
// (shared/track-geometry.js) whenever it is shown after an edit; drawn on demand, not in a loop.

import * as THREE from '../vendor/three.module.min.js';
import { levelGeometry } from '../shared/track-geometry.js';

const COLOURS = {
  sky: '#2a4a66', solid: '#7f8fa0', noBounce: '#c27a55', ramp: '#93a9c4', platform: '#f0a04b',
  checkpoint: '#3ec1ff', finish: '#5fd68a', zone: '#a98bff', kill: '#ff6b6b', spawn: '#e8fbff',
};

export class Preview {
  constructor(canvas) {
    this.canvas = canvas;
    this.renderer = new THREE.WebGLRenderer({ canvas, antialias: true });
    this.renderer.setPixelRatio(window.devicePixelRatio || 1);
    this.camera = new THREE.PerspectiveCamera(60, 16 / 9, 0.1, 3000);
    /** Orbit: around `target`, at `distance`, turned by `yaw` and `pitch` (radians). */
    this.orbit = null;
    this.scene = null;
    this.attach();
  }

  attach() {
    let last = null;
    this.canvas.addEventListener('pointerdown', (e) => {
      last = [e.clientX, e.clientY];
      this.canvas.setPointerCapture(e.pointerId);
    });
    this.canvas.addEventListener('pointermove', (e) => {
      if (!last || !this.orbit) return;
      this.orbit.yaw -= (e.clientX - last[0]) * 0.008;
      this.orbit.pitch = Math.min(1.45, Math.max(-0.2, this.orbit.pitch + (e.clientY - last[1]) * 0.006));
      last = [e.clientX, e.clientY];
      this.render();
    });
    this.canvas.addEventListener('pointerup', () => { last = null; });
    this.canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      if (!this.orbit) return;
      this.orbit.distance = Math.min(1500, Math.max(2, this.orbit.distance * Math.exp(e.deltaY * 0.0015)));
      this.render();
    }, { passive: false });
  }

  resize(w, h) {
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / Math.max(h, 1);
    this.camera.updateProjectionMatrix();
    this.render();
  }

  /** Builds the scene of `track` (a level object) at `rate`; `keepCamera`: the orbit stays. */
  show(track, rate, keepCamera) {
    this.dispose(false);
    const g = levelGeometry(track, rate);
    const scene = new THREE.Scene();
    scene.background = new THREE.Color(COLOURS.sky);
    scene.fog = new THREE.Fog(COLOURS.sky, 120, 900);
    scene.add(new THREE.HemisphereLight('#dcecff', '#2b3440', 1.9));
    const sun = new THREE.DirectionalLight('#fff4e0', 1.6);
    sun.position.set(-0.55, 1, -0.3);
    scene.add(sun);
    const box = new THREE.BoxGeometry(1, 1, 1);
    const edges = new THREE.EdgesGeometry(box);
    const add = (b, material, outline = null) => {
      const mesh = new THREE.Mesh(box, material);
      mesh.scale.set(...b.max.map((v, i) => Math.max(v - b.min[i], 0.01)));
      mesh.position.set(...b.min.map((v, i) => (v + b.max[i]) / 2));
      if (outline) mesh.add(new THREE.LineSegments(edges, new THREE.LineBasicMaterial({ color: outline, transparent: true, opacity: 0.6 })));
      scene.add(mesh);
    };
    const solid = new THREE.MeshLambertMaterial({ color: COLOURS.solid });
    const noBounce = new THREE.MeshLambertMaterial({ color: COLOURS.noBounce });
    for (const s of g.solids) add(s, s.no_bounce ? noBounce : solid, '#1b2530');
    for (const p of g.platforms) add({ min: p.from, max: p.from.map((v, i) => v + p.size[i]) }, new THREE.MeshLambertMaterial({ color: COLOURS.platform }), '#ffd6a0');
    const glass = (colour, opacity) => new THREE.MeshBasicMaterial({ color: colour, transparent: true, opacity, depthWrite: false });
    for (const c of g.checkpoints) add(c, glass(COLOURS.checkpoint, 0.16), COLOURS.checkpoint);
    for (const f of g.finishes) add(f, glass(COLOURS.finish, 0.22), COLOURS.finish);
    for (const z of g.zones) add(z, glass(COLOURS.zone, 0.08), COLOURS.zone);
    for (const k of g.kills) add(k, glass(COLOURS.kill, 0.12), COLOURS.kill);
    this.addRamps(scene, g.ramps);
    const pogo = new THREE.Mesh(new THREE.CylinderGeometry(0.25, 0.25, 1.6, 12), new THREE.MeshLambertMaterial({ color: COLOURS.spawn }));
    pogo.position.set(g.spawn[0], g.spawn[1] + 0.8, g.spawn[2]);
    scene.add(pogo);
    this.scene = scene;
    if (!keepCamera || !this.orbit) this.orbit = racerOrbit(g);
    this.render();
  }

  addRamps(scene, ramps) {
    const material = new THREE.MeshLambertMaterial({ color: COLOURS.ramp, side: THREE.DoubleSide });
    for (const ramp of ramps) {
      const c = ramp.corners;
      if (!c) continue;
      const floor = ramp.bounds.min[1];
      const positions = [];
      const quad = (a, b, d, e) => positions.push(...a, ...b, ...d, ...a, ...d, ...e);
      quad(c[0], c[3], c[2], c[1]);
      for (let i = 0; i < 4; i++) {
        const a = c[i];
        const b = c[(i + 1) % 4];
        quad(a, b, [b[0], floor, b[2]], [a[0], floor, a[2]]);
      }
      const shape = new THREE.BufferGeometry();
      shape.setAttribute('position', new THREE.Float32BufferAttribute(positions, 3));
      shape.computeVertexNormals();
      scene.add(new THREE.Mesh(shape, material));
    }
  }

  render() {
    if (!this.scene || !this.orbit) return;
    const { target, distance, yaw, pitch } = this.orbit;
    this.camera.position.set(
      target[0] - Math.cos(yaw) * Math.cos(pitch) * distance,
      target[1] + Math.sin(pitch) * distance,
      target[2] - Math.sin(yaw) * Math.cos(pitch) * distance);
    this.camera.lookAt(...target);
    this.renderer.render(this.scene, this.camera);
  }

  /** Frees the scene's GPU resources (and the renderer too when `all`). */
  dispose(all = true) {
    this.scene?.traverse((o) => {
      o.geometry?.dispose();
      o.material?.dispose?.();
    });
    this.scene = null;
    if (all) this.renderer.dispose();
  }
}

/** The racer's view: behind the spawn, looking toward the first checkpoint or the finish. */
function racerOrbit(g) {
  const goal = g.checkpoints[0] ?? g.finishes[0];
  const yaw = goal ? Math.atan2((goal.min[2] + goal.max[2]) / 2 - g.spawn[2], (goal.min[0] + goal.max[0]) / 2 - g.spawn[0]) : 0;
  return { target: [g.spawn[0], g.spawn[1] + 1.2, g.spawn[2]], distance: 7, yaw, pitch: 0.32 };
}
