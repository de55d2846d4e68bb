// Greedy decoding and beam search for one source sentence, step by step as
// illustrated/decoding.py does them (each step names the Python line it mirrors).
//
// `step(prefixes)` stands for illustrated.decoding._step: given K prefixes (arrays of token
// ids, each starting with <bos>) it resolves to K Float32Arrays, the log-probabilities of
// the next token after each prefix. Here the decoder graph computes it (model.mjs).
// Scores are JavaScript numbers, i.e. float64, as _beam's `.double()` scores.
//
// Given a `trace` array, each step appends what it saw and decided, as the Python functions
// do with theirs: the page's decoding lab shows these records, and the browser check
// compares them with Python's, step by step.

// illustrated.decoding.TRACE_TOP: the most likely next tokens a greedy step records.
export const TRACE_TOP = 5;

// torch.argmax: the index of the largest value, the first one among equal maxima.
export function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

// illustrated.decoding.greedy_decode, for one source (B = 1).
export async function greedyDecode(step, { maxLen, bosId, eosId, trace = null }) {
  const ys = [bosId]; // ys = torch.full((B, 1), bos_id)
  // while ys.shape[1] < max_len and not bool(done.all()):
  while (ys.length < maxLen) {
    const [logp] = await step([ys]); // logp = _step(model, memory, src_mask, ys, cache)
    const next = argmax(logp); // nxt = logp.argmax(-1)
    // if trace is not None: trace.append(_greedy_step(logp, nxt)): logp.topk(TRACE_TOP)
    trace?.push({ top: topCandidates([0], [logp], TRACE_TOP).map((c) => [c.tok, c.value]),
                  chosen: next });
    ys.push(next); // ys = torch.cat([ys, nxt[:, None]], dim=1)
    if (next === eosId) break; // done |= nxt == eos_id
  }
  return ys;
}

// cand.topk(n) over cand = (scores[:, None] + logp).flatten(): the n best (value, flat
// index) pairs, best first; equal values in index order (torch.topk's order as far as
// one can tell: it does not promise one).
export function topCandidates(scores, logp, n) {
  const V = logp[0].length;
  const best = []; // sorted: value descending, then flat index ascending
  for (let row = 0; row < logp.length; row++) {
    const base = scores[row], rowLogp = logp[row];
    for (let tok = 0; tok < V; tok++) {
      const value = base + rowLogp[tok]; // float64 sum, as in (K * V,) float64
      if (best.length === n && value <= best[n - 1].value) continue; // later index loses ties
      let at = best.length;
      while (at > 0 && best[at - 1].value < value) at--;
      best.splice(at, 0, { value, row, tok });
      if (best.length > n) best.pop();
    }
  }
  return best;
}

// illustrated.decoding._beam with top_beams best hypotheses: [{tokens, score}], best first.
// `trace` gets _beam_step's record of each step: the live hypotheses it extended and its
// ranked candidates, each with its fate ("finished", "live" or "dropped"), decided here as
// _rank decides it.
export async function beamSearch(step, { maxLen, bosId, eosId, beamSize, topBeams = 1,
                                         lengthPenalty, trace = null }) {
  const k = beamSize, alpha = lengthPenalty;
  let ys = [[bosId]]; // ys = torch.full((1, 1), bos_id): (K, 1)
  let scores = [0]; // scores = torch.zeros(1, dtype=torch.float64)
  const finished = []; // finished = []: (tokens, final score) of each hypothesis that ended

  // _final(): the score divided by the length penalty ((5 + n) / 6) ** alpha, n without <bos>
  const final = (tokens, score) => ({ tokens, score: score / ((5 + tokens.length - 1) / 6) ** alpha });

  // _settled(): k finished hypotheses, and no live one can still beat the k-th best (a live
  // score only falls as tokens are added; the longest length penalty is its best case).
  const settled = () => {
    if (finished.length < k) return false;
    const kth = finished.map((f) => f.score).sort((a, b) => b - a)[k - 1];
    return Math.max(...scores) / ((5 + maxLen) / 6) ** alpha <= kth;
  };

  // while ys.shape[1] < max_len and not _settled(finished, scores, k, max_len, alpha):
  while (ys.length > 0 && ys[0].length < maxLen && !settled()) {
    const logp = await step(ys); // _step(...).double(): (K, V)
    const V = logp[0].length;
    // ranked, ended, live = _rank(ys, scores, logp, k, eos_id, alpha):
    const top = topCandidates(scores, logp, Math.min(2 * k, ys.length * V)); // ...topk(...)
    const keep = [], candidates = [];
    top.forEach(({ value, row, tok }, rank) => { // for rank, (s, i) in enumerate(...)
      const seq = [...ys[row], tok]; // the extended prefix
      let fate = "dropped";
      if (tok === eosId) {
        if (rank < k) { // an ending among the k best
          finished.push(final(seq, value));
          fate = "finished";
        }
      } else if (keep.length < k) { // one of the k best that go on
        keep.push({ seq, value }); // a live hypothesis
        fate = "live";
      }
      candidates.push({ tokens: seq, score: value, fate,
                        ...(fate === "finished" && { final: finished.at(-1).score }) });
    });
    // if trace is not None: trace.append(_beam_step(ys, scores, ranked, alpha))
    trace?.push({ live: ys.map((tokens, i) => ({ tokens, score: scores[i] })), candidates });
    if (keep.length === 0) break; // if not live: break
    // index, ys, scores = _extend(ys, live)
    ys = keep.map((h) => h.seq);
    scores = keep.map((h) => h.value);
  }
  // _best(): out of length, the unfinished hypotheses compete too, as greedy's truncated row.
  if ((ys.length > 0 && ys[0].length >= maxLen) || finished.length < topBeams) {
    ys.forEach((seq, i) => finished.push(final(seq, scores[i])));
  }
  finished.sort((a, b) => b.score - a.score); // sorted(key=-score): stable, as Python's
  return finished.slice(0, topBeams);
}
