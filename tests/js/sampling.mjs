// Runs _static/live/sampling.mjs under Node for tests/test_live_sampling.py: reads a job
// ({seeds, count, rows, settings, us, draws, table, runs, bad}) as JSON on stdin (-Infinity written
// as null), writes the module's answers as JSON on stdout.
import {readFileSync} from "node:fs";
import * as sampling from "../../_static/live/sampling.mjs";

// The classic mulberry32, verbatim (its state grows past 2**32; the module's does not).
function mulberry32(a) {
  return function() {
    var t = a += 0x6D2B79F5;
    t = Math.imul(t ^ t >>> 15, t | 1);
    t ^= t + Math.imul(t ^ t >>> 7, t | 61);
    return ((t ^ t >>> 14) >>> 0) / 4294967296;
  };
}

const job = JSON.parse(readFileSync(0, "utf-8"));
const row = (r) => Float32Array.from(r, (x) => (x === null ? -Infinity : x));
const uniforms = (next) => Array.from({length: job.count}, next);
const rows = job.rows.map(row);
const table = job.table.map(row);
const step = async (ids) => table[ids[ids.length - 1]]; // a bigram model's log-probs

const probs = rows.map((r) => job.settings.map((o) => Array.from(sampling.nextTokenProbs(r, o))));
const runs = [];
for (const run of job.runs) {
  const trace = [];
  const ids = await sampling.generate(step, run.prompt, {...run.options, trace});
  runs.push({ids, trace});
}
const errors = job.bad.map((options) => {
  try { sampling.nextTokenProbs(rows[0], options); return null; } catch (e) { return e.message; }
});
process.stdout.write(JSON.stringify({
  module: job.seeds.map((seed) => {
    const rng = new sampling.Mulberry32(seed);
    return uniforms(() => rng.random());
  }),
  classic: job.seeds.map((seed) => uniforms(mulberry32(seed))),
  probs,
  sampled: probs.flat().map((p, i) => sampling.draw(p, job.us[i])),
  draws: job.draws.map(([p, u]) => sampling.draw(p, u)),
  runs,
  errors,
}));
