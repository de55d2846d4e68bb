// Sampling the next token, as illustrated/decoder_only/sampling.py does it (each function names the
// Python it mirrors): the seeded generator, the distribution after temperature, top-k and
// top-p, the draw by the inverse cumulative distribution, and the loop that writes text.
// Scores come as the page gets them from onnxruntime-web, a Float32Array (or any array) of
// logits or log-probabilities; every sum and product here is a JavaScript number, float64,
// as the Python's `.double()`. tests/test_live_sampling.py runs this file under Node and
// checks it equal to the Python.

import { editions } from "./messages.mjs";

// illustrated.decoder_only.sampling.Mulberry32: the well-known mulberry32, `a` kept in [0, 2**32) by
// `>>> 0` (the classic `a += 0x6D2B79F5` lets it grow, the same numbers until 2**53).
export class Mulberry32 {
  constructor(seed) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
      throw new RangeError(`seed must be an int in [0, 2**32), got ${seed}`);
    }
    this.state = seed;
  }

  // Mulberry32.next_uint32
  nextUint32() {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  // Mulberry32.random: k / 2**32
  random() {
    return this.nextUint32() / 4294967296;
  }
}

// illustrated.decoder_only.sampling.check_sampling, in its words (TEMPERATURE, TOP_K, TOP_P:
// messages.mjs holds them, tests/test_live_writer.py checks them equal to the Python's).
export function checkSampling({ temperature = 1, topK = 0, topP = 1 } = {}) {
  const refuse = (name, value) => {
    throw new RangeError(editions.en.writer[name].replace("{value}", String(value)));
  };
  if (!(Number.isFinite(temperature) && temperature >= 0)) refuse("TEMPERATURE", temperature);
  if (!Number.isInteger(topK) || topK < 0) refuse("TOP_K", topK);
  if (!(topP > 0 && topP <= 1)) refuse("TOP_P", topP);
}

// torch.argmax: the first of equal maxima.
function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

// illustrated.decoder_only.sampling.next_token_probs (and _keep_most_likely): a Float64Array (V), summing to 1.
export function nextTokenProbs(scores, { temperature = 1, topK = 0, topP = 1 } = {}) {
  checkSampling({ temperature, topK, topP });
  const V = scores.length;
  if (V === 0 || Array.prototype.some.call(scores, (x) => Number.isNaN(x) || x === Infinity)) {
    throw new RangeError("scores must be finite or -inf, without NaN (check_scores)");
  }
  const top = scores.reduce((a, b) => Math.max(a, b), -Infinity); // s.max()
  if (top === -Infinity) throw new RangeError("scores must hold one finite value at least");
  const probs = new Float64Array(V);
  if (temperature === 0) { // probs[s.argmax()] = 1.0
    probs[argmax(scores)] = 1;
    return probs;
  }
  // torch.softmax((s - s.max()) / temperature)
  for (let i = 0; i < V; i++) probs[i] = Math.exp((scores[i] - top) / temperature);
  divide(probs, sum(probs));
  // ranked, order = probs.sort(descending=True, stable=True): ties, the lower id first
  const order = Array.from(probs.keys()).sort((a, b) => probs[b] - probs[a] || a - b);
  let n = topK === 0 ? V : Math.min(topK, V);
  const ranked = order.slice(0, n).map((i) => probs[i]);
  divide(ranked, sum(ranked)); // ranked[:n] / ranked[:n].sum()
  if (topP < 1) { // n = searchsorted(cum, top_p) + 1: the first running sum >= top_p
    let cum = 0, reach = 0;
    while (reach < n && (cum += ranked[reach]) < topP) reach++;
    n = Math.min(reach + 1, n);
  }
  const kept = new Float64Array(V); // kept[order[:n]] = ranked[:n]
  for (let r = 0; r < n; r++) kept[order[r]] = ranked[r];
  divide(kept, sum(kept)); // kept / kept.sum()
  return kept;
}

function sum(values) {
  let total = 0;
  for (const x of values) total += x;
  return total;
}

function divide(values, by) {
  for (let i = 0; i < values.length; i++) values[i] /= by;
}

// illustrated.decoder_only.sampling.draw: the first id whose cumulative probability exceeds u; if
// rounding leaves the total at or under u, the last id with probability > 0.
export function draw(probs, u) {
  let cum = 0, last = 0;
  for (let i = 0; i < probs.length; i++) {
    cum += probs[i];
    if (cum > u) return i; // searchsorted(cum, u, right=True)
    if (probs[i] > 0) last = i;
  }
  return last; // probs.nonzero()[-1]
}

// illustrated.decoder_only.sampling.generate. `step(ids)` resolves to the log-probabilities of the token
// after `ids` (a Float32Array, V): the page's model, reading its cache or the whole prefix.
// `maxLen` is the model's config.max_len. Returns the new ids (with eosId if it came);
// `trace` gets {model, probs, u, chosen} for each step, as the Python's trace: the model's own
// distribution (exp of its log-probabilities), the one drawn from, the uniform number, the id.
export async function generate(step, promptIds, { maxNewTokens, maxLen, temperature = 1,
                                                  topK = 0, topP = 1, seed = 0, eosId = 2,
                                                  trace = null }) {
  checkSampling({ temperature, topK, topP });
  const rng = new Mulberry32(seed), ids = [...promptIds], added = [];
  const room = maxLen - ids.length; // new ids that still fit
  while (added.length < Math.min(maxNewTokens, room)) {
    const logp = await step(ids); // _next_logp(model, ids, fed, cache)
    const probs = nextTokenProbs(logp, { temperature, topK, topP });
    const u = rng.random();
    added.push(draw(probs, u));
    ids.push(added[added.length - 1]);
    trace?.push({ model: Array.from(logp, Math.exp), probs: Array.from(probs), u,
                  chosen: added[added.length - 1] });
    if (added[added.length - 1] === eosId) break;
  }
  return added;
}
