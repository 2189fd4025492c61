// ns per tick in WebAssembly under Node: the workload of tick.c (the bot's course run from a
// tick-0 snapshot, again and again), through pogo.mjs's Simulation.step and through the raw
// export with the input already in memory (the wrapper's own cost is the difference).
//
//   node ffi/bench/tick.mjs [path/to/pogo_ffi.wasm]

import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

import { hex, load } from '../js/pogo.mjs';

const WASM = process.argv[2] ?? new URL('../../target/wasm32-unknown-unknown/wasm-release/pogo_ffi.wasm', import.meta.url);
const REPS = 41;
// V8 first runs wasm in its baseline compiler and tiers hot functions up to the optimizing
// one while they run: unmeasured repetitions first, so the medians are of optimized code.
const WARMUP = 20;

const pogo = await load(readFileSync(WASM));
const level = pogo.level('course'), tuning = pogo.tuning();
const sim = pogo.simulation({ level, tuning });
const start = sim.snapshot();
const bot = pogo.bot();
const inputs = [];
while (inputs.length < 4800) {
  inputs.push(bot.input(sim, 0));
  sim.step([inputs.at(-1)]);
  if (sim.player(0).finished) break;
}
const expected = sim.stateHash();

const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];

function measure(label, stepAll) {
  for (let r = 0; r < WARMUP; r++) {
    sim.restore(start);
    stepAll();
  }
  const perTick = [];
  for (let r = 0; r < REPS; r++) {
    sim.restore(start);
    const t0 = performance.now();
    stepAll();
    perTick.push(((performance.now() - t0) * 1e6) / inputs.length);
    if (sim.stateHash() !== expected) throw new Error('replay diverged');
  }
  console.log(`wasm (${label}): ${median(perTick).toFixed(0)} ns/tick (median of ${REPS} runs of ${inputs.length} ticks, min ${Math.min(...perTick).toFixed(0)}) hash=${hex(expected)}`);
}

measure('pogo.mjs Simulation.step', () => {
  for (const input of inputs) sim.step([input]);
});

// The raw export: every tick's input written into one block up front.
const block = pogo.alloc(3 * inputs.length);
inputs.forEach((input, t) => pogo.writeInput(block + 3 * t, input));
const step = pogo.x.pogo_sim_step, id = sim.id;
measure('raw export', () => {
  for (let t = 0; t < inputs.length; t++) if (step(id, block + 3 * t, 1) !== 0) throw new Error('step failed');
});
pogo.dealloc(block);
for (const object of [bot, sim, tuning, level]) object.free();
