// The live translator page (chapters/live_translator.md): read the French, tokenise it as
// illustrated.translator does, decode greedily or with beam search (decoding.mjs) with the
// ONNX graphs (model.mjs), and draw the attention heat maps (heatmap.mjs); its words come
// from messages.mjs, in the language of the edition.
//
// For the browser check (scripts/browser_checks/live_translator.py) the page exposes
// window.liveTranslator: `ready` (a promise), `runs` (translations shown so far), `last`
// (the last one's ids) and translateIds(srcIds, {beam}) (ids in, ids out, no tokenizer).

import { beamSearch, greedyDecode } from "./decoding.mjs";
import { heatmap } from "./heatmap.mjs";
import { messages as t } from "./messages.mjs";
import { attentionMatrix, LiveModel } from "./model.mjs";

const root = document.getElementById("lt-app");
const $ = (selector) => root.querySelector(selector);
const say = (text, state) => {
  $("#lt-status").textContent = text;
  if (state) root.dataset.state = state;
};

const api = { runs: 0, last: null, translateIds };
window.liveTranslator = api;
let manifest, tokenizer, prepare, modelPromise, shown;

// The model files (about 24 MB with onnxruntime's WebAssembly) load on the first request.
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

// Source ids -> {srcIds, tokens, score, selfAttention, crossAttention}; `beam` 0: greedy;
// `maxLen` as illustrated.translator.MAX_LEN unless given.
async function translateIds(srcIds, { beam = 0, maxLen = manifest.max_len } = {}) {
  const m = await model();
  const encoded = await m.encode(srcIds); // model.encode(src, src_mask)
  const step = m.stepper(encoded);
  const options = { maxLen, bosId: manifest.bos_id, eosId: manifest.eos_id };
  let tokens, score = null;
  if (beam > 0) { // illustrated.translator.translate(..., beam=beam): its length penalty
    ({ tokens, score } = (await beamSearch(step, { ...options, beamSize: beam,
      lengthPenalty: manifest.length_penalty }))[0]);
  } else {
    tokens = await greedyDecode(step, options);
  }
  // illustrated.translator.cross_attention: the decoder reads <bos> w1 … wn; row i is the
  // step that writes tokens[i + 1].
  const { crossAttention } = await m.decode(encoded, [tokens.slice(0, -1)]);
  return { srcIds, tokens, score, selfAttention: encoded.selfAttention, crossAttention };
}

const pieces = (ids) => (tokenizer ? tokenizer.pieces(ids) : ids.map(String));

function fillSelect(select, n, name) {
  select.replaceChildren(...Array.from({ length: n }, (_, i) => new Option(t.numbered(name, i + 1), i)));
}

function drawMaps() {
  if (!shown) return;
  const { srcIds, tokens, selfAttention, crossAttention } = shown;
  const src = pieces(srcIds), out = pieces(tokens.slice(1));
  const cl = +$("#lt-cross-layer").value, ch = +$("#lt-cross-head").value;
  const el = +$("#lt-self-layer").value, eh = +$("#lt-self-head").value;
  $("#lt-cross").replaceChildren(heatmap(attentionMatrix(crossAttention, cl, ch), out, src,
    t.crossCaption(cl + 1, ch + 1)));
  $("#lt-self").replaceChildren(heatmap(attentionMatrix(selfAttention, el, eh), src, src,
    t.selfCaption(el + 1, eh + 1)));
}

function show(result, text, beam, seconds) {
  shown = result;
  const outPieces = pieces(result.tokens.slice(1));
  $("#lt-tokens").replaceChildren(...outPieces.map((p, i) => {
    const chip = document.createElement("span");
    chip.className = "lt-token";
    chip.textContent = p;
    chip.title = t.step(i + 1, result.tokens[i + 1]);
    return chip;
  }));
  $("#lt-translation").textContent = tokenizer ? tokenizer.decode(result.tokens) : "";
  $("#lt-source").textContent = t.reads(result.srcIds.length) + pieces(result.srcIds).join(" ");
  $("#lt-results").hidden = false;
  drawMaps();
  api.last = { text, beam, srcIds: result.srcIds, tokens: result.tokens, score: result.score };
  api.runs += 1;
  const how = beam > 0 ? t.beam(beam) : t.greedy;
  say(t.translated(how, seconds.toFixed(2)), "done");
}

async function onSubmit(event) {
  event.preventDefault();
  const text = $("#lt-text").value;
  const beam = $("#lt-beam").checked ? +$("#lt-beam-size").value : 0;
  const prepared = prepare(text); // illustrated.translator.prepare
  if (!prepared) return say(t.empty, "ready");
  const srcIds = tokenizer.encode(prepared); // SubwordTokenizer.encode: [bos, ..., eos]
  if (srcIds.length > manifest.max_len) {
    return say(t.tooLong(srcIds.length, manifest.max_len), "ready");
  }
  $("#lt-go").disabled = true;
  root.dataset.state = "busy";
  try {
    const start = performance.now();
    const result = await translateIds(srcIds, { beam });
    show(result, text, beam, (performance.now() - start) / 1000);
  } catch (error) {
    say(t.failed(error.message), "error");
  } finally {
    $("#lt-go").disabled = false;
  }
}

// The page's static words in the edition's language (messages.mjs, `labels`).
function translateLabels() {
  for (const el of root.querySelectorAll("[data-msg]")) {
    if (t.labels[el.dataset.msg]) el.textContent = t.labels[el.dataset.msg];
  }
  for (const el of root.querySelectorAll("[data-msg-aria]")) {
    if (t.labels[el.dataset.msgAria]) el.setAttribute("aria-label", t.labels[el.dataset.msgAria]);
  }
}

async function start() {
  translateLabels();
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
  if (!manifest.tokenizer_js) {
    return say(t.noTokenizer, "ids-only");
  }
  const module = await import("./tokenizer.js");
  const json = await (await fetch(new URL("tokenizer.json", import.meta.url))).json();
  tokenizer = module.Tokenizer.fromJSON(json);
  prepare = module.prepare;
  $("#lt-form").addEventListener("submit", onSubmit);
  $("#lt-go").disabled = false;
  const mb = Object.values(manifest.files).reduce((a, b) => a + b, 0) / 1e6;
  say(t.ready((mb + manifest.runtime / 1e6).toFixed(0)), "ready");
}

api.ready = start().catch((error) => say(t.cannotStart(error.message), "error"));
