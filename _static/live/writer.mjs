// The live writer page (chapters/live_writer.md): the decoder-only model of
// illustrated.decoder_only.model writes after the reader's prompt, one token at a time, as
// `python -m illustrated generate` does. Each step names the Python it mirrors: the form
// and the prompt are checked and the prompt tokenised as the command does (command.mjs,
// in the command's words: messages.mjs's `writer`), and the model writes by sampling.mjs's
// `generate` (illustrated.decoder_only.sampling.generate) over the ONNX graph (model.mjs's LiveWriter).
// Each step is shown by steps.mjs, with the numbers of `generate --steps`. Greedy greys out
// the settings it ignores; a change of any setting writes again, and the view opens on step 1.
//
// For the browser tests (tests/site/browser/test_live_writer.py) the page exposes
// window.liveWriter: `ready` (a promise), `runs` (writings answered so far: a press of Write or
// a changed setting), `idle()` (none in progress or due), `last` (the last one: prompt ids,
// written ids, text, refusal, trace) and
// writeIds(promptIds, options) (ids in, ids and trace out, no tokenizer).

import { checkOptions, promptIds as commandPrompt } from "./command.mjs";
import { fetchJSON, liveBox, translateLabels } from "./app.mjs";
import { messages } from "./messages.mjs";
import { LiveWriter } from "./model.mjs";
import { generate } from "./sampling.mjs";
import { stepView } from "./steps.mjs";

const t = messages.writer;
const SETTINGS = ["#lw-temperature", "#lw-top-k", "#lw-top-p", "#lw-seed"]; // greedy ignores
const { root, $, say } = liveBox("lw-app", "#lw-status");

const api = { runs: 0, last: null, writeIds,
              idle: () => root.dataset.state !== "busy" && !again };
window.liveWriter = api;
let manifest, tokenizer, modelPromise, limits, profile;
let shown = null; // the writing on screen: {promptIds, ids, trace, sampling, step}
let again = false; // a setting changed while the model was writing: write once more after

function model() {
  if (!modelPromise) {
    let bytes = 0;
    const total = (manifest.files["writer.onnx"] + manifest.files["writer.bin"]) / 1e6;
    modelPromise = LiveWriter.load((n) => {
      bytes += n;
      say(t.loading((bytes / 1e6).toFixed(1), total.toFixed(1)));
    }).catch((error) => { modelPromise = null; throw error; });
  }
  return modelPromise;
}

// illustrated.decoder_only.sampling.generate(model, prompt_ids, max_new_tokens, ...) without a cache;
// `onStep(record, step)` sees each step as it is written. Returns {ids, trace}.
async function writeIds(promptIds, { maxNewTokens, temperature = 0, topK = 0, topP = 1,
                                     seed = 0 } = {}, onStep = () => {}) {
  const m = await model();
  const trace = [];
  const record = { push: (r) => { trace.push(r); onStep(r, trace.length); } };
  const ids = await generate((prefix) => m.step(prefix), promptIds, {
    maxNewTokens, maxLen: manifest.max_len, temperature, topK, topP, seed,
    eosId: manifest.eos_id, trace: record });
  return { ids, trace };
}

// The form's fields as the command line reads them: strings (command.mjs parses them).
function fields() {
  const value = (id) => $(id).value;
  return { greedy: $("#lw-greedy").checked, temperature: value("#lw-temperature"),
           topK: value("#lw-top-k"), topP: value("#lw-top-p"), seed: value("#lw-seed"),
           maxNewTokens: value("#lw-max") };
}

function chip(text, cls, title) {
  const span = document.createElement("span");
  span.className = cls;
  span.textContent = text;
  if (title) span.title = title;
  return span;
}

// One step: the model's distribution beside the one the token came from (steps.mjs).
function drawStep(step) {
  const { trace, promptIds, ids, sampling } = shown;
  shown.step = step;
  const before = tokenizer.pieces([...promptIds, ...ids.slice(0, step - 1)]).join(" ");
  $("#lw-step-view").replaceChildren(
    chip(t.stepAfter(step, before), "lw-step-after"),
    ...stepView(trace[step - 1], { pieces: (ids) => tokenizer.pieces(ids), t, sampling }));
  $("#lw-step").value = step;
  $("#lw-where").textContent = t.where(step, trace.length);
  for (const c of $("#lw-written").children) c.classList.toggle("lw-now", +c.dataset.step === step);
}

// The written tokens as chips; a click shows that step.
function addToken(id, step) {
  const c = chip(tokenizer.pieces([id])[0], "lw-token", t.pieceTitle(step, id));
  c.dataset.step = step;
  c.addEventListener("click", () => drawStep(step));
  $("#lw-written").append(c);
}

async function onSubmit(event) {
  event.preventDefault();
  const prompt = $("#lw-prompt").value;
  // main(): the options first (argparse, check_sampling), then prompt_ids(...)
  const parsed = checkOptions(fields(), t);
  const o = parsed.options;
  // _write(): check_prompt(text, profile) (limits.mjs), then prompt_ids(...)
  const checked = parsed.refusal ? parsed : limits.checkPrompt(prompt, profile, messages.limits);
  const warnings = checked.warnings ?? [];
  const { ids: promptIds = null, refusal = null } = checked.refusal ? checked
    : commandPrompt(tokenizer, prompt, manifest.max_len, t);
  $("#lw-warnings").replaceChildren(...warnings.map((w) => chip(w, "lw-warning")));
  const finish = (state, extra) => {
    api.last = { prompt, promptIds, options: o ?? null, refusal, warnings, ...extra };
    api.runs += 1;
    root.dataset.state = state;
  };
  $("#lw-written").replaceChildren();
  $("#lw-step-view").replaceChildren();
  $("#lw-out").hidden = true;
  if (refusal) {
    shown = null;
    $("#lw-prompt-pieces").replaceChildren(); // no prompt read: none of the last one's shown
    say(refusal);
    return finish("refused", { ids: null, text: null });
  }
  $("#lw-prompt-pieces").replaceChildren(...tokenizer.pieces(promptIds).map(
    (p) => chip(p, "lw-token lw-prompt-token")));
  $("#lw-go").disabled = true;
  root.dataset.state = "busy";
  shown = { promptIds, ids: [], trace: [], sampling: o.temperature > 0, step: 1 };
  $("#lw-out").hidden = false;
  try {
    const start = performance.now();
    const { ids, trace } = await writeIds(promptIds, o, (r, step) => {
      shown.ids.push(r.chosen);
      shown.trace.push(r);
      addToken(r.chosen, step);
      $("#lw-step").max = step;
      if (step === 1) drawStep(1); // the view opens on step 1 and stays where the reader puts it
      $("#lw-where").textContent = t.where(shown.step, step);
      say(t.writing(step));
    });
    const text = tokenizer.decode([...promptIds, ...ids]);
    $("#lw-text").textContent = text;
    const seconds = ((performance.now() - start) / 1000).toFixed(2);
    say(t.written(ids.length, seconds, ids.at(-1) === manifest.eos_id));
    finish("done", { ids, text, trace });
  } catch (error) {
    say(t.failed(error.message));
    finish("error", { ids: null, text: null });
  } finally {
    $("#lw-go").disabled = false;
    if (again) {
      again = false;
      $("#lw-form").requestSubmit();
    }
  }
}

// Greedy ignores temperature, top-k, top-p and the seed: grey them out, and say why.
function showMode() {
  const greedy = $("#lw-greedy").checked;
  for (const id of SETTINGS) $(id).disabled = greedy;
  $("#lw-settings").classList.toggle("lw-off", greedy);
  $("#lw-greedy-note").hidden = !greedy;
}

// A setting changed: write again with it, so that nothing on screen is left from the old one.
function settingChanged() {
  showMode();
  if (api.runs === 0 && root.dataset.state !== "busy") return; // nothing written yet
  if (root.dataset.state === "busy") again = true;
  else $("#lw-form").requestSubmit();
}

async function start() {
  translateLabels(root, t.labels);
  $("#lw-form").hidden = false; // hidden in the HTML: without this script it can do nothing
  if (location.protocol === "file:") return; // the page's inline script has said why
  try {
    manifest = await fetchJSON("writer.json");
  } catch {
    return say(t.noModel, "missing");
  }
  if (!manifest.runtime) return say(t.noRuntime, "missing");
  if (!manifest.tokenizer_js) return say(t.noTokenizer, "missing");
  const [module, json, rule, trained] = await Promise.all([import("./tokenizer.js"),
    fetchJSON("writer-tokenizer.json"), import("./limits.mjs"), fetchJSON("limits.json")]);
  tokenizer = module.Tokenizer.fromJSON(json);
  // The prompt's check (limits.check_prompt): the translator's training pairs, whose English
  // sentences the writer read (limits.training_profile({}) in the command).
  limits = rule;
  profile = rule.profileFromJSON(trained);
  const box = document.createElement("p");
  box.id = "lw-warnings";
  $("#lw-form").after(box);
  const d = manifest.defaults;
  for (const [id, v] of [["temperature", d.temperature], ["top-k", d.top_k],
                         ["top-p", d.top_p], ["seed", d.seed],
                         ["max", d.max_new_tokens]]) $(`#lw-${id}`).value = v;
  $("#lw-step").addEventListener("input", () => drawStep(+$("#lw-step").value));
  for (const id of ["#lw-greedy", "#lw-sample", ...SETTINGS, "#lw-max"]) {
    $(id).addEventListener("change", settingChanged);
  }
  showMode();
  $("#lw-form").addEventListener("submit", onSubmit);
  $("#lw-go").disabled = false;
  const mb = Object.values(manifest.files).reduce((a, b) => a + b, 0) / 1e6;
  say(t.ready((mb + manifest.runtime / 1e6).toFixed(0)), "ready");
}

api.ready = start().catch((error) => say(t.cannotStart(error.message), "error"));
