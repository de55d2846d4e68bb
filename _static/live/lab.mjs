// The decoding lab: one translation's decoding, a step at a time, as decoding.mjs recorded
// it while it decoded (the `trace` of greedyDecode and beamSearch, the records of
// illustrated.decoding's greedy_decode and beam_search given a trace list). Greedy: the
// prefix written so far, the most likely next tokens and the one taken. Beam search: the
// live hypotheses with their scores, and their best extensions, each kept, finished (with
// its score divided by the length penalty) or dropped. Previous / next buttons and a
// slider move between steps; ← and → do it from the buttons too.

// The writer's percent (generate.percent): "<0.1 %" for a tiny non-zero probability.
import { percent } from "./steps.mjs";

function node(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") el.className = v; else el.setAttribute(k, v);
  }
  el.append(...children);
  return el;
}


export class Lab {
  // box: the lab's element (#lt-lab); pieces(ids) -> the tokens as shown; say: messages.mjs.
  constructor(box, { pieces, say }) {
    Object.assign(this, { box, pieces, say, result: null, at: 0 });
    this.slider = box.querySelector("#lt-lab-step");
    this.view = box.querySelector("#lt-lab-view");
    this.where = box.querySelector("#lt-lab-where");
    box.querySelector("#lt-lab-prev").addEventListener("click", () => this.go(this.at - 1));
    box.querySelector("#lt-lab-next").addEventListener("click", () => this.go(this.at + 1));
    this.slider.addEventListener("input", () => this.go(+this.slider.value));
    box.querySelector(".lt-lab-controls").addEventListener("keydown", (event) => {
      if (event.target === this.slider) return; // the slider moves itself
      const by = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
      if (by) { event.preventDefault(); this.go(this.at + by); }
    });
  }

  // A translation of translateIds (page.mjs): its tokens and trace.
  show(result) {
    this.result = result;
    this.slider.max = result.trace.length;
    this.box.hidden = false;
    this.go(1);
  }

  clear() {
    this.result = null;
    this.box.hidden = true;
    this.view.replaceChildren();
  }

  // Step i (1 to the number of steps).
  go(i) {
    const steps = this.result.trace, n = steps.length;
    this.at = Math.min(Math.max(i, 1), n);
    this.slider.value = this.at;
    this.box.dataset.step = this.at;
    this.where.textContent = this.say.labWhere(this.at, n);
    const step = steps[this.at - 1];
    this.view.replaceChildren(...(step.top ? this.greedy(step) : this.beam(step)));
    if (this.at === n) this.view.append(node("p", { class: "lt-lab-end" }, this.say.labEnd));
  }

  // A greedy step: the prefix ys, then trace.top ([id, logp], best first) and the choice.
  greedy(step) {
    const { say } = this, prefix = this.result.tokens.slice(0, this.at);
    const rows = step.top.map(([id, logp]) => node("tr",
      { class: id === step.chosen ? "lt-chosen" : "", "data-id": id },
      node("td", {}, node("code", {}, this.pieces([id])[0])),
      node("td", {}, percent(Math.exp(logp))),
      node("td", {}, logp.toFixed(3)), node("td", {}, id === step.chosen ? say.labChosen : "")));
    return [node("p", {}, say.labWritten, " ", node("code", {}, this.pieces(prefix).join(" "))),
            node("p", {}, say.labGreedyTop(step.top.length)),
            this.table([say.labPiece, say.labProbability, say.labLogp, ""], rows)];
  }

  // A beam step: trace.live (tokens, score), numbered, then trace.candidates, each the
  // live hypothesis it extends (its number) and one more token, with its fate.
  beam(step) {
    const { say } = this;
    const key = (tokens) => tokens.join(" ");
    const number = new Map(step.live.map((h, i) => [key(h.tokens), i + 1]));
    const live = step.live.map((h, i) => node("tr", {}, node("td", {}, `${i + 1}`),
      node("td", {}, node("code", {}, this.pieces(h.tokens).join(" "))),
      node("td", {}, h.score.toFixed(3))));
    const candidates = step.candidates.map((c) => node("tr",
      { class: `lt-${c.fate}`, "data-fate": c.fate },
      node("td", {}, `${number.get(key(c.tokens.slice(0, -1)))}`),
      node("td", {}, node("code", {}, this.pieces(c.tokens.slice(-1))[0])),
      node("td", {}, c.score.toFixed(3)),
      node("td", {}, c.fate === "finished" ? say.labFinished(c.final.toFixed(3))
                                           : say.labFates[c.fate])));
    return [node("p", {}, say.labLive(step.live.length)),
            this.table(["", say.labHypothesis, say.labScore], live),
            node("p", {}, say.labCandidates(step.candidates.length)),
            this.table([say.labExtends, say.labPlus, say.labScore, say.labFate], candidates)];
  }

  table(heads, rows) {
    const head = node("tr", {}, ...heads.map((h) => node("th", { scope: "col" }, h)));
    return node("div", { class: "lt-lab-table" },
      node("table", {}, node("thead", {}, head), node("tbody", {}, ...rows)));
  }
}
