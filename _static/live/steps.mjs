// The live writer's view of one step (writer.mjs draws it; chapters/live_writer.md shows it):
// the model's own distribution beside the one the token comes from, and, when sampling, where
// u fell. The numbers are those of `python -m illustrated generate --steps`: each function
// names the Python it mirrors (illustrated/commands/generate.py), so that page and command
// show the same digits for the same prompt, settings and seed (tests/site/browser/
// test_live_writer.py compares them).

const TOP = 10; // the tokens drawn as bars at each step
const AROUND = 2; // the kept tokens shown on each side of u's slice

// generate.percent: one decimal, "<0.1 %" for a tiny non-zero probability.
export function percent(p) {
  return p > 0 && p < 0.0005 ? "<0.1 %" : `${(100 * p).toFixed(1)} %`;
}

// generate.token_slice: token `chosen`'s slice of [0, 1) as sampling.draw walks the tokens,
// end to end in id order (sum(probs[:chosen]), added in id order).
export function tokenSlice(probs, chosen) {
  let start = 0;
  for (let i = 0; i < chosen; i++) start += probs[i];
  return [start, start + probs[chosen]];
}

// generate.slice_words: "u = 0.4562 ∈ [0.4540, 0.4571)", six decimals for a slice under 0.001.
export function sliceWords(u, start, end) {
  const d = end - start >= 1e-3 ? 4 : 6;
  return `u = ${u.toFixed(d)} ∈ [${start.toFixed(d)}, ${end.toFixed(d)})`;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// A bar and its percentage; the bar's width in % of its track, the column's largest value
// shown filling it (so a flat distribution is not drawn as slivers).
function barCell(row, p, largest, cls) {
  const cell = row.insertCell();
  cell.className = cls;
  const track = el("span", "lw-track");
  const bar = el("span", p > 0 ? "lw-bar" : "lw-bar lw-zero");
  bar.style.width = `${largest > 0 ? (100 * p) / largest : 0}%`;
  track.append(bar);
  cell.append(track, el("span", "lw-pct", percent(p)));
}

// The TOP tokens the model finds most likely (ties: the lower id first, as generate --steps
// ranks them), and the chosen one if it is not among them: one row each, with the model's
// probability and the one after the settings side by side.
function shownIds(r) {
  const rows = r.model.map((p, id) => [p, id]).sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .slice(0, TOP).map(([, id]) => id);
  return rows.includes(r.chosen) ? rows : [...rows, r.chosen];
}

function bars(r, rows, { pieces, t, sampling }) {
  const largest = (dist) => Math.max(...rows.map((id) => dist[id]));
  const [mTop, pTop] = [largest(r.model), largest(r.probs)];
  const table = el("table", "lw-bars");
  const head = table.createTHead().insertRow();
  for (const [text, cls] of [[t.tokenColumn, ""], [t.modelColumn, "lw-model"],
    [sampling ? t.sampleColumn : t.greedyColumn, "lw-after"], ["", ""]]) {
    head.append(el("th", cls, text));
  }
  const body = table.createTBody();
  for (const id of rows) {
    const tr = body.insertRow();
    tr.dataset.id = id;
    if (id === r.chosen) tr.className = "lw-chosen";
    tr.insertCell().append(el("span", "lw-piece", pieces([id])[0]));
    barCell(tr, r.model[id], mTop, "lw-model");
    barCell(tr, r.probs[id], pTop, "lw-after");
    tr.insertCell().textContent = id === r.chosen ? (sampling ? t.drawn : t.taken) : "";
  }
  return table;
}

// The kept tokens end to end in id order on a strip of [0, 1), u's slice marked, and the
// slices around it named: the draw of sampling.draw, made visible. The model's most likely
// tokens (the rows of the bars) are darker, and named where their slice has room.
function strip(r, { pieces, t, shownIds }) {
  const [start, end] = tokenSlice(r.probs, r.chosen);
  const d = end - start >= 1e-3 ? 4 : 6; // sliceWords' decimals, for every slice named
  const bar = el("div", "lw-strip");
  const kept = [];
  let at = 0;
  for (let id = 0; id < r.probs.length; id++) { // sampling.draw's cumsum, in id order
    const p = r.probs[id];
    if (p <= 0) continue; // a token of probability 0 owns no slice
    kept.push([id, at, at + p]);
    const cls = id === r.chosen ? "lw-s lw-s-chosen" : shownIds.includes(id) ? "lw-s lw-s-top"
      : `lw-s lw-s${kept.length % 2}`;
    const s = el("div", cls, p >= 0.06 ? pieces([id])[0] : undefined);
    Object.assign(s.style, { left: `${100 * at}%`, width: `${100 * p}%` });
    if (id === r.chosen) s.dataset.id = id;
    bar.append(s);
    at += p;
  }
  const u = el("div", "lw-u", "u");
  u.style.left = `${100 * r.u}%`;
  bar.append(u);
  const said = el("p", "lw-slice", t.slice(pieces([r.chosen])[0], sliceWords(r.u, start, end)));
  Object.assign(said.dataset, { u: r.u, start, end, id: r.chosen });
  const i = kept.findIndex(([id]) => id === r.chosen);
  const around = el("table", "lw-around");
  for (const [id, a, b] of kept.slice(Math.max(0, i - AROUND), i + AROUND + 1)) {
    const tr = around.insertRow();
    if (id === r.chosen) tr.className = "lw-chosen";
    tr.insertCell().append(el("span", "lw-piece", pieces([id])[0]));
    tr.insertCell().textContent = `[${a.toFixed(d)}, ${b.toFixed(d)})`;
    tr.insertCell().textContent = percent(r.probs[id]); // a slice too thin for d decimals
    tr.insertCell().textContent = id === r.chosen ? `← u = ${r.u.toFixed(d)}` : "";
  }
  const box = el("div", "lw-strip-box");
  box.append(el("p", "lw-strip-says", t.strip), bar, said, el("p", "lw-strip-says", t.around),
             around);
  return box;
}

/** The view of step `r` (a trace record {model, probs, u, chosen}): `pieces(ids)` shows
 *  tokens, `t` the edition's words, `sampling` false for greedy (then no u is shown). */
export function stepView(r, { pieces, t, sampling }) {
  const kept = r.probs.filter((p) => p > 0).length;
  const says = el("p", "lw-kept", sampling ? t.sampleStep(kept, r.probs.length)
    : t.greedyStep(pieces([r.chosen])[0]));
  const rows = shownIds(r);
  const parts = [says, el("p", "lw-kept", t.top(TOP)), bars(r, rows, { pieces, t, sampling })];
  if (sampling) parts.push(strip(r, { pieces, t, shownIds: rows }));
  return parts;
}
