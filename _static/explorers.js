// The explorers of the book (illustrated.explorers): draws every <div class="vl-explorer">
// of the page with the site's own vega-embed (_static/vendor/).
//
// Each div holds its Vega-Lite spec as JSON in a <script type="application/json"> (made by
// illustrated.explorers.Explorer.to_html) and a note for readers without JavaScript.
// scripts/site_extras.py loads this script, deferred, after vega, vega-lite and vega-embed,
// only on pages that have an explorer. A classic script, not a module: a page opened from
// disk (file://) fetches no module (it has no origin), and its explorers stayed the note
// (tests/lab/test_explorer_from_a_file.py). The drawn view is kept on the div
// (div.vegaView) so that the browser tests (tests/site/browser/test_explorers.py) can read
// what the chart shows.
// The words this script writes follow the page's language (<html lang="zh-CN"> on the
// Chinese edition, whose explorers come in Chinese: scripts/explorer_editions.py).
(() => {
"use strict";

const MESSAGES = {
  en: {
    missing: "This explorer cannot run: the site's copy of vega-embed (_static/vendor/) " +
             "is missing; rebuild the book with npm installed (make book).",
    failed: "This explorer could not be drawn: ",
    // Added to a failure on a page opened from disk, where a browser refuses some files.
    served: " Browsers may not run this page from a file: run make serve and open the " +
            "address it prints.",
  },
  zh: {
    missing: "交互演示无法运行：网站自带的 vega-embed（_static/vendor/）缺失；" +
             "请在装好 npm 后重新构建本书（make book）。",
    failed: "交互演示未能画出：",
    served: "浏览器可能不会从本地文件运行本页：请运行 make serve，再打开它给出的地址。",
  },
};
const WORDS = document.documentElement.lang.startsWith("zh") ? MESSAGES.zh : MESSAGES.en;
// The charts' text: the site's CJK web font first (_static/cjk.css: "WQY Web", for CJK code
// points only), then Vega's default. Vega writes its own font-family on every SVG text, so
// without this a Chinese title is tofu on a machine without CJK fonts; Latin text is drawn
// as before.
const CHART_FONT = '"WQY Web", sans-serif';

function say(div, text) {
  // One line in place of the note: what went wrong, or nothing once drawn.
  let note = div.querySelector(".vl-explorer-note");
  if (!note) {
    note = document.createElement("p");
    note.className = "vl-explorer-note";
    div.appendChild(note);
  }
  note.textContent = text;
}

async function draw(div) {
  // Explorer.to_json: the spec, inert JSON inside the div.
  const spec = JSON.parse(div.querySelector('script[type="application/json"]').textContent);
  if (typeof window.vegaEmbed !== "function") {
    say(div, WORDS.missing);
    div.dataset.state = "missing";
    return;
  }
  const chart = document.createElement("div");
  div.insertBefore(chart, div.firstChild);
  try {
    // SVG: sharp at any zoom; no action menu (it links to vega's online editor).
    const result = await window.vegaEmbed(chart, spec, {renderer: "svg", actions: false,
                                                    config: {font: CHART_FONT}});
    div.vegaView = result.view;
    div.querySelector(".vl-explorer-note")?.remove();
    div.dataset.state = "ready";
  } catch (err) {
    say(div, WORDS.failed + err.message + (location.protocol === "file:" ? WORDS.served : ""));
    div.dataset.state = "failed";
    console.error(err);
  }
}

// A deferred script runs once the page is parsed: every explorer div is there.
document.querySelectorAll("div.vl-explorer").forEach(draw);
})();
