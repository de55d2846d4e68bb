// The live translator page (chapters/live_translator.md): cut the box's text into sentences
// and check each as `python -m illustrated translate` does (limits.mjs), tokenise it as
// illustrated.translator.inference does, decode greedily or with beam search (decoding.mjs) with the
// ONNX graphs (model.mjs), and draw the attention heat maps (heatmap.mjs) and the decoding
// lab (lab.mjs) for one sentence; its words come from messages.mjs, in the edition's
// language.
//
// For the browser tests (tests/site/browser/test_live_translator.py) the page exposes
// window.liveTranslator: `ready` (a promise), `runs` (presses of Translate answered so far),
// `last` (the last one's sentences: verdicts and ids) and translateIds(srcIds, {beam})
// (ids in, ids out and the decoding's trace, no tokenizer).

import { beamSearch, greedyDecode } from "./decoding.mjs";
import { heatmap } from "./heatmap.mjs";
import { Lab } from "./lab.mjs";
import { fetchJSON, liveBox, translateLabels } from "./app.mjs";
import { messages as t } from "./messages.mjs";
import { attentionMatrix, LiveModel } from "./model.mjs";

const { root, $, say } = liveBox("lt-app", "#lt-status");

const api = { runs: 0, last: null, translateIds };
window.liveTranslator = api;
let manifest, tokenizer, prepare, limits, profile, modelPromise, lab;
let results = []; // this press's sentences: {text, refusal, warnings, srcIds, tokens, ...}

// The model files (about 10 MB, and onnxruntime's WebAssembly) load on the first request.
function model() {
  if (!modelPromise) {
    let bytes = 0;
    const total = (manifest.files["encoder.onnx"] + manifest.files["decoder.onnx"]
                   + manifest.files["weights.bin"]) / 1e6;
    modelPromise = LiveModel.load(manifest, (n) => {
      bytes += n;
      say(t.loading((bytes / 1e6).toFixed(1), total.toFixed(1)));
    }).catch((error) => { modelPromise = null; throw error; });
  }
  return modelPromise;
}

// Source ids -> {srcIds, tokens, score, trace, selfAttention, crossAttention}; `beam` 0:
// greedy; `maxLen` as illustrated.translator.inference.MAX_LEN unless given. `trace`: each decoding
// step, as decoding.mjs records it (the lab's data).
async function translateIds(srcIds, { beam = 0, maxLen = manifest.max_len } = {}) {
  const m = await model();
  const encoded = await m.encode(srcIds); // model.encode(src, src_mask)
  const step = m.stepper(encoded);
  const trace = [];
  const options = { maxLen, bosId: manifest.bos_id, eosId: manifest.eos_id, trace };
  let tokens, score = null;
  if (beam > 0) { // illustrated.translator.inference.translate(..., beam=beam): its length penalty
    ({ tokens, score } = (await beamSearch(step, { ...options, beamSize: beam,
      lengthPenalty: manifest.length_penalty }))[0]);
  } else {
    tokens = await greedyDecode(step, options);
  }
  // illustrated.translator.inference.cross_attention: the decoder reads <bos> w1 … wn; row i is the
  // step that writes tokens[i + 1].
  const { crossAttention } = await m.decode(encoded, [tokens.slice(0, -1)]);
  return { srcIds, tokens, score, beam, trace, selfAttention: encoded.selfAttention,
           crossAttention };
}

const pieces = (ids) => (tokenizer ? tokenizer.pieces(ids) : ids.map(String));

function fillSelect(select, n, name) {
  select.replaceChildren(...Array.from({ length: n }, (_, i) => new Option(t.numbered(name, i + 1), i)));
}

// The sentence whose heat maps and decoding lab are shown (the first translated one, or
// the reader's choice in #lt-which).
const chosen = () => results[+$("#lt-which").value];

function drawMaps() {
  const result = chosen();
  if (!result) return;
  const { srcIds, tokens, selfAttention, crossAttention } = result;
  const src = pieces(srcIds), out = pieces(tokens.slice(1));
  const cl = +$("#lt-cross-layer").value, ch = +$("#lt-cross-head").value;
  const el = +$("#lt-self-layer").value, eh = +$("#lt-self-head").value;
  $("#lt-cross").replaceChildren(heatmap(attentionMatrix(crossAttention, cl, ch), out, src,
    t.crossCaption(cl + 1, ch + 1)));
  $("#lt-self").replaceChildren(heatmap(attentionMatrix(selfAttention, el, eh), src, src,
    t.selfCaption(el + 1, eh + 1)));
}

// The chosen sentence: its tokens, its heat maps, its decoding in the lab.
function showChosen() {
  const result = chosen();
  $("#lt-tokens").replaceChildren(...pieces(result.tokens.slice(1)).map((p, i) => {
    const chip = document.createElement("span");
    chip.className = "lt-token";
    chip.textContent = p;
    chip.title = t.step(i + 1, result.tokens[i + 1]);
    return chip;
  }));
  $("#lt-source").textContent = t.reads(result.srcIds.length) + pieces(result.srcIds).join(" ");
  drawMaps();
  lab.show(result);
}

// Nothing shown from the last text: its tokens, heat maps and decoding.
function clearShown() {
  for (const id of ["#lt-tokens", "#lt-cross", "#lt-self"]) $(id).replaceChildren();
  $("#lt-source").textContent = "";
  lab.clear();
}

// One sentence's line in the list: the French, then its translation or its refusal, and
// its warnings.
function sentenceItem(result, i) {
  const item = document.createElement("li");
  item.className = "lt-sentence";
  item.dataset.index = i;
  const part = (tag, cls, text) => {
    const node = document.createElement(tag);
    node.className = cls;
    node.textContent = text;
    return node;
  };
  item.append(part("span", "lt-french", result.text));
  if (result.refusal) {
    item.append(part("span", "lt-refusal", result.refusal));
  } else if (result.tokens) {
    item.append(part("span", "lt-translation", tokenizer.decode(result.tokens)));
  } else {
    item.append(part("span", "lt-pending", "…"));
  }
  if (result.warnings.length) {
    const list = part("ul", "lt-warnings", "");
    list.append(...result.warnings.map((w) => part("li", "lt-warning", w)));
    item.append(list);
  }
  item.dataset.verdict = result.refusal ? "refused" : result.warnings.length ? "warned" : "ok";
  return item;
}

function drawList() {
  $("#lt-sentences").replaceChildren(...results.map(sentenceItem));
  $("#lt-sentences").hidden = results.length === 0;
  const translated = results.map((r, i) => [r, i]).filter(([r]) => r.tokens);
  const which = $("#lt-which"), before = which.value;
  which.replaceChildren(...translated.map(([r, i]) => new Option(`${i + 1}. ${r.text}`, i)));
  if (translated.some(([, i]) => String(i) === before)) which.value = before;
  $("#lt-which-row").hidden = translated.length < 2;
  $("#lt-results").hidden = translated.length === 0;
  return translated.length;
}

// The reader's text, sentence by sentence: each is checked (limits.mjs) and, unless
// refused, translated, in order; the list grows as they come.
async function onSubmit(event) {
  event.preventDefault();
  const text = $("#lt-text").value;
  const beam = $("#lt-beam").checked ? +$("#lt-beam-size").value : 0;
  results = limits.sentencesOf(text).map((s) => {
    const prepared = prepare(s); // illustrated.translator.inference.prepare
    const srcIds = prepared ? tokenizer.encode(prepared) : null; // [bos, ..., eos]
    const verdict = limits.checkSentence(s, srcIds ? srcIds.length : 0, profile,
                                         manifest.max_len, t.limits);
    return { text: s, srcIds, ...verdict };
  });
  const finish = (message, state) => {
    api.last = { text, beam, sentences: results.map((r) => ({
      text: r.text, refusal: r.refusal, warnings: r.warnings, srcIds: r.refusal ? null : r.srcIds,
      tokens: r.tokens ?? null, score: r.score ?? null, trace: r.trace ?? null })) };
    api.runs += 1;
    say(message, state);
  };
  clearShown();
  drawList();
  if (!results.length) return finish(t.empty, "ready"); // an empty box: a clean slate
  const todo = results.filter((r) => !r.refusal);
  if (!todo.length) return finish(t.allRefused(results.length), "done");
  $("#lt-go").disabled = true;
  root.dataset.state = "busy";
  try {
    const start = performance.now();
    for (const [n, result] of todo.entries()) {
      if (todo.length > 1) say(t.translating(n + 1, todo.length));
      Object.assign(result, await translateIds(result.srcIds, { beam }));
      if (drawList() === 1) showChosen(); // the first translation: show it at once
    }
    const how = beam > 0 ? t.beam(beam) : t.greedy;
    const seconds = ((performance.now() - start) / 1000).toFixed(2);
    finish(t.translated(how, seconds, todo.length, results.length), "done");
  } catch (error) {
    finish(t.failed(error.message), "error");
  } finally {
    $("#lt-go").disabled = false;
  }
}

async function start() {
  translateLabels(root, t.labels);
  $("#lt-form").hidden = false; // hidden in the HTML: without this script it can do nothing
  if (location.protocol === "file:") return; // the page's inline script has said why
  const response = await fetch(new URL("manifest.json", import.meta.url));
  if (!response.ok) {
    return say(t.noModel, "missing");
  }
  manifest = await response.json();
  if (!manifest.runtime) {
    return say(t.noRuntime, "missing");
  }
  for (const [id, n, name] of [["cross-layer", manifest.N, t.layer], ["cross-head", manifest.h, t.head],
                               ["self-layer", manifest.N, t.layer], ["self-head", manifest.h, t.head]]) {
    fillSelect($(`#lt-${id}`), n, name);
    $(`#lt-${id}`).addEventListener("change", drawMaps);
  }
  $("#lt-cross-layer").value = manifest.N - 1; // the last layer, as chapter 12's figure
  $("#lt-which").addEventListener("change", showChosen);
  lab = new Lab($("#lt-lab"), { pieces, say: t });
  if (!manifest.tokenizer_js) {
    return say(t.noTokenizer, "ids-only");
  }
  // The tokenizer, the command's rule and what the model read in training (limits.json).
  const [module, rule, json, trained] = await Promise.all([
    import("./tokenizer.js"), import("./limits.mjs"), fetchJSON("tokenizer.json"),
    fetchJSON("limits.json")]);
  tokenizer = module.Tokenizer.fromJSON(json);
  prepare = module.prepare;
  limits = rule;
  profile = rule.profileFromJSON(trained); // TrainingProfile.from_json
  $("#lt-form").addEventListener("submit", onSubmit);
  $("#lt-go").disabled = false;
  const mb = Object.values(manifest.files).reduce((a, b) => a + b, 0) / 1e6;
  say(t.ready((mb + manifest.runtime / 1e6).toFixed(0)), "ready");
}

api.ready = start().catch((error) => say(t.cannotStart(error.message), "error"));
