// What the two live pages (page.mjs: the translator; writer.mjs: the writer) do alike with
// their box: find elements in it, write its status line, put its static words in the
// edition's language, and fetch the JSON files that scripts/export_onnx.py writes.

// The page's box (its id), `$` for elements inside it, and `say`: the status line's text
// and, if given, the box's data-state (which the browser checks wait on).
export function liveBox(id, statusSelector) {
  const root = document.getElementById(id);
  const $ = (selector) => root.querySelector(selector);
  const say = (text, state) => {
    $(statusSelector).textContent = text;
    if (state) root.dataset.state = state;
  };
  return { root, $, say };
}

// The static words (elements with data-msg, and data-msg-aria for an aria-label) in the
// edition's language: `labels` from messages.mjs (empty in English, which the HTML has).
export function translateLabels(root, labels) {
  for (const el of root.querySelectorAll("[data-msg]")) {
    if (labels[el.dataset.msg]) el.textContent = labels[el.dataset.msg];
  }
  for (const el of root.querySelectorAll("[data-msg-aria]")) {
    if (labels[el.dataset.msgAria]) el.setAttribute("aria-label", labels[el.dataset.msgAria]);
  }
}

// A JSON file of _static/live/.
export async function fetchJSON(name) {
  const response = await fetch(new URL(name, import.meta.url));
  if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
  return response.json();
}
